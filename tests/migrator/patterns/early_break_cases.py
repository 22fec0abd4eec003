"""Cases of patterns/early_break.py: `break` after optimizer.step() ends the epoch."""

CONVERTS = {
    "break_after_step": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if i == 0:
                    break
        """,
        [
            "def on_train_epoch_start(self):\n        self.stop_epoch = False",
            "def on_train_batch_start(self, batch, batch_idx):\n"
            "        if self.stop_epoch:\n            return -1",
            "if batch_idx == 0:\n            self.stop_epoch = True",
        ],
        ["break"],
    ),
}

UNCHANGED = {
    "break_before_step": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                if loss.item() < 0.1:
                    break
                loss.backward()
                optimizer.step()
        """,
        "TL107",
    ),
}
