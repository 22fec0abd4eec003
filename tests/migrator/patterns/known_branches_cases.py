"""Cases of patterns/known_branches.py: an `if` whose test the bindings decide."""

_UPDATER = """
def train(net, loader, updater, num_epochs):
    for epoch in range(num_epochs):
        for x, y in loader:
            l = criterion(net(x), y)
            if isinstance(updater, torch.optim.Optimizer):
                updater.zero_grad()
                l.backward()
                updater.step()
            else:
                l.backward()
                updater(x.shape[0])


train(model, loader, {updater}, 2)
"""

_SGD = """
def sgd(batch_size):
    with torch.no_grad():
        for param in model.parameters():
            param -= 0.1 * param.grad / batch_size
            param.grad.zero_()

"""

_SCALER = """
scaler = {scaler}
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cpu", enabled=scaler is not None):
            loss = criterion(model(x), y)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
"""

_RUN_EPOCH = """
def run_epoch(loader, model, optimizer, mode="train", accum_iter=1):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        if mode == "train" or mode == "train+log":
            loss.backward()
            if i % accum_iter == 0:
                optimizer.step()
                optimizer.zero_grad()


for epoch in range(2):
    run_epoch(loader, model, optimizer, mode={mode})
"""

CONVERTS = {
    # every caller passes a torch.optim optimizer: isinstance(...) is True
    "isinstance_optimizer_from_caller": (
        _UPDATER.format(updater="optimizer"),
        ["return l\n", "return self.updater"],
        ["isinstance", "updater(x.shape[0])"],
    ),
    # the scaler is None: the plain step, no autocast
    "scaler_none": (
        _SCALER.format(scaler="None"),
        ["loss = self.criterion(self(x), y)\n"],
        ["autocast", "scaler.", "precision="],
    ),
    # the scaler is built: the scaled step, mixed precision always on
    "scaler_built": (
        _SCALER.format(scaler='torch.amp.GradScaler("cpu")'),
        ['precision="16-mixed")'],
        ["autocast", "scaler", "32-true"],
    ),
    # the scaler exists only under a command-line flag: mixed precision follows its test
    "scaler_from_flag": (
        "import sys\n"
        + _SCALER.format(scaler='torch.amp.GradScaler("cpu") if "--amp" in sys.argv else None'),
        [
            'precision="16-mixed" if scaler is not None else "32-true"',
            'scaler = torch.amp.GradScaler("cpu") if "--amp" in sys.argv else None',
        ],
        ["autocast", "scaler.", "backward"],
    ),
    # the helper's `mode` is the call's string, `accum_iter` its default 1: `i % 1 == 0`
    # holds for enumerate's index, and the step is the plain one
    "mode_string_and_accum_iter_one": (
        _RUN_EPOCH.format(mode='"train"'),
        ["loss = self.criterion(self(x), y)\n"],
        ["mode ==", "accum_iter", "% 1", "manual_backward", "def run_epoch"],
    ),
    # a torch.optim.lr_scheduler object is not None: the step guarded in an accumulation
    # group is the scheduler's step (the Cassava notebook's `scheduler is not None and ...`)
    "scheduler_is_not_none_in_an_accumulation_group": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                    if scheduler is not None:
                        scheduler.step()
        """,
        ['"interval": "step"', "accumulate_grad_batches=2"],
        ["scheduler.step()", "is not None"],
    ),
}

UNCHANGED = {
    # a function of the script is passed: the other branch runs, d2l's hand-written SGD
    # through the function (hand_update.py names it)
    "updater_is_a_function": (
        _SGD + _UPDATER.format(updater="sgd"),
        "TL127",
    ),
    # the same, the caller's own `def` passed under its name
    "updater_is_the_callers_own_function": (
        _UPDATER.replace("\n\ntrain(model, loader, {updater}, 2)\n", "\n\n")
        + "def main():\n    def updater(batch_size):\n        pass\n\n"
        "    train(model, loader, updater, 2)\n\n\nmain()\n",
        "TL105",
    ),
    # the callers disagree: which branch runs depends on the call
    "callers_disagree": (
        "def sgd(batch_size):\n    pass\n\n"
        + _UPDATER.format(updater="optimizer")
        + "train(model, loader, sgd, 2)\n",
        "TL114",
    ),
    # under the flag, the scaled step also clips: not the plain step with a scaler
    "scaler_from_flag_branches_differ": (
        "import sys\n"
        + _SCALER.format(
            scaler='torch.amp.GradScaler("cpu") if "--amp" in sys.argv else None'
        ).replace(
            "scaler.step(optimizer)",
            "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
            "            scaler.step(optimizer)",
        ),
        "TL114",
    ),
    # the loop rebinds the name the test reads
    "rebound_in_loop": (
        _SCALER.format(scaler="None").replace(
            "optimizer.zero_grad()\n", "optimizer.zero_grad()\n        scaler = None\n", 1
        ),
        "TL114",
    ),
    # the helper gets a mode only known when the script runs
    # every second batch steps the optimizer: accumulation of its own, not the plain step
    "accum_iter_two_on_the_batch_index": (
        _RUN_EPOCH.format(mode='"train"').replace(
            'mode="train")\n', 'mode="train", accum_iter=2)\n'
        ),
        "TL114",
    ),
}

# a test not known before training around the whole step (backward() and step()): kept as
# written under manual optimization (patterns/guarded_step.py)
CONVERTS["mode_from_the_command_line"] = (
    "import sys\n" + _RUN_EPOCH.format(mode="sys.argv[1]"),
    [
        "self.automatic_optimization = False",
        'if self.mode == "train" or self.mode == "train+log":\n            self.manual_backward(loss)',
    ],
    ["loss.backward()"],
)
