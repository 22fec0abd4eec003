"""Cases of patterns/loader_wrappers.py: a loader wrapped in a class of the script that maps
each batch (the nn tutorial's WrappedDataLoader)."""

_FIT = """
def fit(net, opt, train_dl):
    for epoch in range(2):
        for x, y in train_dl:
            opt.zero_grad()
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()


def preprocess(x, y):
    return x.view(-1, 4), y

"""


def _wrapper(iter_body="for b in self.dl:\n            yield self.func(*b)", extra=""):
    return f"""
class Wrapped:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        {iter_body}
{extra}
"""


_DEVICE_LOADER = """
def get_default_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


def to_device(data, device):
    if isinstance(data, (list, tuple)):
        return [to_device(x, device) for x in data]
    return data.to(device, non_blocking=True)


class DeviceDataLoader:
    def __init__(self, dl, device):
        self.dl = dl
        self.device = device

    def __iter__(self):
        for b in self.dl:
            yield to_device(b, self.device)

    def __len__(self):
        return len(self.dl)

"""


def _device_call(placement="to_device(model, device)\n", loader_device="device"):
    return f"""
device = get_default_device()
train_dl = DeviceDataLoader(
    DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))), {loader_device}
)
{placement}fit(model, optimizer, train_dl)
"""


CONVERTS = {
    # course notebooks: batches moved to the device the model is placed on -- the Trainer's
    # own device, so the wrapper stays and the Trainer moves them nowhere
    "device_loader_where_the_model_is": (
        _FIT + _DEVICE_LOADER + _device_call(),
        [
            "trainer.fit(lit_model, train_dl)",
            "L.Trainer(accelerator=device.type, devices=1, max_epochs=2)",
            "train_dl = DeviceDataLoader(",
        ],
        ["opt.step()"],
    ),
    # rebound on itself, as the tutorial does: the Trainer iterates the wrapper
    "loader_rebound_in_its_wrapper": (
        _FIT
        + _wrapper()
        + """
train_dl = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
train_dl = Wrapped(train_dl, preprocess)
fit(model, optimizer, train_dl)
""",
        ["trainer.fit(lit_model, train_dl)", "train_dl = Wrapped(train_dl, preprocess)"],
        ["opt.step()"],
    ),
    # a new name for the wrapper, the loader bound once beside it
    "wrapper_bound_to_a_new_name": (
        _FIT
        + _wrapper()
        + """
def main():
    net = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    data = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
    wrapped = Wrapped(data, preprocess)
    fit(net, opt, wrapped)


main()
""",
        ["trainer.fit(lit_model, train_dl)", "wrapped = Wrapped(data, preprocess)"],
        ["opt.step()"],
    ),
}

# "What is torch.nn really?": `preprocess` moves each batch to `dev`, where the model is placed
_DEV_CALL = """
dev = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
train_dl = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
train_dl = Wrapped(train_dl, preprocess)
model.to(dev)
fit(model, optimizer, train_dl)
"""
CONVERTS["mapping_moves_to_the_models_device"] = (
    _FIT.replace("x.view(-1, 4), y", "x.view(-1, 4).to(dev), y.to(dev)") + _wrapper() + _DEV_CALL,
    ["trainer.fit(lit_model, train_dl)", "train_dl = Wrapped(train_dl, preprocess)"],
    ["opt.step()"],
)

# the tutorial's final form: the model is placed on `dev` inside `get_model()`, whose
# returned local the caller unpacks (`model, opt = get_model()`)
_FACTORY_PLACES = """
dev = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


def get_model():
    net = nn.Linear(4, 2)
    net.to(dev)
    return net, torch.optim.SGD(net.parameters(), lr=0.1)


train_dl = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
train_dl = Wrapped(train_dl, preprocess)
net, opt = get_model()
fit(net, opt, train_dl)
"""
_MOVING_FIT = _FIT.replace("x.view(-1, 4), y", "x.view(-1, 4).to(dev), y.to(dev)")
CONVERTS["mapping_moves_to_where_the_factory_places_the_model"] = (
    _MOVING_FIT + _wrapper() + _FACTORY_PLACES,
    ["trainer.fit(lit_model, train_dl)", "accelerator=torch.device(dev).type", "    net.to(dev)"],
    ["opt.step()"],
)

_CALL = """
train_dl = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
train_dl = Wrapped(train_dl, preprocess)
fit(model, optimizer, train_dl)
"""

UNCHANGED = {
    # skips batches: not the loader's iteration
    "wrapper_iter_skips_batches": (
        _FIT
        + _wrapper(
            "for i, b in enumerate(self.dl):\n            if i % 2:\n                yield b"
        )
        + _CALL,
        "TL187",
    ),
    # the mapping draws random numbers: Lightning maps one batch ahead of the step
    "wrapper_mapping_draws_random_numbers": (
        _FIT.replace("x.view(-1, 4)", "x + torch.randn_like(x)") + _wrapper() + _CALL,
        "TL187",
    ),
    # the mapping moves batches to a device the Trainer cannot follow
    "wrapper_mapping_moves_to_a_device": (
        _FIT.replace("x.view(-1, 4)", "x.to(dev)") + _wrapper() + _CALL,
        "TL187",
    ),
    # batches moved to a device, the model placed nowhere: the Trainer's device is not that one
    "device_loader_model_not_placed": (
        _FIT + _DEVICE_LOADER + _device_call(placement=""),
        "TL187",
    ),
    # batches moved to another device than the model's
    "device_loader_elsewhere_than_the_model": (
        _FIT + _DEVICE_LOADER + _device_call(loader_device='torch.device("cpu")'),
        "TL187",
    ),
    # the move also converts: more than `.to(device)`
    "device_loader_mover_does_more": (
        _FIT
        + _DEVICE_LOADER.replace(
            "data.to(device, non_blocking=True)", "data.to(device, non_blocking=True).half()"
        )
        + _device_call(),
        "TL187",
    ),
    # a length that is not the loader's: the Trainer would count other batches
    "wrapper_length_not_the_loaders": (
        _FIT + _wrapper().replace("return len(self.dl)", "return len(self.dl) - 1") + _CALL,
        "TL187",
    ),
    # another method the loop could rely on
    "wrapper_with_another_method": (
        _FIT + _wrapper(extra="    def reset(self):\n        self.dl = None\n") + _CALL,
        "TL187",
    ),
    # rebound inside a block: which binding the call sees is not one statement
    "wrapper_applied_conditionally": (
        _FIT
        + _wrapper()
        + """
train_dl = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
if torch.cuda.is_available():
    train_dl = Wrapped(train_dl, preprocess)
fit(model, optimizer, train_dl)
""",
        "TL132",
    ),
    # the factory places the model only under a condition: not read as placed
    "factory_places_the_model_conditionally": (
        _MOVING_FIT
        + _wrapper()
        + _FACTORY_PLACES.replace(
            "    net.to(dev)\n", "    if torch.cuda.is_available():\n        net.to(dev)\n"
        ),
        "TL132",
    ),
    # the factory places the model on its own device, not the one batches are moved to
    "factory_places_the_model_elsewhere": (
        _MOVING_FIT + _wrapper() + _FACTORY_PLACES.replace("net.to(dev)", 'net.to("cpu")'),
        "TL187",
    ),
}
