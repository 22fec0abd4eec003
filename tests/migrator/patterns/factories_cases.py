"""Cases of patterns/factories.py: model, optimizer and loaders read through a factory of the
script (`model, opt = get_model()`, `train_dl, valid_dl = get_data(...)`)."""

_FIT = """
def fit(epochs, net, opt, train_dl):
    for epoch in range(epochs):
        for x, y in train_dl:
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()

"""

CONVERTS = {
    # the nn tutorial's final form: the optimizer is built in the factory on its own local
    # model, returned beside it; the caller's `net` is that model
    "model_and_optimizer_from_a_factory": (
        _FIT
        + """
def get_model():
    model = torch.nn.Linear(4, 2)
    return model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def get_data(bs):
    ds = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
    return DataLoader(ds, batch_size=bs, shuffle=True), DataLoader(ds, batch_size=bs * 2)


train_dl, valid_dl = get_data(4)
net, opt = get_model()
fit(2, net, opt, train_dl)
""",
        [
            "lit_model = LitModel(net, opt)",
            "def configure_optimizers(self):\n        return self.opt\n",
            "net, opt = get_model()",
            "def get_model():",
            "trainer.fit(lit_model, train_dl)",
        ],
        ["opt.step()"],
    ),
    # the optimizer returned by name, built on the factory's model
    "optimizer_returned_by_name": (
        _FIT
        + """
def get_model(lr):
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    return model, optimizer


net, opt = get_model(0.01)
fit(2, net, opt, loader)
""",
        ["lit_model = LitModel(net, opt)", "net, opt = get_model(0.01)"],
        ["opt.step()"],
    ),
    # the model from a factory returning a tuple, the optimizer built by the caller
    # (heldout4: `model, loaders = load_train_objs(cfg)`)
    "model_from_a_factory_optimizer_in_the_caller": (
        """
def load_train_objs():
    net = torch.nn.Linear(4, 2)
    data = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
    return net, data


def main():
    net, data = load_train_objs()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in data:
            opt.zero_grad()
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()


main()
""",
        ["net, data = load_train_objs()", "trainer.fit(lit_model, data)"],
        ["opt.step()"],
    ),
}

UNCHANGED = {
    # two calls: which call's optimizer trains which model is not one binding
    "factory_called_twice": (
        _FIT
        + """
def get_model():
    model = torch.nn.Linear(4, 2)
    return model, torch.optim.SGD(model.parameters(), lr=0.1)


net, opt = get_model()
other, other_opt = get_model()
fit(2, net, opt, loader)
""",
        "TL186",
    ),
    # returns of different shapes: which element the optimizer is depends on the path taken
    "factory_returning_different_shapes": (
        _FIT
        + """
def get_model(adam):
    model = torch.nn.Linear(4, 2)
    if adam:
        return model, torch.optim.Adam(model.parameters())
    return model, torch.optim.SGD(model.parameters(), lr=0.1), None


net, opt = get_model(True)
fit(2, net, opt, loader)
""",
        "TL186",
    ),
    # the optimizer trains a model the factory does not return
    "factory_optimizer_of_a_model_not_returned": (
        _FIT
        + """
def get_model():
    model = torch.nn.Linear(4, 2)
    hidden = torch.nn.Linear(4, 2)
    return model, torch.optim.SGD(hidden.parameters(), lr=0.1)


net, opt = get_model()
fit(2, net, opt, loader)
""",
        "TL186",
    ),
    # the model rebound after the optimizer was built on it: the returned object may not be
    # the one the optimizer trains
    "factory_model_rebound_after_the_optimizer": (
        _FIT
        + """
def get_model():
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model = torch.nn.DataParallel(model)
    return model, opt


net, opt = get_model()
fit(2, net, opt, loader)
""",
        "TL186",
    ),
    # the factory wraps the model in DataParallel: the Trainer's strategy would, not the script
    "factory_wraps_the_model_in_data_parallel": (
        """
def load_train_objs():
    net = torch.nn.DataParallel(torch.nn.Linear(4, 2))
    return net, loader


def main():
    net, data = load_train_objs()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in data:
            opt.zero_grad()
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()


main()
""",
        "TL186",
    ),
    # the optimizer's model is a global of the factory, not its local: which object the
    # caller's name holds cannot be told from the return
    "factory_optimizer_of_a_global_model": (
        _FIT
        + """
def get_opt():
    return model, torch.optim.SGD(model.parameters(), lr=0.1)


net, opt = get_opt()
fit(2, net, opt, loader)
""",
        "TL186",
    ),
    # a loader wrapped in a class without `len()`: Lightning would read it as endless
    "loader_wrapped_in_a_class": (
        _FIT
        + """
class Wrapped:
    def __init__(self, dl):
        self.dl = dl

    def __iter__(self):
        for b in self.dl:
            yield b


def get_model():
    model = torch.nn.Linear(4, 2)
    return model, torch.optim.SGD(model.parameters(), lr=0.1)


train_dl = Wrapped(loader)
net, opt = get_model()
fit(2, net, opt, train_dl)
""",
        "TL187",
    ),
}
