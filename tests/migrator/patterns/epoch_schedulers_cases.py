"""Cases of patterns/epoch_schedulers.py: a scheduler the epoch builds (a first-epoch warmup),
stepped in the batch loop."""

CONVERTS = {
    "first_epoch_warmup_stepped_after_the_step": (
        """
        for epoch in range(2):
            warmup = None
            if epoch == 0:
                warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=1)
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if warmup is not None:
                    warmup.step()
        """,
        [
            "def on_train_epoch_start(self):\n"
            "        epoch = self.current_epoch\n"
            "        self.warmup = None\n"
            "        if epoch == 0:\n"
            "            self.warmup = torch.optim.lr_scheduler.LinearLR(\n"
            "                self.optimizers(use_pl_optimizer=False), start_factor=0.1, total_iters=1",
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            "        if self.warmup is not None:\n"
            "            self.warmup.step()",
        ],
        ["self.optimizers(),"],
    ),
    # built from a conditional expression, beside a scheduler of configure_optimizers
    "warmup_expression_and_an_epoch_scheduler": (
        """
        decay = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
        for epoch in range(2):
            warmup = torch.optim.lr_scheduler.LinearLR(optimizer, 0.5, total_iters=2) if epoch == 0 else None
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if warmup:
                    warmup.step()
            decay.step()
        """,
        [
            "if self.warmup:\n            self.warmup.step()",
            '"lr_scheduler": {"scheduler": decay, "interval": "epoch"}',
        ],
        [],
    ),
    # before the optimizer's step it stays in training_step, which Lightning runs before it
    "warmup_stepped_before_the_step": (
        """
        for epoch in range(2):
            warmup = None
            if epoch == 0:
                warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=1)
            for x, y in loader:
                optimizer.zero_grad()
                if warmup is not None:
                    warmup.step()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        [
            "def training_step(self, batch, batch_idx):\n"
            "        x, y = batch\n"
            "        if self.warmup is not None:\n"
            "            self.warmup.step()"
        ],
        ["on_train_batch_end"],
    ),
}

UNCHANGED = {
    # Lightning steps the per-batch LambdaLR right after the optimizer, before the hook
    "warmup_stepped_before_a_per_batch_scheduler": (
        """
        cosine = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1 / (s + 1))
        for epoch in range(2):
            warmup = None
            if epoch == 0:
                warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=1)
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if warmup is not None:
                    warmup.step()
                cosine.step()
        """,
        "TL105",
    ),
    # bound only in epoch 0: later epochs step the scheduler of epoch 0, read as unknown
    "scheduler_bound_only_conditionally": (
        """
        for epoch in range(2):
            if epoch == 0:
                warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=1)
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if epoch == 0:
                    warmup.step()
        """,
        "TL114",
    ),
}
