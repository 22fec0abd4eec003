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

# a scheduler built by a function of the script (the Hugging Face helpers): stepped per batch
_SCHEDULED = """
import math


{function}

scheduler = {call}
for epoch in range(2):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
"""

_LINEAR = """
def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, last_epoch=-1):
    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(
            0.0,
            float(num_training_steps - current_step)
            / float(max(1, num_training_steps - num_warmup_steps)),
        )

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda, last_epoch)
"""


def _scheduled(function: str, call: str) -> str:
    return _SCHEDULED.format(function=function.strip("\n"), call=call)


# a Kaggle `get_scheduler(cfg, optimizer)` choosing its scheduler by a name (scheduler_choice.py)
_BY_NAME = """
def get_scheduler(cfg, optimizer):
    if cfg.scheduler == "ReduceLROnPlateau":
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5)
    elif cfg.scheduler == "CosineAnnealingLR":
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.T_max)
    return scheduler
"""


def _by_name(settings: str, function: str = _BY_NAME, call: str = "") -> str:
    call = call or "get_scheduler(CFG, optimizer)"
    return _scheduled(settings.strip("\n") + "\n\n\n" + function.strip("\n"), call)


_CFG_COSINE = """
class CFG:
    scheduler = "CosineAnnealingLR"
    T_max = 4
"""


# an optimizer built by a function of the script
_OPTIMIZED = """
{function}

opt = {call}
for epoch in range(2):
    for x, y in loader:
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
"""


def _optimized(function: str, call: str) -> str:
    return _OPTIMIZED.format(function=function.strip("\n"), call=call)


