"""Cases of patterns/accumulation.py: `if (i + 1) % N == 0:` groups of step + zero_grad."""

CONVERTS = {
    "divided_loss": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [
            "step_loss = self.criterion(self(x), y)\n        loss = step_loss / 2",
            "return step_loss",
            'accelerator="cpu", devices=1, max_epochs=2, accumulate_grad_batches=2',
        ],
        ["% 2 == 0"],
    ),
}

UNCHANGED = {
    "loss_not_divided": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        "TL114",
    ),
    "conditional_backward": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                if loss.item() > 0:
                    loss.backward()
                    optimizer.step()
        """,
        "TL114",
    ),
}
