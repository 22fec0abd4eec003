"""Cases of patterns/device_moves.py: `.to(device)` and `.cuda()` are the Trainer's."""

CONVERTS = {
    "batch_and_model_moves": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model.to(device)
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["x, y = batch\n        loss = self.criterion(self(x), y)"],
        [".to(device)", "device = torch.device"],
    ),
    "device_factory_becomes_self_device": (
        """
        device = "cpu"
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                noise = torch.randn(x.shape, device=device)
                loss = criterion(model(x + noise), y)
                loss.backward()
                optimizer.step()
        """,
        ["noise = torch.randn(x.shape, device=self.device)"],
        [],
    ),
}

UNCHANGED = {}