_LOAD_TRAIN_OBJS = '''
def load_train_objs():
    train_set = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return train_set, model, optimizer


def main():
    dataset, model, optimizer = load_train_objs(){between}
    loader = DataLoader(dataset, batch_size=4, shuffle=True)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step(){epoch_end}


main()
'''


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
    # the linear warmup-then-decay helper: called in configure_optimizers on the module's
    # optimizer, the function kept at module level
    "scheduler_from_a_linear_warmup_function": (
        _scheduled(_LINEAR, "get_linear_schedule_with_warmup(optimizer, 2, 8)"),
        [
            "scheduler = get_linear_schedule_with_warmup(optimizer, 2, 8)",
            '"lr_scheduler": {"scheduler": scheduler, "interval": "step"}',
            "def get_linear_schedule_with_warmup(",
        ],
        ["scheduler.step()"],
    ),
    # the cosine helper (math.cos in the rate function), the optimizer given by keyword
    "scheduler_from_a_cosine_function_optimizer_by_keyword": (
        _scheduled(
            """
def get_cosine_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, num_cycles=0.5):
    def lr_lambda(step):
        if step < num_warmup_steps:
            return float(step) / float(max(1, num_warmup_steps))
        progress = float(step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * float(num_cycles) * 2.0 * progress)))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
""",
            "get_cosine_schedule_with_warmup(num_training_steps=8, num_warmup_steps=2, optimizer=optimizer)",
        ),
        ["get_cosine_schedule_with_warmup(", '"interval": "step"'],
        ["scheduler.step()"],
    ),
    # today's Hugging Face form: the rate function a module function bound by functools.partial
    "scheduler_function_with_a_partial_rate_function": (
        _scheduled(
            """
from functools import partial


def _linear_lambda(current_step, *, num_warmup_steps, num_training_steps):
    if current_step < num_warmup_steps:
        return float(current_step) / float(max(1, num_warmup_steps))
    return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, last_epoch=-1):
    lr_lambda = partial(
        _linear_lambda, num_warmup_steps=num_warmup_steps, num_training_steps=num_training_steps
    )
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda, last_epoch)
""",
            "get_linear_schedule_with_warmup(optimizer, 2, 8)",
        ),
        ["scheduler = get_linear_schedule_with_warmup(optimizer, 2, 8)", '"interval": "step"'],
        ["scheduler.step()"],
    ),
    # the scheduler returned by name; its rate function a function of the script reading a
    # constant bound once
    "scheduler_returned_by_name_rate_function_of_the_module": (
        _scheduled(
            """
WARMUP = 3


def warmup(step):
    return min(1.0, (step + 1) / WARMUP)


def build_scheduler(optimizer):
    sched = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=warmup)
    return sched
""",
            "build_scheduler(optimizer)",
        ),
        ["scheduler = build_scheduler(optimizer)", '"interval": "step"'],
        ["scheduler.step()"],
    ),
    # an optimizer built by a function of the script on the model it is given (the
    # time-series repos' `_select_optimizer`): called again in configure_optimizers
    "optimizer_from_a_function_of_the_script": (
        _optimized(
            """
def make_optimizer(net, lr):
    return torch.optim.Adam(net.parameters(), lr=lr)
""",
            "make_optimizer(model, 0.01)",
        ),
        ["opt = make_optimizer(self.model, 0.01)", "def make_optimizer(net, lr):"],
        ["opt.step()", "opt.zero_grad()"],
    ),
    # the trainable parameters kept by filter(lambda ...), bound to a local, returned by name
    "optimizer_function_over_the_trainable_parameters": (
        _optimized(
            """
def make_optimizer(net, lr):
    params = filter(lambda p: p.requires_grad, net.parameters())
    opt = torch.optim.SGD(params, lr=lr, momentum=0.9)
    return opt
""",
            "make_optimizer(net=model, lr=0.01)",
        ),
        ["opt = make_optimizer(net=self.model, lr=0.01)"],
        ["opt.step()"],
    ),
    # decay / no-decay groups filled from named_parameters() by tests on names and shapes,
    # and the optimizer picked by a config choice: one `return` per alternative, one
    # optimizer per call; the function runs again, on the module's model, in
    # configure_optimizers
    "optimizer_function_with_decay_groups_and_alternatives": (
        _optimized(
            """
def build_optimizer(opt_name, wd, net):
    decay, no_decay = [], []
    for n, p in net.named_parameters():
        if not p.requires_grad:
            continue
        if p.ndim < 2 or n.endswith(".bias") or any(k in n for k in ("norm",)):
            no_decay.append(p)
        else:
            decay.append(p)
    groups = [{"params": decay, "weight_decay": wd}, {"params": no_decay, "weight_decay": 0.0}]
    if opt_name == "sgd":
        return torch.optim.SGD(groups, lr=0.1, momentum=0.9)
    elif opt_name == "adamw":
        return torch.optim.AdamW(groups, lr=1e-3)
    raise ValueError(opt_name)
""",
            'build_optimizer("adamw", 0.01, model)',
        ),
        ['opt = build_optimizer("adamw", 0.01, self.model)', "def build_optimizer("],
        ["opt.step()"],
    ),
    # the groups given directly, over `parameters()` of the model it is given
    "optimizer_function_with_groups_over_parameters": (
        _optimized(
            """
def make_optimizer(net, lr):
    return torch.optim.SGD([{"params": net.parameters(), "weight_decay": 0.0}], lr=lr)
""",
            "make_optimizer(model, 0.01)",
        ),
        ["opt = make_optimizer(self.model, 0.01)"],
        ["opt.step()"],
    ),
    # a list grown with `+=` and `.extend()` from submodules' parameters (optimizer_groups.py)
    "optimizer_function_over_a_list_extended_from_submodules": (
        _optimized(
            """
def make_optimizer(net, lr):
    params = []
    params += list(net.encoder.parameters())
    params.extend(net.head.parameters())
    return torch.optim.Adam(params, lr)
""",
            "make_optimizer(model, 0.01)",
        ),
        ["opt = make_optimizer(self.model, 0.01)"],
        ["opt.step()"],
    ),
    # decay / no-decay groups by list comprehensions over named_parameters()
    "optimizer_function_with_groups_by_comprehensions": (
        _optimized(
            """
def make_optimizer(net, wd):
    groups = [
        {"params": [p for n, p in net.named_parameters() if "bias" not in n], "weight_decay": wd},
        {"params": [p for n, p in net.named_parameters() if n.endswith("bias")], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=1e-3)
""",
            "make_optimizer(model, 0.01)",
        ),
        ["opt = make_optimizer(self.model, 0.01)"],
        ["opt.step()"],
    ),
    # a learning rate per submodule, groups over `<model>.<sub>.parameters()`
    "optimizer_function_with_a_rate_per_submodule": (
        _optimized(
            """
def make_optimizer(net, lr):
    return torch.optim.SGD(
        [{"params": net.backbone.parameters(), "lr": lr * 0.1}, {"params": net.fc.parameters()}],
        lr=lr,
        momentum=0.9,
    )
""",
            "make_optimizer(model, 0.05)",
        ),
        ["opt = make_optimizer(self.model, 0.05)"],
        ["opt.step()"],
    ),
    # two models' parameters chained, or two lists added: the module holds both
    "optimizer_function_over_chained_models": (
        _optimized(
            """
import itertools


def make_optimizer(enc, dec):
    return torch.optim.Adam(itertools.chain(enc.parameters(), dec.parameters()), lr=1e-2)
""",
            "make_optimizer(model, other)",
        ).replace("opt = make_optimizer", "other = nn.Linear(2, 2)\nopt = make_optimizer").replace(
            "criterion(model(x), y)", "criterion(other(model(x)), y)"
        ),
        ["opt = make_optimizer(self.model, self.other)"],
        ["opt.step()"],
    ),
    "optimizer_function_over_two_lists_added": (
        _optimized(
            """
def make_optimizer(enc, dec):
    return torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
""",
            "make_optimizer(model, other)",
        ).replace("opt = make_optimizer", "other = nn.Linear(2, 2)\nopt = make_optimizer").replace(
            "criterion(model(x), y)", "criterion(other(model(x)), y)"
        ),
        ["opt = make_optimizer(self.model, self.other)"],
        ["opt.step()"],
    ),
    # a group added to the optimizer it builds, before returning it: replayed as written
    "optimizer_function_adding_a_param_group": (
        _optimized(
            """
def make_optimizer(net):
    opt = torch.optim.SGD(net.fc.parameters(), lr=0.1, momentum=0.9)
    opt.add_param_group({"params": net.backbone.parameters(), "lr": 0.01})
    return opt
""",
            "make_optimizer(model)",
        ),
        ["opt = make_optimizer(self.model)"],
        ["opt.step()"],
    ),
    # the DDP tutorial series' `load_train_objs()`: the loop in the caller's own scope, the
    # optimizer kept where the factory built it and handed to the module
    "optimizer_unpacked_in_the_loops_scope": (
        _LOAD_TRAIN_OBJS.format(between="", epoch_end=""),
        [
            "dataset, model, optimizer = load_train_objs()",
            "lit_model = LitModel(model, optimizer)",
            "def configure_optimizers(self):\n        return self.optimizer\n",
        ],
        ["optimizer.step()"],
    ),
    # a Kaggle `get_scheduler(CFG, optimizer)`: the branch `class CFG`'s literal takes
    "scheduler_function_choosing_by_a_settings_class": (
        _by_name(_CFG_COSINE),
        [
            "scheduler = get_scheduler(CFG, optimizer)",
            '"lr_scheduler": {"scheduler": scheduler, "interval": "step"}',
            "def get_scheduler(cfg, optimizer):",
        ],
        ["scheduler.step()"],
    ),
    # the function reads the settings class itself, not a parameter
    "scheduler_function_reading_the_settings_class": (
        _by_name(
            _CFG_COSINE,
            _BY_NAME.replace("cfg, optimizer", "optimizer").replace("cfg.", "CFG."),
            "get_scheduler(optimizer)",
        ),
        ["scheduler = get_scheduler(optimizer)", '"interval": "step"'],
        ["scheduler.step()"],
    ),
    # a config dict only ever read by key, and a module constant bound once
    "scheduler_function_choosing_by_a_config_dict": (
        _by_name(
            'config = {"scheduler": "CosineAnnealingLR", "T_max": 4}',
            _BY_NAME.replace("cfg.scheduler", 'cfg["scheduler"]').replace(
                "cfg.T_max", 'cfg["T_max"]'
            ),
            "get_scheduler(config, optimizer)",
        ),
        ["scheduler = get_scheduler(self.hparams.config, optimizer)", '"interval": "step"'],
        ["scheduler.step()"],
    ),
    "scheduler_function_choosing_by_a_module_constant": (
        _by_name(
            'SCHEDULER = "CosineAnnealingLR"\n\n\nclass CFG:\n    T_max = 4',
            _BY_NAME.replace("cfg.scheduler", "SCHEDULER"),
        ),
        ["scheduler = get_scheduler(CFG, optimizer)", '"interval": "step"'],
        ["scheduler.step()"],
    ),
    # the ReduceLROnPlateau branch taken: stepped on a metric, which Lightning monitors
    "scheduler_function_choosing_a_plateau_stepped_on_a_metric": (
        _by_name(_CFG_COSINE.replace('"CosineAnnealingLR"', '"ReduceLROnPlateau"')).replace(
            "        scheduler.step()\n        optimizer.zero_grad()\n",
            "        optimizer.zero_grad()\n    scheduler.step(loss.item())\n",
        ),
        ['self.log("monitor", self.loss.item())', '"monitor": "monitor"', '"interval": "epoch"'],
        ["scheduler.step("],
    ),
}

