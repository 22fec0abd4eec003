"""Pattern: `model.train()` / `model.eval()` -> removed: the Trainer switches modes itself
(eval for validation and test steps, then back to the mode the model had).

Lightning does not put the model in train mode when `fit` starts: a script that evaluated the
model before its training loop (a test of the untrained model) and then called `model.train()`
would train in eval mode once converted (dropout off). So when code before the loop may leave
the model in eval mode — it calls `model.eval()`, or hands the model to a function — or the
model does not come from a module the script builds (a library's loader may return it in eval
mode), the script's own `model.train()` calls of the training part are kept (they run in the
same hooks).
For a model the function holding the loop is given, that code is its callers' (`history =
[evaluate(model, val_loader)]; history += fit(epochs, lr, model, ...)`). Code kept at an
epoch's end that hands the model to a helper (`result = evaluate(model, val_loader)`) leaves
it in eval mode for the next epoch just as well: `model.train()` is kept then too.
Code at the epoch's start that runs the model after its own `model.eval()`, or before a mode
call (`model.eval(); samples = model(fixed_noise); model.train()` before the batch loop), keeps
its mode calls as written: it runs in on_train_epoch_start, where Lightning switches no mode
(step_modes.py compares the modes).

Leaves alone: `model.train(mode)` with an argument, and calls on anything but the model.
"""

from __future__ import annotations

import builtins

import libcst as cst
import libcst.matchers as m

from ..analysis.function_reads import functions_reading
from ..analysis.model_handoff import only_reads_state
from ..analysis.model_modes import MODE_KEEPING_METHODS, TRAIN, mode_set
from ..analysis.statements import call_method
from .device_helpers import moved_data

RULES = ()
_BUILTINS = frozenset(dir(builtins))
_COPIES = frozenset({"copy.deepcopy", "copy.copy"})


def clean(ctx, plan) -> None:
    models = [model.name for model in plan.models]
    keep_train = {
        model: _may_be_in_eval_mode(ctx, model)
        or _may_switch_to_eval(ctx, plan.after_step, model)
        or _given_in_unknown_mode(ctx, model)
        or _epoch_end_may_switch_to_eval(ctx, plan.post_train, model)
        or plan.epoch_end_modes
        or not _starts_in_train_mode(ctx, plan, model)
        for model in models
    }

    def keep(stmt, training: bool = False) -> bool:
        for method in ("train", "eval"):
            receiver = call_method(stmt, method)
            if isinstance(receiver, cst.Name) and receiver.value in keep_train:
                if not stmt.body[0].value.args:
                    return training and method == "train" and keep_train[receiver.value]
        return True

    # code at the epoch's start running the model runs in on_train_epoch_start, in the mode the
    # epoch before left (Lightning switches no mode there): its own mode calls stay around it
    start_modes = _epoch_start_sets_modes_around_runs(ctx, plan.pre_train, models)
    plan.pre_train = [s for s in plan.pre_train if start_modes or keep(s, training=True)]
    plan.before_step = [s for s in plan.before_step if keep(s, training=True)]
    if not plan.epoch_end_modes:  # kept in on_train_epoch_end as the script ordered them
        plan.post_train = [s for s in plan.post_train if keep(s)]
    if not plan.manual_optimization:  # a manual step keeps its statements in their order
        plan.train_body = [s for s in plan.train_body if keep(s, training=True)]
    plan.kept_mode_calls += [  # the change log says they stay (before any renaming)
        s
        for s in [*plan.pre_train, *plan.before_step, *plan.train_body, *plan.post_train]
        if any(_mode_call_of(s, method, keep_train) for method in ("train", "eval"))
    ]
    for v in (plan.validation, plan.test):
        if v is not None:
            v.before = [s for s in v.before if keep(s)]
            v.body = [s for s in v.body if keep(s)]
            v.after = [s for s in v.after if keep(s)]


def _epoch_start_sets_modes_around_runs(ctx, pre_train, models) -> bool:
    """The epoch's code before its batch loop runs the model after setting eval mode itself
    (`model.eval(); samples = model(fixed_noise); model.train()`), or runs it (a helper that
    may switch it) before a mode call: dropping the calls would change a mode there. (A
    `model.train()` before the run is the training's own, kept when the model may be in eval
    mode: `keep_train`.)"""
    from .eval_mode import _helpers_reading, _runs_model  # (eval_mode imports this one's)

    names = set(models)
    helpers = _helpers_reading(ctx.module, names)
    runs, modes, evals = [], [], []
    for index, stmt in enumerate(pre_train):
        set_to = [mode_set(c) for c in m.findall(stmt, m.Call()) if _receiver_in(c, names)]
        if any(set_to):
            modes.append(index)
            if "eval" in set_to:
                evals.append(index)
        elif _runs_model(ctx, stmt, names, helpers):
            runs.append(index)
    return any(e < r for e in evals for r in runs) or any(r < i for r in runs for i in modes)


def _receiver_in(call: cst.Call, names: set[str]) -> bool:
    return m.matches(call.func, m.Attribute(value=m.Name())) and call.func.value.value in names


def _mode_call_of(stmt, method: str, models) -> bool:
    receiver = call_method(stmt, method)
    return isinstance(receiver, cst.Name) and receiver.value in models


