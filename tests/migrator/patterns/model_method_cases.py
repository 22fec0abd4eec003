"""Cases of shapes/model_method.py: a torch module's own training method moved out as a
function of the instance (TL198), or refused with the reason."""

_NET = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.history = []

    def forward(self, x):
        return self.fc(x)

    def fit(self, data, epochs, lr=0.1):
        opt = torch.optim.SGD(self.parameters(), lr=lr)
        self.train()
        for epoch in range(epochs):
            for x, y in data:
                opt.zero_grad()
                loss = criterion(self(x), y)
                loss.backward()
                opt.step()
            self.history.append(loss.item())
        return self.history

    def predict(self, x):
        self.eval()
        with torch.no_grad():
            return self(x).argmax(1)
"""

CONVERTS = {
    "module_level_instance": (
        _NET
        + """

net = Net()
net.fit(loader, 2)
print(net.predict(torch.randn(3, 4)))
""",
        [
            "def fit(net, data, epochs, lr=0.1):",
            "self.model.history.append(self.loss.item())",
            "fit(net, loader, 2)",
            "    def predict(self, x):",
        ],
        ["net.fit(", "    def fit(self", "opt.step()"],
    ),
    "instance_moved_and_result_kept_in_main": (
        _NET
        + """

def main():
    device = torch.device("cpu")
    train_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
    net = Net().to(device)
    history = net.fit(train_loader, epochs=2)
    print(history)


if __name__ == "__main__":
    main()
""",
        ["history = fit(net, train_loader, epochs=2)", "def fit(net, data, epochs, lr=0.1):"],
        ["net.fit("],
    ),
}

UNCHANGED = {
    "run_twice": (
        _NET
        + """

net = Net()
net.fit(loader, 1)
net.fit(loader, 1)
""",
        "TL198",
    ),
    "method_calls_super": (
        _NET.replace("self.train()", "super().train()")
        + """

net = Net()
net.fit(loader, 2)
""",
        "TL198",
    ),
    "another_method_runs_it": (
        _NET
        + """
    def fit_twice(self, data):
        self.fit(data, 1)
        self.fit(data, 1)


net = Net()
net.fit_twice(loader)
""",
        "TL198",
    ),
    "instance_name_read_by_the_method": (
        _NET.replace("self.history.append(loss.item())", "self.history.append(net.fc.bias.sum())")
        + """

net = Net()
net.fit(loader, 2)
""",
        "TL198",
    ),
    "function_name_taken": (
        _NET
        + """

def fit(*args):
    return args


net = Net()
net.fit(loader, 2)
""",
        "TL198",
    ),
    "instance_from_a_factory": (
        _NET
        + """

def build():
    return Net()


net = build()
net.fit(loader, 2)
""",
        "TL198",
    ),
    "private_attribute": (
        _NET.replace("self.history.append(loss.item())", "self.__last = loss.item()")
        + """

net = Net()
net.fit(loader, 2)
""",
        "TL198",
    ),
}
