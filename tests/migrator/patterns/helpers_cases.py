"""Cases of patterns/helpers.py: per-epoch helpers inlined, and removed once unused."""

CONVERTS = {
    "train_helper_returning_the_mean_loss": (
        """
        def train_epoch(model, loader, optimizer):
            total = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item()
            return total / len(loader)


        for epoch in range(2):
            mean = train_epoch(model, loader, optimizer)
            print(epoch, mean)
        """,
        [
            "def on_train_epoch_start(self):\n        self.total = 0.0",
            "mean = self.total / len(self.trainer.train_dataloader)",
        ],
        ["def train_epoch"],
    ),
}

UNCHANGED = {
    "helper_with_star_args": (
        """
        def train(model, loader, optimizer, *extra):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


        for epoch in range(2):
            train(model, loader, optimizer)
        """,
        "TL111",
    ),
    "helper_returning_early": (
        """
        def train(model, loader, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if len(loader) == 0:
                return None
            return loss


        for epoch in range(2):
            last = train(model, loader, optimizer)
        """,
        "TL111",
    ),
}