def _may_switch_to_eval(ctx, after_step, model: str) -> bool:
    """Whether the code after the optimizer step (on_train_batch_end: an evaluation every N
    steps) may leave `model` in eval mode for the next step: it calls `model.eval()`, hands
    the model to a call or calls a function of the script reading it. The script's
    `model.train()` in the batch loop is then what puts it back, so it is kept."""
    helpers = functions_reading(ctx.module, {model})
    for stmt in after_step:
        for call in m.findall(stmt, m.Call()):
            if _method_may_switch(call, model):
                return True
            if m.matches(call.func, m.Name()) and call.func.value in helpers:
                return True
            if any(m.matches(arg.value, m.Name(model)) for arg in call.args):
                return True
    return False


def _epoch_end_may_switch_to_eval(ctx, post_train, model: str) -> bool:
    """Whether code run at the end of each epoch (on_train_epoch_end) may leave `model` in
    eval mode for the next one: it hands the model to a helper of the script (`result =
    evaluate(model, val_loader)`, which calls `model.eval()`) or calls one reading it. Lightning
    does not switch back before the next epoch; the script's `model.train()` does, so it is
    kept. A bare `model.eval()` there starts the script's own validation pass, which Lightning
    runs in eval mode and switches back from: not counted; nor a callee only reading the
    model's state (`early_stopping(val_loss, model)` saving its `state_dict()`)."""
    helpers = functions_reading(ctx.module, {model})
    for stmt in post_train:
        for call in m.findall(stmt, m.Call()):
            calls_helper = m.matches(call.func, m.Name()) and call.func.value in helpers
            if (_hands_model(ctx, call, model) or calls_helper) and not only_reads_state(
                ctx, call, {model}
            ):
                return True
            if _method_may_switch(call, model, counting_eval=False):
                return True
    return False


def _given_in_unknown_mode(ctx, model: str) -> bool:
    """A model the function holding the loop is given (patterns/passed_in.py) is in the mode
    its caller left it: a course notebook evaluates it first (`history = [evaluate(model,
    val_loader)]`, which calls `model.eval()`), then calls `fit(...)`. Read in the callers'
    other statements as before the loop; a caller that cannot be read may have done so."""
    if model not in ctx.params or ctx.binding(model)[1]:
        return False
    from .passed_in import callers_passing  # (passed_in imports the patterns this one runs after)

    callers = callers_passing(ctx, model)
    if callers is None:
        return True
    for argument, statements in callers:
        if not isinstance(argument, cst.Name):
            return True
        if any(_may_switch(ctx, stmt, argument.value) for stmt in statements):
            return True
    return False


def _starts_in_train_mode(ctx, plan, model: str) -> bool:
    """Whether the model is in train mode for sure when the loop starts (step_modes.py): a
    module the script built, and nothing switched since. A model from elsewhere -- a
    library's loader (`from_pretrained` returns it in eval mode), a caller -- may not be."""
    if model != plan.model.name:
        return True  # (several models: the others are not traced)
    from .step_modes import start_mode  # (step_modes reads this module's decisions)

    return start_mode(ctx, plan).kind == TRAIN


def _may_be_in_eval_mode(ctx, model: str) -> bool:
    """Whether code before the loop may leave `model` in eval mode: it calls `model.eval()`,
    or passes the model to a call (a helper that evaluates it). In a loop over runs
    (shapes/runs.py) the previous run's code ran before too: the loop's own epochs and the rest
    of the run's body, which a model every run goes on training (pretraining, then
    fine-tuning) comes out of in the mode they left."""
    from ..shapes.runs import carried_across_runs

    before = list(ctx.scope_before)
    if carried_across_runs(ctx, model):
        before.append(ctx.runs[0])
    return any(_may_switch(ctx, stmt, model) for stmt in before)


def _may_switch(ctx, stmt, model: str) -> bool:
    """`stmt` calls `model.eval()` or passes `model` to a call other than a builtin or torch's."""
    if m.matches(stmt, m.FunctionDef() | m.ClassDef()):
        return False  # a definition runs nothing until it is called
    for call in m.findall(stmt, m.Call()):
        if _method_may_switch(call, model) or _hands_model(ctx, call, model):
            return True
    return False


def _method_may_switch(call: cst.Call, model: str, counting_eval: bool = True) -> bool:
    """`call` is `model.eval()` (when `counting_eval`) or another method of the model that may
    switch its mode: one of the script's model class (`model.evaluate(X, y)` calling
    `self.eval()`), or a torch one not known to keep it."""
    if not m.matches(call.func, m.Attribute(value=m.Name(model), attr=m.Name())):
        return False
    method = call.func.attr.value
    if method in ("eval", "train"):
        switched = mode_set(call)  # `model.train(False)` is `model.eval()`
        if switched is None:
            return True  # `model.train(flag)`: either mode
        return counting_eval and switched == "eval"
    # any other (`model.evaluate(X, y)`, a method of the script's class calling `self.eval()`,
    # or `model.apply(fn)`) may switch it
    return method not in MODE_KEEPING_METHODS


def _hands_model(ctx, call, model: str) -> bool:
    """`call` is given `model`, and is not a builtin (print, len, ...), one of torch's own
    wrappers (DataParallel, compile, ...), a copy, or a device move of the script
    (`to_device(model, device)`): none of those switches the mode."""
    if not any(m.matches(arg.value, m.Name(model)) for arg in call.args):
        return False
    # copies (an EMA made with copy.deepcopy) do not switch the mode either
    harmless = any(
        q.startswith("torch.") or q in _BUILTINS or q in _COPIES for q in ctx.call_qualnames(call)
    ) or (m.matches(call.func, m.Name()) and call.func.value in _BUILTINS)
    return not harmless and moved_data(ctx, call) is None