UNCHANGED = {
    "optimizer_unpacked_in_the_loops_scope_with_a_scheduler": (
        _LOAD_TRAIN_OBJS.format(
            between="\n    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)",
            epoch_end="\n        scheduler.step()",
        ),
        "TL106",
    ),
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
    # the name the branch reads is set by the script: not known before training
    "scheduler_function_choosing_by_a_setting_the_script_sets": (
        _by_name(_CFG_COSINE + "\n\nCFG.scheduler = input()"),
        "TL186",
    ),
    # the name comes from the command line
    "scheduler_function_choosing_by_a_command_line_flag": (
        _by_name(
            "import argparse\n\nparser = argparse.ArgumentParser()\n"
            'parser.add_argument("--scheduler", default="CosineAnnealingLR")\n'
            'parser.add_argument("--T_max", type=int, default=4)\n'
            "CFG = parser.parse_args()"
        ),
        "TL186",
    ),
    # several schedulers built (a SequentialLR of two): not one object from its arguments
    "scheduler_function_building_several": (
        _scheduled(
            """
def get_scheduler(optimizer, warmup, total):
    first = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=warmup)
    second = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total - warmup)
    return torch.optim.lr_scheduler.SequentialLR(optimizer, [first, second], milestones=[warmup])
""",
            "get_scheduler(optimizer, 2, 8)",
        ),
        "TL186",
    ),
    # a print in the function: it would run when fit starts, after what the script printed
    "scheduler_function_printing": (
        _scheduled(
            _LINEAR.replace(
                "    return torch",
                '    print(f"warmup {num_warmup_steps} steps")\n    return torch',
            ),
            "get_linear_schedule_with_warmup(optimizer, 2, 8)",
        ),
        "TL186",
    ),
    # the function changes the optimizer's groups
    "scheduler_function_storing_into_the_optimizer": (
        _scheduled(
            """
def get_scheduler(optimizer, total):
    for group in optimizer.param_groups:
        group["initial_lr"] = group["lr"] * 2
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 - step / total, last_epoch=0)
""",
            "get_scheduler(optimizer, 8)",
        ),
        "TL186",
    ),
    # a rate function keeping a state of its own (`nonlocal`)
    "scheduler_function_rate_with_state": (
        _scheduled(
            """
def get_scheduler(optimizer):
    calls = 0

    def lr_lambda(step):
        nonlocal calls
        calls += 1
        return 1.0 / calls

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
""",
            "get_scheduler(optimizer)",
        ),
        "TL186",
    ),
    # the rate function reads a global the epoch loop rebinds
    "scheduler_function_reading_a_global_the_loop_changes": (
        _scheduled(
            """
scale = 1.0


def get_scheduler(optimizer):
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: scale / (step + 1))
""",
            "get_scheduler(optimizer)",
        ).replace(
            "        optimizer.zero_grad()\n",
            "        optimizer.zero_grad()\n    scale = scale * 0.5\n",
        ),
        "TL186",
    ),
    # the rate function reads a global dict the epoch loop changes in place
    "scheduler_function_reading_a_global_changed_in_place": (
        _scheduled(
            """
schedule = {"scale": 1.0}


def get_scheduler(optimizer):
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: schedule["scale"] / (step + 1))
""",
            "get_scheduler(optimizer)",
        ).replace(
            "        optimizer.zero_grad()\n",
            '        optimizer.zero_grad()\n    schedule["scale"] = 0.5\n',
        ),
        "TL186",
    ),
    # the rate function calls a callable the function is given
    "scheduler_function_calling_what_it_is_given": (
        _scheduled(
            """
def get_scheduler(optimizer, rate):
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: rate(step) * 0.5)
""",
            "get_scheduler(optimizer, lambda s: 1.0 / (s + 1))",
        ),
        "TL186",
    ),
    # the optimizer function prints: it would print when fit starts, not where the script did
    "optimizer_function_printing": (
        _optimized(
            """
def make_optimizer(net, lr):
    print("optimizer: Adam")
    return torch.optim.Adam(net.parameters(), lr=lr)
""",
            "make_optimizer(model, 0.01)",
        ),
        "TL186",
    ),
    # built on the global model, not on one it is given: which model is not the caller's to say
    "optimizer_function_over_a_global_model": (
        _optimized(
            """
def make_optimizer(lr):
    return torch.optim.SGD(model.parameters(), lr=lr)
""",
            "make_optimizer(0.01)",
        ),
        "TL186",
    ),
    # a group's membership drawn at random: the draw would move to when fit starts
    "optimizer_function_with_random_groups": (
        _optimized(
            """
def make_optimizer(net):
    picked, rest = [], []
    for p in net.parameters():
        if random.random() < 0.5:
            picked.append(p)
        else:
            rest.append(p)
    return torch.optim.SGD([{"params": picked}, {"params": rest, "lr": 0.01}], lr=0.1)
""",
            "make_optimizer(model)",
        ),
        "TL186",
    ),
    # a comprehension keeping parameters drawn at random: the draw would move to fit's start
    "optimizer_function_with_a_random_comprehension": (
        _optimized(
            """
def make_optimizer(net):
    kept = [p for p in net.parameters() if random.random() < 0.5]
    return torch.optim.SGD(kept, lr=0.1)
""",
            "make_optimizer(model)",
        ),
        "TL186",
    ),
    # a list extended with a tensor that is no model's parameter
    "optimizer_function_extending_with_another_tensor": (
        _optimized(
            """
def make_optimizer(net, extra):
    params = list(net.parameters())
    params.extend([extra])
    return torch.optim.SGD(params, lr=0.1)
""",
            "make_optimizer(model, scale)",
        ),
        "TL186",
    ),
    # a group added to an optimizer the function does not build and return
    "optimizer_function_adding_a_group_to_another_optimizer": (
        _optimized(
            """
def make_optimizer(net, other):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    other.add_param_group({"params": net.parameters()})
    return opt
""",
            "make_optimizer(model, optimizer)",
        ),
        "TL186",
    ),
    # a group list filled from something other than a model's parameters loop
    "optimizer_function_with_a_group_of_other_tensors": (
        _optimized(
            """
def make_optimizer(net, extra):
    params = []
    for p in net.parameters():
        params.append(p)
    params.append(extra)
    return torch.optim.SGD([{"params": params}], lr=0.1)
""",
            "make_optimizer(model, scale)",
        ),
        "TL186",
    ),
    # the alternatives train different models: which is not known here
    "optimizer_function_alternatives_on_different_models": (
        _optimized(
            """
def make_optimizer(net, head, name):
    if name == "sgd":
        return torch.optim.SGD(net.parameters(), lr=0.1)
    return torch.optim.Adam(head.parameters(), lr=0.1)
""",
            'make_optimizer(model, other, "sgd")',
        ),
        "TL186",
    ),
    # two optimizers built, one returned: not alternatives
    "optimizer_function_building_two_optimizers": (
        _optimized(
            """
def make_optimizer(net):
    first = torch.optim.SGD(net.parameters(), lr=0.1)
    second = torch.optim.Adam(net.parameters(), lr=0.1)
    return first
""",
            "make_optimizer(model)",
        ),
        "TL186",
    ),
    # an optimizer and a scheduler built: the scheduler would be lost
    "optimizer_function_building_a_scheduler_too": (
        _optimized(
            """
def make_optimizer(net, lr):
    opt = torch.optim.SGD(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1)
    return opt
""",
            "make_optimizer(model, 0.01)",
        ),
        "TL186",
    ),
    # built on the script's global optimizer, not on the one it is given
    "scheduler_function_on_another_optimizer": (
        _scheduled(
            """
def get_scheduler(opt, total):
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 - step / total)
""",
            "get_scheduler(optimizer, 8)",
        ),
        "TL186",
    ),
}
