"""Cases of patterns/kept_optimizers.py: an optimizer used outside the loop stays in the script."""

CONVERTS = {
    "resume_block_loads_optimizer_and_scheduler_state": (
        """
        import os

        scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
        if os.path.exists("last.pt"):
            state = torch.load("last.pt")
            optimizer.load_state_dict(state["optimizer"])
            scheduler.load_state_dict(state["scheduler"])
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            scheduler.step()
            torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, "last.pt")
        """,
        [
            "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
            "scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)",
            "self.scheduler.step()",
            '"optimizer": self.optimizer.state_dict()',
            "def configure_optimizers(self):\n        return self.optimizer\n",
            "LitModel(model, optimizer, scheduler, criterion)",
        ],
        ["lr_schedulers()", '"interval"'],
    ),
    "optimizer_state_loaded_before_the_loop": (
        """
        optimizer.load_state_dict(optimizer.state_dict())
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["return self.optimizer", "optimizer.load_state_dict(optimizer.state_dict())"],
        ["torch.optim.SGD(self.model"],
    ),
}

# a per-batch scheduler of a resumed optimizer: both handed to the module, the scheduler
# returned to Lightning, which steps it right after each optimizer step as the script did
CONVERTS["per_batch_scheduler_of_a_resumed_optimizer"] = (
    """
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)
    optimizer.load_state_dict(optimizer.state_dict())
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
    """,
    [
        '"lr_scheduler": {"scheduler": self.scheduler, "interval": "step"}',
        "LitModel(model, optimizer, scheduler, criterion)",
    ],
    ["scheduler.step()"],
)

UNCHANGED = {
    "plateau_scheduler_of_a_resumed_optimizer": (
        """
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
        optimizer.load_state_dict(optimizer.state_dict())
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            scheduler.step(loss.item())
        """,
        "TL134",
    ),
}

# a ReduceLROnPlateau whose rate the epoch prints after its step (Lightning steps its own one
# after on_train_epoch_end): the script's step stays in place, with its metric
CONVERTS["plateau_scheduler_read_after_its_step"] = (
    """
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        scheduler.step(loss.item())
        print(optimizer.param_groups[0]["lr"])
    """,
    [
        'self.scheduler.step(self.loss.item())\n        print(self.optimizer.param_groups[0]["lr"])',
        "def configure_optimizers(self):\n        return self.optimizer",
    ],
    ["monitor"],
)

# the module's optimizer and scheduler, read as globals by the function holding the loop
# (analysis/globals_read.py): both stay in the script; the module returns the optimizer and
# the epoch hook steps the script's scheduler where the script did (Lightning never sees it)
CONVERTS["module_global_optimizer_and_scheduler_read_by_the_function"] = (
    """
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)


    def train():
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            scheduler.step()


    train()
    """,
    ["return self.optimizer", "def on_train_epoch_end(self):\n        scheduler.step()"],
    ['"lr_scheduler"'],
)

# the optimizer handed to the function, its epoch scheduler built inside and read after its
# step: the scheduler is handed to the module and stepped there, not also by Lightning (it
# was stepped twice an epoch: diverged at the second epoch)
CONVERTS["given_optimizer_scheduler_read_after_its_step"] = (
    """
    def train(net, opt, data):
        scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
        for epoch in range(3):
            for x, y in data:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
            scheduler.step()
            print(epoch, scheduler.get_last_lr())

    train(model, optimizer, loader)
    """,
    ["self.scheduler.step()\n        print(epoch, self.scheduler.get_last_lr())", "return self.opt\n"],
    ['"interval"', "lr_schedulers()"],
)

# What the optimizer's build reads, changed between the build and the loop: configure_optimizers
# would build it from the changed state, so the script's optimizer is handed to the module.
# A parameter unfrozen after an optimizer over the trainable ones was built: not in its groups.
CONVERTS["optimizer_over_trainable_parameters_unfrozen_before_the_loop"] = (
    """
    model.weight.requires_grad = False
    opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
    model.weight.requires_grad = True
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
    """,
    [
        "opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)",
        "def configure_optimizers(self):\n        return self.opt\n",
    ],
    ["filter(lambda p: p.requires_grad, self.model.parameters())"],
)
# the learning rate rebound after the build: the module would read the new one
CONVERTS["optimizer_rate_rebound_before_the_loop"] = (
    """
    lr = 0.1
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    lr = 0.5
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
    """,
    ["opt = torch.optim.SGD(model.parameters(), lr=lr)", "return self.opt\n"],
    ["lr=self.hparams.lr", "lr=self.lr"],
)
# the parameter list grown after the build: the optimizer holds the list as it was
CONVERTS["optimizer_parameter_list_grown_before_the_loop"] = (
    """
    params = list(model.parameters())
    opt = torch.optim.SGD(params, lr=0.1)
    params.append(torch.zeros(2, requires_grad=True))
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
    """,
    ["opt = torch.optim.SGD(params, lr=0.1)", "return self.opt\n"],
    ["torch.optim.SGD(self.params"],
)
# the same through an optimizer function of the script, the parameters unfrozen by a function
CONVERTS["optimizer_function_over_trainable_parameters_unfrozen_by_a_function"] = (
    """
    def trainable_optimizer(net):
        return torch.optim.SGD(filter(lambda p: p.requires_grad, net.parameters()), lr=0.1)


    def unfreeze(net):
        for p in net.parameters():
            p.requires_grad = True


    model.weight.requires_grad = False
    opt = trainable_optimizer(model)
    unfreeze(model)
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
    """,
    ["opt = trainable_optimizer(model)", "return self.opt\n"],
    ["trainable_optimizer(self.model)"],
)
# every parameter set to require grad after a build that does not read `requires_grad` (the
# DANN script): the build gives the same optimizer when fit starts, so it moves as usual
CONVERTS["requires_grad_set_after_a_build_that_does_not_read_it"] = (
    """
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for p in model.parameters():
        p.requires_grad = True
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
    """,
    ["opt = torch.optim.SGD(self.model.parameters(), lr=0.1)"],
    ["return self.opt\n"],
)
# a list a parameter group holds, emptied after the build: the groups the module would be
# handed hold the emptied list, where the script's optimizer copied it when built
CONVERTS["optimizer_group_list_emptied_before_the_loop"] = (
    """
    decay, no_decay = [], []
    for n, p in model.named_parameters():
        (no_decay if p.ndim < 2 else decay).append(p)
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=0.1)
    no_decay.clear()
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
    """,
    ["opt = torch.optim.AdamW(groups, lr=0.1)", "return self.opt\n"],
    ["torch.optim.AdamW(self.groups"],
)
# parameters chosen at random by the build itself: configure_optimizers would draw when fit
# starts, after the data drawn between (another choice, and other data)
CONVERTS["optimizer_parameters_drawn_at_random_by_its_build"] = (
    """
    opt = torch.optim.SGD([p for p in model.parameters() if torch.rand(()) < 0.7], lr=0.1)
    noise = torch.randn(4)
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = criterion(model(x + noise), y)
            loss.backward()
            opt.step()
    """,
    ["torch.rand(()) < 0.7], lr=0.1)", "return self.opt\n"],
    ["self.model.parameters()"],
)
