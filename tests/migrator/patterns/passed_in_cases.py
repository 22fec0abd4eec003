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
    # d2l's load_array: the loader comes from a helper of the file returning a DataLoader
    "train_function_given_a_loader_built_by_a_helper": (
        """
        def load_array(arrays, batch_size):
            return DataLoader(TensorDataset(*arrays), batch_size, shuffle=True)


        def train(net, train_iter, updater):
            for epoch in range(2):
                for x, y in train_iter:
                    updater.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    updater.step()


        train_iter = load_array((torch.randn(8, 4), torch.randint(0, 2, (8,))), 4)
        train(model, train_iter, optimizer)
        """,
        ["trainer.fit(lit_model, train_iter)"],
        [],
    ),
    # models given by the caller, optimizers built inside (the seq2seq tutorial's train()):
    # the accelerator is where the caller put the models, the module's `device`
    "models_given_optimizers_built_inside": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


        def get_loader(n):
            return DataLoader(TensorDataset(torch.randn(n, 4), torch.randint(0, 2, (n,))), 4)


        def train(loader, net, epochs, lr=0.01):
            opt = torch.optim.Adam(net.parameters(), lr=lr)
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        net = torch.nn.Linear(4, 2).to(device)
        train_loader = get_loader(8)
        train(train_loader, net, 2)
        """,
        [
            "L.Trainer(accelerator=device.type, devices=1, max_epochs=epochs)",
            "torch.optim.Adam(self.model.parameters(), lr=self.lr)",
        ],
        [],
    ),
}

UNCHANGED = {
    # placed on a device local to the caller, read at run time: the function cannot name it
    "model_given_placed_on_a_device_the_function_cannot_name": (
        """
        def train(loader, net, epochs):
            opt = torch.optim.Adam(net.parameters(), lr=0.01)
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        def main(args):
            device = torch.device(args.device)
            net = torch.nn.Linear(4, 2).to(device)
            loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
            train(loader, net, 2)
        """,
        "TL132",
    ),
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
