"""Cases of patterns/passed_in.py: a training function given its model, optimizer, loader."""

CONVERTS = {
    "train_function_given_model_optimizer_loader": (
        """
        def fit(net, opt, data, epochs, device):
            for epoch in range(epochs):
                for x, y in data:
                    x, y = x.to(device), y.to(device)
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        def main():
            device = torch.device("cpu")
            net = torch.nn.Linear(4, 2)
            opt = torch.optim.Adam(net.parameters(), lr=0.01)
            data = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
            fit(net, opt, data, epochs=2, device=device)


        main()
        """,
        [
            "def __init__(self, net, opt):",
            "def configure_optimizers(self):\n        return self.opt\n",
            "lit_model = LitModel(net, opt)",
            "trainer.fit(lit_model, data)",
            "def fit(net, opt, data, epochs, device):",
        ],
        [".to(device)", "torch.optim.Adam(self"],
    ),
    "train_function_called_for_two_models": (
        """
        def fit(net, opt, data):
            for epoch in range(2):
                for x, y in data:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        small = torch.nn.Linear(4, 2)
        small_opt = torch.optim.SGD(small.parameters(), lr=0.1)
        fit(small, small_opt, loader)
        wide = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Linear(16, 2))
        wide_opt = torch.optim.Adam(wide.parameters())
        fit(wide, wide_opt, loader)
        """,
        ["lit_model = LitModel(net, opt)", "fit(small, small_opt, loader)", "fit(wide, wide_opt"],
        ["opt.step()"],
    ),
}

UNCHANGED = {
    "train_function_never_called_here": (
        """
        def fit(net, opt, data):
            for epoch in range(2):
                for x, y in data:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
        """,
        "TL132",
    ),
    "optimizer_built_in_the_call": (
        """
        def fit(net, opt, data):
            for epoch in range(2):
                for x, y in data:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        fit(model, torch.optim.SGD(model.parameters(), lr=0.1), loader)
        """,
        "TL132",
    ),
    "optimizer_of_another_model": (
        """
        def fit(net, opt, data):
            for epoch in range(2):
                for x, y in data:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        other = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(other.parameters(), lr=0.1)
        fit(model, opt, loader)
        """,
        "TL132",
    ),
    "function_passed_as_a_callback": (
        """
        def fit(net, opt, data):
            for epoch in range(2):
                for x, y in data:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        runner = fit
        fit(model, optimizer, loader)
        """,
        "TL132",
    ),
}
