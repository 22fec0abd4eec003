"""Pattern: `model.train()` / `model.eval()` -> removed: the Trainer switches modes itself
(eval for validation and test steps, then back to the mode the model had).

Lightning does not put the model in train mode when `fit` starts: a script that evaluated the
model before its training loop (a test of the untrained model) and then called `model.train()`
would train in eval mode once converted (dropout off). So when code before the loop may leave
the model in eval mode — it calls `model.eval()`, or hands the model to a function — the
script's own `model.train()` calls of the training part are kept (they run in the same hooks).

Leaves alone: `model.train(mode)` with an argument, and calls on anything but the model.
"""

from __future__ import annotations

import builtins

import libcst as cst
import libcst.matchers as m

from ..analysis.statements import call_method

RULES = ()
_BUILTINS = frozenset(dir(builtins))


def clean(ctx, plan) -> None:
    models = [model.name for model in plan.models]
    keep_train = {
        model: _may_be_in_eval_mode(ctx, model)
        or _may_switch_to_eval(ctx, plan.after_step, model)
        or _may_switch_to_eval(ctx, plan.post_train, model, direct=False)
        for model in models
    }

    def keep(stmt, training: bool = False) -> bool:
        for method in ("train", "eval"):
            receiver = call_method(stmt, method)
            if isinstance(receiver, cst.Name) and receiver.value in keep_train:
                if not stmt.body[0].value.args:
                    return training and method == "train" and keep_train[receiver.value]
        return True

    plan.pre_train = [s for s in plan.pre_train if keep(s, training=True)]
    plan.post_train = [s for s in plan.post_train if keep(s)]
    if not plan.manual_optimization:  # a manual step keeps its statements in their order
        plan.train_body = [s for s in plan.train_body if keep(s, training=True)]
    for v in (plan.validation, plan.test):
        if v is not None:
            v.before = [s for s in v.before if keep(s)]
            v.body = [s for s in v.body if keep(s)]
            v.after = [s for s in v.after if keep(s)]


def functions_reading(module: cst.Module, names: set[str]) -> set[str]:
    """Names of the script's module-level functions whose body reads one of `names` (a global
    model, or a parameter spelled the same: either way a call may run or switch it), or calls
    such a function (`sample()` calling `sample_timestep()`, which runs the global model)."""
    mentioned = {
        stmt.name.value: {found.value for found in m.findall(stmt.body, m.Name())}
        for stmt in module.body
        if isinstance(stmt, cst.FunctionDef)
    }
    reading = {name for name, found in mentioned.items() if found & names}
    while True:
        callers = {name for name, found in mentioned.items() if found & reading} - reading
        if not callers:
            return reading
        reading |= callers


def _may_switch_to_eval(ctx, after_step, model: str, direct: bool = True) -> bool:
    """Whether the code after the optimizer step (on_train_batch_end: an evaluation every N
    steps) may leave `model` in eval mode for the next step: it calls `model.eval()`, hands
    the model to a call or calls a function of the script reading it. The script's
    `model.train()` in the batch loop is then what puts it back, so it is kept.
    Asked of the epoch's code after the batch loop (on_train_epoch_end: `if rank == 0:
    evaluate(model, test_loader)`, kept as written) without `direct`: there a `model.eval()`
    is the validation pass's, whose mode Lightning restores, but a helper's is not; the
    `model.train()` starting the epoch then puts it back, as in the script."""
    helpers = functions_reading(ctx.module, {model})
    for stmt in after_step:
        for call in m.findall(stmt, m.Call()):
            if direct and m.matches(
                call.func, m.Attribute(value=m.Name(model), attr=m.Name("eval"))
            ):
                return True
            if m.matches(call.func, m.Name()) and call.func.value in helpers:
                return True
            if any(m.matches(arg.value, m.Name(model)) for arg in call.args):
                return True
    return False


def _may_be_in_eval_mode(ctx, model: str) -> bool:
    """Whether code before the loop may leave `model` in eval mode: it calls `model.eval()`,
    or passes the model to a call (a helper that evaluates it)."""
    for stmt in ctx.scope_before:
        if m.matches(stmt, m.FunctionDef() | m.ClassDef()):
            continue  # a definition runs nothing until it is called
        for call in m.findall(stmt, m.Call()):
            func = call.func
            if m.matches(func, m.Attribute(value=m.Name(model), attr=m.Name("eval"))):
                return True
            passed = any(m.matches(arg.value, m.Name(model)) for arg in call.args)
            # builtins (print, len, ...) and torch's own wrappers (DataParallel, compile, ...)
            # do not switch the mode
            harmless = any(
                q.startswith("torch.") or q in _BUILTINS for q in ctx.call_qualnames(call)
            ) or (m.matches(call.func, m.Name()) and call.func.value in _BUILTINS)
            if passed and not harmless:
                return True
    return False
