"""Cases of patterns/guarded_step.py: one optimizer's whole step under an `if` -> manual
optimization, the test and the step kept as written."""

CONVERTS = {
    # a replay memory: learning starts once it holds a batch, the code after runs every batch
    "step_once_the_memory_holds_a_batch": (
        """
        memory = []
        for epoch in range(2):
            for x, y in loader:
                memory.append((x, y))
                if len(memory) >= 2:
                    xs, ys = memory[-2]
                    loss = criterion(model(xs), ys)
                    optimizer.zero_grad()
                    loss.backward()
                    torch.nn.utils.clip_grad_value_(model.parameters(), 1.0)
                    optimizer.step()
                print(len(memory), model.weight.sum().item())
        """,
        [
            "self.automatic_optimization = False",
            "optimizer = self.optimizers()",
            "if len(self.memory) >= 2:",
            "self.manual_backward(loss)",
            'self.clip_gradients(\n                optimizer, gradient_clip_val=1.0, gradient_clip_algorithm="value"\n'
            "            )",
            "print(len(self.memory), self.model.weight.sum().item())",
        ],
        ['self.log("train_loss"', "return loss", ".backward("],
    ),
    # the episode's steps end on `done`: the flag ends the epoch after that step
    "episode_steps_until_done": (
        """
        import itertools

        memory = []
        for episode in range(3):
            state = torch.randn(1, 4)
            for t in itertools.count():
                memory.append(state)
                if len(memory) > 3:
                    optimizer.zero_grad()
                    loss = model(torch.cat(memory[-3:])).pow(2).mean()
                    loss.backward()
                    optimizer.step()
                state = state + 0.5
                done = state.sum().item() > 4 or t >= 6
                if done:
                    print(episode, t, model.weight.sum().item())
                    break
        """,
        [
            "import sys",
            "range(sys.maxsize), batch_size=None",
            "if self.stop_epoch:\n            return -1",
            "self.stop_epoch = True",
            "self.state = self.state + 0.5",
        ],
        ["itertools.count", "break", 'self.log("train_loss"'],
    ),
}

UNCHANGED = {
    "step_under_an_if_with_a_grad_scaler": (
        """
        scaler = torch.amp.GradScaler("cpu")
        memory = []
        for epoch in range(2):
            for x, y in loader:
                memory.append((x, y))
                if len(memory) >= 2:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    scaler.scale(loss).backward()
                    scaler.step(optimizer)
                    scaler.update()
        """,
        "TL114",
    ),
    "step_under_an_if_with_data_parallel": (
        """
        model = torch.nn.DataParallel(model)
        memory = []
        for epoch in range(2):
            for x, y in loader:
                memory.append((x, y))
                if len(memory) >= 2:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
        """,
        "TL114",
    ),
    # code after the `break` in the loop would run on the batch that ends the epoch
    "episode_break_before_more_code": (
        """
        import itertools

        memory = []
        for episode in range(3):
            for t in itertools.count():
                memory.append(t)
                if len(memory) > 3:
                    optimizer.zero_grad()
                    loss = model(torch.randn(2, 4)).pow(2).mean()
                    loss.backward()
                    optimizer.step()
                if t >= 4:
                    break
                print(t)
        """,
        "TL107",
    ),
}
