"""Cases of patterns/after_step.py: code after optimizer.step() reading the model."""

CONVERTS = {
    "model_read_after_step": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                print(model.weight.sum(), loss.item())
        """,
        [
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            '        self.print(self.model.weight.sum(), outputs["loss"].item())'
        ],
        [],
    ),
    # the rate a per-batch scheduler's step() just set: Lightning steps it after the step
    "learning_rate_read_after_the_scheduler_step": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, 0.5)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                scheduler.step()
                print(scheduler.get_last_lr()[0], optimizer.param_groups[0]["lr"])
        """,
        [
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            "        self.print(\n"
            "            self.lr_schedulers().get_last_lr()[0],",
            '"interval": "step"',
        ],
        [],
    ),
    # `outputs` is a name of the validation pass: the hook's `outputs` parameter would be
    # carried as module state there, so the hook reads the loss the step kept
    "loss_read_after_step_beside_a_pass_binding_outputs": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=4)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                print(model.weight.sum(), loss.item())
            with torch.no_grad():
                for x, y in val_loader:
                    outputs = model(x)
                    print(criterion(outputs, y).item())
        """,
        ["self.print(self.model.weight.sum(), self.loss.item())"],
        ['outputs["loss"]'],
    ),
    "checkpoint_every_n_steps_on_rank_zero": (
        """
        step = 0
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if i % 2 == 0:
                    torch.save(model.state_dict(), f"step_{step}.pt")
        """,
        [
            "self.step += 1\n        if batch_idx % 2 == 0:\n"
            "            if self.trainer.is_global_zero:\n"
            '                torch.save(self.model.state_dict(), f"step_{self.step}.pt")'
        ],
        [],
    ),
    "code_after_the_step_without_the_model_stays_in_the_step": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                print(loss.item())
        """,
        ["print(loss.item())\n        self.log"],
        ["on_train_batch_end"],
    ),
    "helper_reading_the_model_every_n_steps_keeps_train_each_step": (  # once: before the step
        """
        val_x = torch.randn(4, 4)


        def quick_eval():
            model.eval()
            with torch.no_grad():
                return model(val_x).sum().item()


        step = 0
        for epoch in range(2):
            for x, y in loader:
                model.train()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                step += 1
                if step % 2 == 0:
                    print(step, quick_eval())
        """,
        [
            "self.model.train()\n",
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            "        self.step += 1\n"
            "        if self.step % 2 == 0:\n"
            "            self.print(self.step, quick_eval())",
        ],
        [],
    ),
    "helper_reaching_the_model_through_another_helper": (  # sample() -> denoise() -> model
        """
        def denoise(x):
            return model(x)


        @torch.no_grad()
        def sample():
            return denoise(torch.randn(2, 4))


        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if i == 0:
                    print(sample().mean().item())
        """,
        [
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            "        if batch_idx == 0:\n"
            "            self.print(sample().mean().item())"
        ],
        [],
    ),
    # a step loop is one epoch for the Trainer: should_stop ends it right after the hook
    "step_loop_break_on_the_updated_model": (
        """
        x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
        for t in range(100):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            accuracy = (model(x).argmax(1) == y).float().mean()
            if accuracy > 0.9:
                break
            print(t, accuracy)
        """,
        [
            "if accuracy > 0.9:\n            self.trainer.should_stop = True\n"
            "            return\n        self.print(t, accuracy)",
        ],
        ["break"],
    ),
    # a name holding the model's parameters (makemore's update:data ratio) reads what the
    # step changed as `model` would: it runs after the step, where the script ran it
    "parameter_list_read_after_step": (
        """
        params = list(model.parameters())
        ud = []
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                ud.append([((0.1 * p.grad).std() / p.data.std()).item() for p in params])
        """,
        ["def on_train_batch_end(self, outputs, batch, batch_idx):\n        self.ud.append("],
        [],
    ),
    "named_parameter_dict_read_after_step": (
        """
        named = dict(model.named_parameters())
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                print(named["weight"].grad.norm().item())
        """,
        [
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            '        self.print(self.named["weight"].grad.norm().item())'
        ],
        [],
    ),
    # built from a list of the model's parameters, in the step before optimizer.step()
    "view_of_a_view_bound_in_the_step": (
        """
        params = [p for p in model.parameters()]
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                weights = [p for p in params if p.ndim == 2]
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                print(weights[0].grad.abs().max().item())
        """,
        ["def on_train_batch_end(self, outputs, batch, batch_idx):\n        self.print("],
        [],
    ),
    # a group's "params" are the model's tensors even with a scheduler stepped after them
    "group_parameters_read_before_the_scheduler_step": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, 0.5)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                print(optimizer.param_groups[0]["params"][0].grad.norm().item())
                scheduler.step()
        """,
        ["def on_train_batch_end(self, outputs, batch, batch_idx):\n        self.print("],
        [],
    ),
}

UNCHANGED = {
    "parameter_list_read_after_an_accumulated_step": (
        """
        params = list(model.parameters())
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                print(params[0].grad.norm().item())
        """,
        "TL146",
    ),
    "model_read_after_an_accumulated_step": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                print(model.weight.sum())
        """,
        "TL146",
    ),
    "batch_loop_break_on_the_updated_model": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if model(x).argmax(1).eq(y).float().mean() > 0.9:
                    break
        """,
        "TL122",
    ),
    "step_loop_scheduler_stepped_after_the_break": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, 0.5)
        x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
        for t in range(100):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            if model(x).argmax(1).eq(y).float().mean() > 0.9:
                break
            scheduler.step()
        """,
        "TL122",
    ),
}

# the rate read between the optimizer's step and the scheduler's is this step's rate: it stays
# in training_step (Lightning steps the scheduler before on_train_batch_end)
_RATES = """
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=4)
lrs = []
for epoch in range(2):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        {first}
        {second}
"""
CONVERTS["rate_read_before_the_scheduler_step_stays_in_the_step"] = (
    _RATES.format(first='lrs.append(optimizer.param_groups[0]["lr"])', second="scheduler.step()"),
    ['self.lrs.append(self.optimizers().param_groups[0]["lr"])\n        self.log("train_loss"'],
    ["on_train_batch_end"],
)
CONVERTS["rate_read_after_the_scheduler_step_moves_to_the_hook"] = (
    _RATES.format(first="scheduler.step()", second="lrs.append(scheduler.get_last_lr()[0])"),
    [
        "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
        "        self.lrs.append(self.lr_schedulers().get_last_lr()[0])"
    ],
    [],
)
