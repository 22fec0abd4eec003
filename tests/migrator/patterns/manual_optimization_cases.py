"""Cases of patterns/manual_optimization.py: several optimizers -> manual optimization."""

_GENERATOR = """
        gen = nn.Linear(4, 4)
        opt_gen = torch.optim.SGD(gen.parameters(), lr=0.1)
"""

CONVERTS = {
    "two_optimizers_kept_in_order": (
        _GENERATOR + """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(gen(x).detach()), y)
                loss.backward()
                optimizer.step()
                opt_gen.zero_grad()
                loss_gen = -criterion(model(gen(x)), y)
                loss_gen.backward()
                opt_gen.step()
        """,
        [
            "self.automatic_optimization = False\n        self.model = model\n"
            "        self.gen = gen",
            "optimizer, opt_gen = self.optimizers()",
            "loss = self.criterion(self.model(self.gen(x).detach()), y)\n"
            "        self.manual_backward(loss)\n        optimizer.step()",
            "self.manual_backward(loss_gen)\n        opt_gen.step()",
            "return optimizer, opt_gen",
            "LitModel(model, gen, criterion)",
        ],
        ["return loss", "def forward", ".backward()"],
    ),
    "backward_arguments_kept": (
        _GENERATOR + """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                fake = gen(x)
                loss = criterion(model(fake), y)
                loss.backward(retain_graph=True)
                optimizer.step()
                opt_gen.zero_grad()
                loss_gen = -criterion(model(fake), y)
                loss_gen.backward()
                opt_gen.step()
        """,
        ["self.manual_backward(loss, retain_graph=True)"],
        [],
    ),
    "generator_every_n_batches": (
        _GENERATOR + """
        n_critic = 2
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(gen(x).detach()), y)
                loss.backward()
                optimizer.step()
                if i % n_critic == 0:
                    opt_gen.zero_grad()
                    loss_gen = -criterion(model(gen(x)), y)
                    loss_gen.backward()
                    opt_gen.step()
        """,
        ["if batch_idx % self.hparams.n_critic == 0:\n            opt_gen.zero_grad()"],
        [],
    ),
    "clipping_one_optimizers_model": (
        _GENERATOR + """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(gen(x).detach()), y)
                loss.backward()
                torch.nn.utils.clip_grad_value_(model.parameters(), 0.1)
                optimizer.step()
                opt_gen.zero_grad()
                loss_gen = -criterion(model(gen(x)), y)
                loss_gen.backward()
                opt_gen.step()
        """,
        [
            "self.clip_gradients(\n            optimizer, gradient_clip_val=0.1, "
            'gradient_clip_algorithm="value"\n        )'
        ],
        ["gradient_clip_val=0.1)"],
    ),
    "scheduler_stepped_where_the_script_steps_it": (
        _GENERATOR + """
        scheduler = torch.optim.lr_scheduler.StepLR(opt_gen, 1)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(gen(x).detach()), y)
                loss.backward()
                optimizer.step()
                opt_gen.zero_grad()
                loss_gen = -criterion(model(gen(x)), y)
                loss_gen.backward()
                opt_gen.step()
            scheduler.step()
        """,
        [
            "def on_train_epoch_end(self):\n        self.lr_schedulers().step()",
            "return [optimizer, opt_gen], [scheduler]",
        ],
        ['"interval"'],
    ),
    "two_optimizers_on_one_model": (
        """
        other = torch.optim.SGD(model.parameters(), lr=0.01)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                other.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                other.step()
        """,
        [
            "optimizer, other = self.optimizers()",
            "self.manual_backward(loss)\n        optimizer.step()\n        other.step()",
            "def forward(self, *args, **kwargs):",
        ],
        [],
    ),
    "mode_switches_in_the_step_kept": (
        _GENERATOR + """
        for epoch in range(2):
            for x, y in loader:
                gen.eval()
                optimizer.zero_grad()
                loss = criterion(model(gen(x).detach()), y)
                loss.backward()
                optimizer.step()
                gen.train()
                opt_gen.zero_grad()
                loss_gen = -criterion(model(gen(x)), y)
                loss_gen.backward()
                opt_gen.step()
        """,
        ["self.gen.eval()\n        optimizer.zero_grad()", "self.gen.train()\n        opt_gen"],
        [],
    ),
}

UNCHANGED = {
    "step_with_closure": (
        _GENERATOR + """
        for epoch in range(2):
            for x, y in loader:
                def closure():
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    return loss

                optimizer.step(closure)
                opt_gen.zero_grad()
                loss_gen = gen(x).pow(2).mean()
                loss_gen.backward()
                opt_gen.step()
        """,
        "TL125",
    ),
    "clipping_both_models_together": (
        _GENERATOR + """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                opt_gen.zero_grad()
                loss = criterion(model(gen(x)), y)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(
                    list(model.parameters()) + list(gen.parameters()), 1.0
                )
                optimizer.step()
                opt_gen.step()
        """,
        "TL125",
    ),
    "two_schedulers_on_one_optimizer": (
        _GENERATOR + """
        warmup = torch.optim.lr_scheduler.LinearLR(opt_gen)
        decay = torch.optim.lr_scheduler.ExponentialLR(opt_gen, 0.9)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(gen(x).detach()), y)
                loss.backward()
                optimizer.step()
                opt_gen.zero_grad()
                loss_gen = -criterion(model(gen(x)), y)
                loss_gen.backward()
                opt_gen.step()
            warmup.step()
            decay.step()
        """,
        "TL126",
    ),
    # code after the `break` would run on the batch that ends the epoch
    "break_before_more_of_the_step": (
        _GENERATOR + """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(gen(x).detach()), y)
                loss.backward()
                optimizer.step()
                if i == 1:
                    break
                opt_gen.zero_grad()
                loss_gen = -criterion(model(gen(x)), y)
                loss_gen.backward()
                opt_gen.step()
        """,
        "TL107",
    ),
    "autocast_with_several_optimizers": (
        _GENERATOR + """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = criterion(model(gen(x).detach()), y)
                loss.backward()
                optimizer.step()
                opt_gen.zero_grad()
                loss_gen = -criterion(model(gen(x)), y)
                loss_gen.backward()
                opt_gen.step()
        """,
        "TL125",
    ),
    "clipping_norm_used": (
        _GENERATOR + """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(gen(x).detach()), y)
                loss.backward()
                norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                opt_gen.zero_grad()
                loss_gen = -criterion(model(gen(x)), y) * norm
                loss_gen.backward()
                opt_gen.step()
        """,
        "TL125",
    ),
}

