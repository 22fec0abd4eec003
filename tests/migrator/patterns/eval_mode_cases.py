"""Cases of patterns/eval_mode.py: the model's mode during evaluation, as the script had it."""

_EPOCH = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
for epoch in range(2):
    {train}
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    {evaluation}
    with torch.no_grad():
        for x, y in val_loader:
            print(criterion(model(x), y).item())
"""

CONVERTS = {
    "evaluated_without_eval_keeps_train_mode": (
        _EPOCH.format(train="pass", evaluation="pass"),
        [
            "def on_validation_model_eval(self):\n"
            "        # the script evaluated in train mode (it never called model.eval())\n"
            "        self.train()"
        ],
        [],
    ),
    "eval_before_the_pass_is_lightnings_default": (
        _EPOCH.format(train="model.train()", evaluation="model.eval()"),
        ["def validation_step"],
        ["on_validation_model_eval", ".eval()"],
    ),
    "train_each_epoch_after_an_evaluation_before_the_loop": (
        "model.eval()\nprint(model(torch.randn(1, 4)))\n"
        + _EPOCH.format(train="model.train()", evaluation="pass"),
        ["def on_validation_model_eval(self):"],
        [],
    ),
    # DeiT's `model_without_ddp = model` (the optimizer's name), compiled or not: the model's
    # eval() under the other name switches the same module
    "eval_through_an_alias_of_the_optimizers_model": (
        "model_without_ddp = model\n"
        "if use_compile:\n"
        "    model = torch.compile(model)\n"
        "opt = torch.optim.SGD(model_without_ddp.parameters(), lr=0.1)"
        + _EPOCH.format(train="model.train()", evaluation="model.eval()").replace(
            "optimizer.", "opt."
        ),
        ["def validation_step"],
        ["on_validation_model_eval", "train mode"],
    ),
}

_EMA_EPOCH = """
import copy
ema = copy.deepcopy(model)
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
for epoch in range(2):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    {evaluation}
    with torch.no_grad():
        for x, y in val_loader:
            print(criterion(ema(x), y).item())
"""

CONVERTS["ema_copy_switched_to_eval_with_the_model"] = (
    _EMA_EPOCH.format(evaluation="model.eval()\n    ema.eval()"),
    ["def validation_step"],
    ["on_validation_model_eval"],
)
# Lightning's hook sets each module's mode for the pass; the script's own `ema.eval()` runs in
# on_train_epoch_end, after the pass, so the mode Lightning restores is then the script's again
CONVERTS["ema_copy_switched_alone_while_the_model_stays_in_train_mode"] = (
    _EMA_EPOCH.format(evaluation="ema.eval()"),
    [
        "def on_validation_model_eval(self):\n"
        "        # the script evaluated in train mode (it never called model.eval())\n"
        "        self.train()\n"
        "        # and `ema` in eval mode, as the script set it\n"
        "        self.ema.eval()",
        "def on_train_epoch_end(self):\n        self.ema.eval()",
    ],
    [],
)
CONVERTS["averaged_model_switched_in_train_mode_too"] = (
    _EMA_EPOCH.replace("copy.deepcopy(model)", "torch.optim.swa_utils.AveragedModel(model)")
    .replace("import copy", "import torch.optim.swa_utils")
    .format(evaluation="model.eval()\n    ema.eval()\n    ema.train()"),
    [
        "self.eval()\n        # and `ema` in train mode, as the script set it\n        self.ema.train()"
    ],
    [],
)
CONVERTS["ema_copy_switched_by_the_evaluate_helper_it_is_given"] = (
    """
    import copy
    ema = copy.deepcopy(model)
    val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))


    def evaluate(net, data_loader):
        net.eval()
        hits = 0
        with torch.no_grad():
            for x, y in data_loader:
                hits += (net(x).argmax(1) == y).sum().item()
        return hits


    for epoch in range(2):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        hits = evaluate(ema, val_loader)
        print(hits)
    """,
    [
        "self.train()\n        # and `ema` in eval mode, as the script set it\n        self.ema.eval()"
    ],
    [],
)
# made in eval mode before the loop, never switched again: its mode is the same everywhere
CONVERTS["ema_copy_made_in_eval_mode_before_the_loop"] = (
    _EMA_EPOCH.replace("copy.deepcopy(model)", "copy.deepcopy(model).eval()").format(
        evaluation="pass"
    ),
    [
        "self.train()\n        # and `ema` in eval mode, as the script set it\n        self.ema.eval()"
    ],
    [],
)

UNCHANGED = {
    "ema_copy_never_switched_while_the_model_goes_to_eval": (
        _EMA_EPOCH.format(evaluation="model.eval()"),
        "TL147",
    ),
    # Lightning restores the mode the copy had before the pass: a switch only in some epochs,
    # or after the pass only, has no place in the hooks
    "ema_copy_switched_only_in_some_epochs": (
        _EMA_EPOCH.format(evaluation="if epoch > 0:\n        ema.eval()"),
        "TL147",
    ),
    "ema_copy_switched_only_after_the_pass": (
        _EMA_EPOCH.replace(
            "print(criterion(ema(x), y).item())",
            "print(criterion(ema(x), y).item())\n    ema.eval()",
        ).format(evaluation="pass"),
        "TL147",
    ),
    "ema_copy_switched_inside_the_pass": (
        _EMA_EPOCH.replace(
            "    with torch.no_grad():", "    with torch.no_grad():\n        ema.eval()"
        ).format(evaluation="pass"),
        "TL147",
    ),
    "ema_copy_handed_to_a_function_that_switches_it": (
        "def frozen(net):\n    net.eval()\n    return net\n"
        + _EMA_EPOCH.replace("    model.train()\n", "    model.train()\n    frozen(ema)\n").format(
            evaluation="ema.eval()"
        ),
        "TL147",
    ),
    "eval_only_in_some_epochs": (
        _EPOCH.format(train="model.train()", evaluation="if epoch > 0:\n        model.eval()"),
        "TL147",
    ),
}

# code after an eval-mode pass handing the model to a callee of the script: a run of it,
# unless the callee only takes its state (analysis/model_handoff.py)
_STOPPER = """
class Stopper:
    def __init__(self):
        self.best = None

    def __call__(self, val_loss, net):
        if self.best is None or val_loss < self.best:
            self.best = val_loss
            self.save(net)

    def save(self, net):
        {save}


