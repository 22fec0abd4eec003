"""Cases of patterns/step_sequence.py: zero_grad / backward / step, once per batch."""

CONVERTS = {
    # `l.mean().backward()`: training_step returns the mean, computed where it was
    "backward_on_expression": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                l = torch.nn.functional.cross_entropy(model(x), y, reduction="none")
                l.mean().backward()
                optimizer.step()
        """,
        ["train_loss = l.mean()\n", "return train_loss"],
        ["backward"],
    ),
    # backward() on an expression of the loss: the same value is returned
    "backward_on_a_scaled_loss": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                (criterion(model(x), y) * 2).backward()
                optimizer.step()
        """,
        ["train_loss = self.criterion(self(x), y) * 2\n", "return train_loss"],
        ["backward"],
    ),
    "zero_grad_first": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ['loss = self.criterion(self(x), y)\n        self.log("train_loss", loss)\n'],
        ["zero_grad", "backward", ".step()"],
    ),
    "zero_grad_after_step_on_the_model": (
        """
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                model.zero_grad()
        """,
        ["return loss"],
        ["zero_grad"],
    ),
    "loss_rebound_after_backward_is_captured": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                loss = loss.item()
        """,
        ["step_loss = loss\n        loss = loss.item()", "return step_loss"],
        [],
    ),
    # ... zeroed after the sanity check: the first step starts from zero, as Lightning's
    "gradients_zeroed_after_code_before_the_loop": (
        """
        x0, y0 = next(iter(loader))
        criterion(model(x0), y0).backward()  # sanity check: gradients reach every layer
        print(model.weight.grad.norm())
        optimizer.zero_grad()
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        """,
        ["trainer.fit(lit_model, loader)"],
        [],
    ),
}

UNCHANGED = {
    # Lightning's zero_grad sets the gradients to None: AdamW would skip a parameter the
    # script keeps updating with a zero gradient (weight decay, momentum)
    "zero_grad_keeping_zero_tensors": (
        """
        optimizer = torch.optim.AdamW(model.parameters(), lr=0.1)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad(set_to_none=False)
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL105",
    ),
    # the sanity check leaves its gradients; the script's first step adds them in
    # (it zeroes after the step), Lightning zeroes them first
    "gradients_left_by_code_before_the_loop": (
        """
        x0, y0 = next(iter(loader))
        criterion(model(x0), y0).backward()  # sanity check: gradients reach every layer
        print(model.weight.grad.norm())
        
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        """,
        "TL105",
    ),
    "no_zero_grad": (
        """
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL105",
    ),
    "zero_grad_between_backward_and_step": (
        """
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.zero_grad()
                optimizer.step()
        """,
        "TL105",
    ),
}

# backward() on an expression: the value it was called on is bound where it was computed
# and returned; later code still reads the script's own names
CONVERTS["backward_on_the_mean_of_per_sample_losses"] = (
    """
    per_sample = nn.CrossEntropyLoss(reduction="none")
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            losses = per_sample(model(x), y)
            losses.mean().backward()
            optimizer.step()
            print(losses.max().item())
    """,
    [
        "train_loss = losses.mean()\n        print(losses.max().item())\n"
        '        self.log("train_loss", train_loss)\n        return train_loss'
    ],
    [".backward()"],
)
CONVERTS["backward_on_the_criterion_call"] = (
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
    """,
    ["train_loss = self.criterion(self(x), y)", "return train_loss"],
    [".backward()"],
)

# zero_grad() through modules (patterns/module_zero_grad.py): the calls stand for the
# optimizer's when together they reach every parameter it steps (a submodule's included)
CONVERTS["module_zero_grads_reach_every_optimized_parameter"] = (
    """
    encoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))
    decoder = nn.Linear(4, 2)
    params = list(decoder.parameters()) + list(encoder[2].parameters())
    opt = torch.optim.Adam(params)
    for epoch in range(2):
        for x, y in loader:
            loss = criterion(decoder(encoder(x)), y)
            decoder.zero_grad()
            encoder.zero_grad()
            loss.backward()
            opt.step()
    """,
    ["self.decoder = decoder", "self.encoder = encoder", "torch.optim.Adam(self.params)"],
    ["zero_grad", "opt.step()"],
)
CONVERTS["submodule_zero_grads_reach_the_parameter_groups"] = (
    """
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(4, 4)
            self.head = nn.Linear(4, 2)

        def forward(self, x):
            return self.head(self.body(x))

    net = Net()
    groups = [{"params": net.body.parameters(), "lr": 0.01}, {"params": net.head.parameters()}]
    opt = torch.optim.SGD(groups, lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            net.body.zero_grad()
            net.head.zero_grad()
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()
    """,
    ["self.model = net"],
    ["zero_grad"],
)
UNCHANGED["module_zero_grad_misses_an_optimized_module"] = (
    """
    encoder = nn.Linear(4, 4)
    decoder = nn.Linear(4, 2)
    opt = torch.optim.SGD(list(encoder.parameters()) + list(decoder.parameters()), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            loss = criterion(decoder(encoder(x)), y)
            encoder.zero_grad()
            loss.backward()
            opt.step()
    """,
    "TL105",
)
UNCHANGED["submodule_zero_grad_misses_the_rest_of_the_model"] = (
    """
    net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            loss = criterion(net(x), y)
            net[1].zero_grad()
            loss.backward()
            opt.step()
    """,
    "TL105",
)
UNCHANGED["module_zero_grad_with_a_bare_tensor_in_the_optimizer"] = (
    """
    encoder = nn.Linear(4, 4)
    decoder = nn.Linear(4, 2)
    scale = torch.ones(2, requires_grad=True)
    opt = torch.optim.SGD([*encoder.parameters(), *decoder.parameters(), scale], lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            loss = criterion(decoder(encoder(x)) * scale, y)
            encoder.zero_grad()
            decoder.zero_grad()
            loss.backward()
            opt.step()
    """,
    "TL105",
)

# the model's own zero_grad() with an optimizer also over a bare tensor (a learned temperature):
# the script lets that tensor's gradient add up over batches, Lightning would zero it
UNCHANGED["model_zero_grad_with_a_bare_tensor_in_the_optimizer"] = (
    """
    log_temp = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([*model.parameters(), log_temp], lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            model.zero_grad()
            loss = criterion(model(x) / log_temp.exp(), y)
            loss.backward()
            opt.step()
    """,
    "TL105",
)
# the gradients reached through a list of the model's parameters: training_step runs before
# backward(), where they are None (or the last step's)
UNCHANGED["gradients_scaled_through_a_parameter_list"] = (
    """
    params = list(model.parameters())
    opt = torch.optim.SGD(params, lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            for p in params:
                p.grad.mul_(0.5)
            opt.step()
    """,
    "TL105",
)
