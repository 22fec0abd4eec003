"""Cases of patterns/bindings.py: the model and optimizer the loop trains, and their binding."""

CONVERTS = {
    "model_class_forward_signature": (
        """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x)


        net = Net()
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        for epoch in range(2):
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(net(x), y)
                loss.backward()
                opt.step()
        """,
        [
            "class LitNet(L.LightningModule):",
            "def forward(self, x):\n        return self.model(x)",
            "opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)\n        return opt",
        ],
        [],
    ),
}

UNCHANGED = {
    "optimizer_bound_again_before_the_loop": (
        """
        optimizer = torch.optim.Adam(model.parameters())
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL106",
    ),
    "two_optimizers": (
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
        "TL105",
    ),
    "step_on_something_else": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                criterion.step()
        """,
        "TL106",
    ),
}