# a loop over a collection of optimizers: TL125 naming the call and the loop (was TL114,
# "conditional step or gradient accumulation", which it is not)
UNCHANGED["optimizers_stepped_in_a_loop_over_a_dict"] = (
    """
        head = nn.Linear(2, 2)
        optimizers = {"body": optimizer, "head": torch.optim.Adam(head.parameters(), lr=1e-3)}
        for epoch in range(2):
            for x, y in loader:
                for opt in optimizers.values():
                    opt.zero_grad()
                loss = criterion(head(model(x)), y)
                loss.backward()
                for opt in optimizers.values():
                    opt.step()
        """,
    "TL125",
)

# a `break` ending the step: the epoch ends there, after both steps (early_break.py's flag)
CONVERTS["break_at_the_end_of_the_step"] = (
    _GENERATOR + """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(gen(x).detach()), y)
                loss.backward()
                optimizer.step()
                opt_gen.zero_grad()
                loss_gen = -criterion(model(gen(x)), y)
                loss_gen.backward()
                opt_gen.step()
                if i == 1:
                    break
        """,
    ["if batch_idx == 1:\n            self.stop_epoch = True", "if self.stop_epoch:\n            return -1"],
    ["break"],
)

# a dry-run flag's `break` on every epoch's first batch: `limit_train_batches=1` under the flag,
# as with an automatic step (the flag would end the epoch before its validation pass)
CONVERTS["dry_run_break_at_the_end_of_the_step_with_validation"] = (
    _GENERATOR + """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(gen(x).detach()), y)
                loss.backward()
                optimizer.step()
                opt_gen.zero_grad()
                loss_gen = -criterion(model(gen(x)), y)
                loss_gen.backward()
                opt_gen.step()
                if args.dry_run:
                    break
            model.eval()
            with torch.no_grad():
                for x, y in val_loader:
                    print(criterion(model(x), y).item())
            model.train()
        """,
    ["limit_train_batches=1 if args.dry_run else 1.0", "def validation_step"],
    ["break", "stop_epoch"],
)

# a GAN's train() given both optimizers by its caller (a trainer class's train() once the
# class is inlined): each is handed to the module, which returns them from configure_optimizers
_GIVEN = """
def train(net_g, net_d, opt_g, opt_d, loader, epochs):
    for epoch in range(epochs):
        for x, _ in loader:
            opt_d.zero_grad()
            loss_d = net_d(x).mean() - net_d(net_g(x).detach()).mean()
            loss_d.backward()
            opt_d.step()
            opt_g.zero_grad()
            loss_g = -net_d(net_g(x)).mean()
            loss_g.backward()
            opt_g.step()


net_g = nn.Linear(4, 4)
net_d = nn.Linear(4, 1)
{opt_g}
opt_d = torch.optim.Adam(net_d.parameters())
train(net_g, net_d, opt_g, opt_d, loader, 2)
"""

CONVERTS["two_optimizers_given_to_the_function"] = (
    _GIVEN.format(opt_g="opt_g = torch.optim.Adam(net_g.parameters())"),
    [
        "self.opt_g = opt_g\n        self.opt_d = opt_d",
        "opt_g, opt_d = self.optimizers()",
        "return self.opt_g, self.opt_d",
        "lit_model = LitModel(net_g, net_d, opt_g, opt_d)",
    ],
    [],
)

# one of them over two modules' parameters: which model it trains is not one parameter
UNCHANGED["given_optimizer_over_chained_parameters"] = (
    "import itertools\n"
    + _GIVEN.format(
        opt_g="opt_g = torch.optim.Adam(itertools.chain(net_g.parameters(), model.parameters()))"
    ),
    "TL132",
)

# one GradScaler stepping both optimizers of a GAN (fused ones, the generator unscaled then
# clipped): TL125 at the first `scaler.step`, naming the scaler (was TL105, "several
# optimizers need manual optimization, not converted", which they do not)
UNCHANGED["grad_scaler_stepping_two_fused_optimizers"] = (
    """
        gen = nn.Linear(4, 4)
        opt_gen = torch.optim.AdamW(gen.parameters(), lr=1e-3, fused=True)
        opt_dis = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
        scaler = torch.amp.GradScaler("cpu")
        for epoch in range(2):
            for x, y in loader:
                opt_dis.zero_grad()
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = criterion(model(gen(x).detach()), y)
                scaler.scale(loss).backward()
                scaler.step(opt_dis)
                opt_gen.zero_grad()
                with torch.autocast("cpu", dtype=torch.float16):
                    loss_gen = -criterion(model(gen(x)), y)
                scaler.scale(loss_gen).backward()
                scaler.unscale_(opt_gen)
                torch.nn.utils.clip_grad_norm_(gen.parameters(), 1.0)
                scaler.step(opt_gen)
                scaler.update()
        """,
    "TL125",
)