stopper = Stopper()
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
for epoch in range(2):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            total += criterion(model(x), y).item()
    stopper(total, model)
"""

CONVERTS["callee_only_saving_the_state_after_the_pass"] = (
    _STOPPER.format(save='torch.save(net.state_dict(), "best.pt")'),
    ["self.stopper(self.total, self.model)"],
    ["self.model.eval()"],
)
# ... or a run: the script's eval mode is set again in on_train_epoch_end before it (Lightning
# has restored train mode there), and the epoch's model.train() stays in on_train_epoch_start
_EVAL_AGAIN = (
    "# the script's evaluation left the model in eval mode here (Lightning's: train)\n"
    "        self.model.eval()"
)
CONVERTS["callee_running_the_model_after_the_pass"] = (
    _STOPPER.format(save='torch.save(net(torch.ones(1, 4)), "probe.pt")'),
    [_EVAL_AGAIN, "def on_train_epoch_start(self):\n        self.model.train()"],
    [],
)
CONVERTS["callee_storing_the_model_after_the_pass"] = (  # whatever runs it later
    _STOPPER.format(save="self.kept = net"),
    [_EVAL_AGAIN],
    [],
)
# the whole module pickled after the pass keeps its eval mode flags in the file, as the
# script's did (heldout21 NCF: `torch.save(model, path)` of the best epoch)
CONVERTS["whole_model_pickled_after_the_pass"] = (
    _EPOCH.format(train="model.train()", evaluation="model.eval()")
    + '    torch.save(model, "best.pth")\n',
    [_EVAL_AGAIN + "\n        torch.save(self.model"],
    [],
)
CONVERTS["callee_pickling_the_whole_model_after_the_pass"] = (
    _STOPPER.format(save='torch.save(net, "best.pth")'),
    [_EVAL_AGAIN],
    [],
)
# without model.train() at the epoch's start the next epoch's mode is the script's eval one
UNCHANGED["run_after_the_pass_with_no_train_call_at_the_epoch_start"] = (
    _STOPPER.format(save='torch.save(net(torch.ones(1, 4)), "probe.pt")').replace(
        "    model.train()\n", ""
    ),
    "TL147",
)

# code after an eval-mode pass calling a function of the script that runs the global model
# only through another function: still a run in eval mode where Lightning is back in train mode
CONVERTS["helper_running_the_model_through_another_after_the_pass"] = (
    "def probe():\n    return model(torch.ones(1, 4))\n\n\n"
    "def report():\n    print(probe())\n\n\n"
    + _EPOCH.format(train="model.train()", evaluation="model.eval()")
    + "    report()\n",
    [_EVAL_AGAIN + "\n        report()"],
    [],
)

# after fit the script's model is in the mode its last validation pass left it in: eval, where
# Lightning has put it back in train mode; code running it then gets eval mode back
CONVERTS["eval_mode_restored_after_fit_for_code_running_the_model"] = (
    _EPOCH.format(train="model.train()", evaluation="model.eval()")
    + "print(model(torch.ones(1, 4)))\n",
    ["trainer.fit(lit_model, loader, val_loader)\n# the script's last validation pass left the "
     "model in eval mode (Lightning's: train)\nmodel.eval()\nprint(model(torch.ones(1, 4)))"],
    [],
)
CONVERTS["no_mode_restored_for_code_only_saving_the_weights"] = (
    _EPOCH.format(train="model.train()", evaluation="model.eval()")
    + 'torch.save(model.state_dict(), "final.pt")\n',
    ["trainer.fit(lit_model, loader, val_loader)"],
    ["model.eval()"],
)
CONVERTS["no_mode_restored_when_the_epoch_ends_in_train_mode"] = (
    _EPOCH.format(train="pass", evaluation="model.eval()").replace(
        "print(criterion(model(x), y).item())",
        "print(criterion(model(x), y).item())\n    model.train()",
    )
    + "print(model(torch.ones(1, 4)))\n",
    ["trainer.fit(lit_model, loader, val_loader)"],
    ["model.eval()"],
)

# an evaluation on tensors at the epoch's end, no validation loop: the script's own mode calls
# stay where it made them (Lightning switches no mode around on_train_epoch_end)
CONVERTS["eval_then_model_run_in_epoch_code_without_a_validation_loop"] = (
    """
    val_x = torch.randn(4, 4)
    for epoch in range(2):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            print(model(val_x).sum().item())
    """,
    [
        "def on_train_epoch_start(self):\n        self.model.train()",
        "def on_train_epoch_end(self):\n        self.model.eval()\n        with torch.no_grad():",
    ],
    [],
)
