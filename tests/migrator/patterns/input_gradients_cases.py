"""Cases of patterns/input_gradients.py: backward() for an input's gradient (a PGD attack, a
Langevin sampler) kept in training_step when the script zeroes the gradients after it."""

CONVERTS = {
    "pgd_loop_before_zero_grad": (
        """
        for epoch in range(2):
            for x, y in loader:
                delta = torch.zeros_like(x, requires_grad=True)
                for _ in range(3):
                    criterion(model(x + delta), y).backward()
                    delta.data = (delta + 0.1 * delta.grad.sign()).clamp(-0.3, 0.3)
                    delta.grad.zero_()
                loss = criterion(model(x + delta.detach()), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        """,
        ["criterion(self(x + delta), y).backward()", "return loss"],
        ["optimizer.zero_grad()"],
    ),
    "langevin_function_before_zero_grad": (
        """
        def langevin(net, x, steps=3):
            x = x.clone().requires_grad_()
            for _ in range(steps):
                net(x).sum().backward()
                x.data.add_(-0.1 * x.grad)
                x.grad = None
            return x.detach()


        for epoch in range(2):
            for x, y in loader:
                x_neg = langevin(model, x)
                loss = model(x).mean() - model(x_neg).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        """,
        ["x_neg = langevin(self.model, x)", "def langevin(net, x, steps=3):"],
        ["optimizer.zero_grad()"],
    ),
    # a step loop: the attack loop is no loop of micro steps (shapes/micro_steps.py)
    "pgd_loop_in_a_step_loop": (
        """
        x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
        for it in range(20):
            delta = torch.zeros_like(x, requires_grad=True)
            for _ in range(3):
                criterion(model(x + delta), y).backward()
                delta.data = (delta + 0.1 * delta.grad.sign()).clamp(-0.3, 0.3)
                delta.grad.zero_()
            loss = criterion(model(x + delta.detach()), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        """,
        ["self.criterion(self(self.x + delta), self.y).backward()", "return loss"],
        ["accumulate_grad_batches", "optimizer.zero_grad()"],
    ),
}

UNCHANGED = {
    "pgd_loop_after_zero_grad": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                delta = torch.zeros_like(x, requires_grad=True)
                for _ in range(3):
                    criterion(model(x + delta), y).backward()
                    delta.data = (delta + 0.1 * delta.grad.sign()).clamp(-0.3, 0.3)
                    delta.grad.zero_()
                loss = criterion(model(x + delta.detach()), y)
                loss.backward()
                optimizer.step()
        """,
        "TL300",
    ),
    "langevin_function_with_zero_grad_after_step": (
        """
        def langevin(net, x, steps=3):
            x = x.clone().requires_grad_()
            for _ in range(steps):
                net(x).sum().backward()
                x.data.add_(-0.1 * x.grad)
                x.grad = None
            return x.detach()


        for epoch in range(2):
            for x, y in loader:
                x_neg = langevin(model, x)
                loss = model(x).mean() - model(x_neg).mean()
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        """,
        "TL300",
    ),
    "attack_after_the_loss_backward": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                delta = torch.zeros_like(x, requires_grad=True)
                for _ in range(3):
                    criterion(model(x + delta), y).backward()
                    delta.data = (delta + 0.1 * delta.grad.sign()).clamp(-0.3, 0.3)
                optimizer.step()
        """,
        "TL300",
    ),
    "plain_tensor_trained_by_hand_is_training": (
        """
        w = torch.zeros(4, 2, requires_grad=True)
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(x @ w, y)
                loss.backward()
                with torch.no_grad():
                    w -= 0.1 * w.grad
                    w.grad.zero_()
        """,
        "TL128",
    ),
}
