"""The mode of a module besides the model that the validation pass runs (an EMA copy,
`AveragedModel(model)`), as the script had it: a helper of eval_mode, which owns the code.

    ema_model = AveragedModel(model, ...)
    for epoch in range(N):
        model.train()
        for x, y in loader: ... ; ema_model.update_parameters(model)
        ema_model.eval()                   -> on_train_epoch_end, in its place (after the pass)
        with torch.no_grad():
            for x, y in val_loader:        -> validation_step, `ema_model` in eval mode:
                ... ema_model(x) ...          `on_validation_model_eval` sets it when Lightning's
                                              default (the whole LightningModule in eval) would not

How the modes go once converted, for a module M the pass runs: Lightning captures every
submodule's mode when the pass starts, calls `on_validation_model_eval` (default: all in eval),
runs the pass and restores the captured modes; `on_train_epoch_end` then runs the script's
epoch code after the batch loop, its own `M.eval()` / `M.train()` statements among it, in their
order. So M's mode is the script's everywhere when:
- every mode call on M in the epoch is a top-level statement of the epoch code after the batch
  loop (on_train_epoch_end, replayed in order after the pass) or before it
  (on_train_epoch_start): the mode M ends each epoch in, which the training steps of the next
  epoch, the code after `fit` and the next pass's capture see, is the script's;
- the mode at the pass is certain: the last of those statements before the pass, or, with none
  in the epoch, the last top-level one before the training loop (`ema.eval()` once, or
  `ema = copy.deepcopy(model).eval()`); the hook sets it for the pass;
- no statement of the pass's setup (on_validation_epoch_start, inside the pass) runs M where
  the script ran it before switching it, and no function of the script that switches modes
  (`.eval()` / `.train()` in its body) is called on M in the epoch: it might switch M where
  the conversion cannot follow.
Anything else is a refusal (the caller's TL147) with the reason returned here.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.statements import call_method, single_assign

_MODES = ("eval", "train")


def mode_at_pass(ctx, name: str, *, epoch_start, before_pass, after_pass, pass_setup, others, runs):
    """("eval" | "train", None) for module `name` run by the pass, or (None, (why, node)).

    `name` may be a submodule the pass runs (`averaged.module`).
    `epoch_start`, `before_pass`, `after_pass`: the epoch's top-level statements before the
    batch loop (on_train_epoch_start), after it and before the pass, and after the pass (both
    in on_train_epoch_end, in order); `pass_setup`: the statements that become
    on_validation_epoch_start; `others`: the rest of the epoch (the steps, the code after
    them, the pass), where a mode call cannot be followed; `runs(stmt, name)`: whether `stmt`
    runs the module."""
    replayed = [*epoch_start, *before_pass, *after_pass]
    placed = {
        id(call)
        for stmt in replayed
        if _mode_set(stmt, name) is not None
        for call in m.findall(stmt, m.Call())
    }
    everywhere = [*replayed, *pass_setup, *others]
    stray = [(s, c) for s in everywhere for c in _mode_calls(s, name) if id(c) not in placed]
    if stray:
        stmt, call = stray[0]
        return None, (
            f"`{name}.{call.func.attr.value}()` is called inside other code of the epoch "
            "(a step, a condition, the pass): Lightning restores the mode it had before the "
            "pass, the conversion cannot follow the script's switches",
            stmt,
        )
    setup_runs = next((s for s in pass_setup if runs(s, name)), None)
    if setup_runs is not None:
        return None, (
            f"the statement runs `{name}` before the pass and would run in the pass's mode",
            setup_runs,
        )
    switcher = _switching_call(ctx, name, everywhere)
    if switcher is not None:
        return None, (
            f"`{name}` is handed to a function of the script that switches train/eval modes, "
            "which the conversion cannot follow",
            switcher,
        )
    mode = _last_mode(before_pass, name) or _last_mode(epoch_start, name)
    if mode is None and not _last_mode(after_pass, name):
        mode = _mode_before_loop(ctx, name)
    if mode is None:
        switched = next((s for s in after_pass if _mode_set(s, name)), None)
        why = (
            f"the script switches `{name}` only after the pass"
            if switched is not None
            else f"the script never switches `{name}`, Lightning would"
        )
        return None, (why, switched)
    return mode, None


def _last_mode(stmts, name: str) -> str | None:
    return next((_mode_set(s, name) for s in reversed(stmts) if _mode_set(s, name)), None)


def dotted(node) -> str | None:
    """`a.b.c` for a chain of attributes on a name (`averaged.module`), else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    return None


def _within(inner: str, outer: str) -> bool:
    """Module `inner` is `outer` or one of its submodules (`ema.module` within `ema`)."""
    return inner == outer or inner.startswith(outer + ".")


def _mode_calls(node, name: str) -> list[cst.Call]:
    """The `.eval()` / `.train()` calls in `node` switching module `name`, a module holding
    it or one of its submodules."""
    found = []
    for call in m.findall(node, m.Call(func=m.Attribute(attr=m.Name()))):
        receiver = dotted(call.func.value)
        if call.func.attr.value in _MODES and receiver is not None:
            if _within(name, receiver) or _within(receiver, name):
                found.append(call)
    return found


def _mode_set(stmt, name: str) -> str | None:
    """The mode `stmt` puts module `name` in when it is exactly `name.eval()` / `name.train()`
    (or the same of a module holding it: `ema.eval()` for `ema.module`) / `name = <...>.eval()`
    (a copy switched as it is made), else None."""
    for method in _MODES:
        receiver = dotted(call_method(stmt, method))
        if receiver is not None and _within(name, receiver) and not stmt.body[0].value.args:
            return method
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        assign = stmt.body[0]
        if (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and m.matches(assign.targets[0].target, m.Name(name))
            and m.matches(assign.value, m.Call(func=m.Attribute(attr=m.Name()), args=[]))
            and assign.value.func.attr.value in _MODES
        ):
            return assign.value.func.attr.value
    return None


def _mode_before_loop(ctx, name: str) -> str | None:
    """The mode the code before the training loop leaves `name` in, when it sets it with a
    top-level statement and switches it nowhere else (a mode call nested in other code, or
    another binding of the name after it, makes it unknown): `name.eval()`, `name =
    <...>.eval()`, or a module built right there (`nn.Sequential(...)`, `Net()`), in train
    mode as every new module."""
    mode = None
    for stmt in ctx.scope_before:
        if m.matches(stmt, m.FunctionDef() | m.ClassDef()):
            continue
        found = _mode_set(stmt, name) or _built_in_train_mode(ctx, stmt, name)
        if found is not None:
            mode = found
        elif _mode_calls(stmt, name) or _binds(stmt, name):
            mode = None
    return mode


def _built_in_train_mode(ctx, stmt, name: str) -> str | None:
    """ "train" when `stmt` is `name = <a module class>(...)`."""
    found = single_assign(stmt)
    if found is not None and found[0] == name and constructs_module(ctx, found[1]):
        return "train"
    return None


def constructs_module(ctx, value) -> bool:
    """`value` builds a new module, in train mode: a torch.nn class other than a loss (its mode
    changes nothing), or a class of the file deriving from one whose methods never switch
    modes (its __init__ could)."""
    if not isinstance(value, cst.Call):
        return False
    for qualname in ctx.call_qualnames(value):
        if qualname.startswith("torch.nn.") and not qualname.startswith("torch.nn.functional."):
            return qualname.rsplit(".", 1)[-1][:1].isupper() and not qualname.endswith("Loss")
    return m.matches(value.func, m.Name()) and value.func.value in _module_classes(ctx)


def _module_classes(ctx) -> set[str]:
    """Classes of the file deriving (through each other) from a torch.nn class, with no
    `.eval()` / `.train()` call in their bodies."""
    classes = {c.name.value: c for c in ctx.module.body if isinstance(c, cst.ClassDef)}
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, cls in classes.items():
            if name in found:
                continue
            bases = [b.value for b in cls.bases]
            if any(
                any(q.startswith("torch.nn.") for q in ctx.names.of(b))
                or (isinstance(b, cst.Name) and b.value in found)
                for b in bases
            ):
                found.add(name)
                changed = True
    return {
        name
        for name in found
        if not any(
            call.func.attr.value in _MODES
            for call in m.findall(classes[name], m.Call(func=m.Attribute(attr=m.Name())))
        )
    }


def _binds(stmt, name: str) -> bool:
    return any(
        m.matches(target, m.Name(name))
        for assign in m.findall(stmt, m.Assign())
        for target in (t.target for t in assign.targets)
    )


def _switching_call(ctx, name: str, stmts) -> cst.CSTNode | None:
    """The statement of `stmts` calling a function of the script that switches modes in its
    body and is handed `name` (or reads it as a global)."""
    switching = {
        fn.name.value: fn
        for fn in ctx.module.body
        if isinstance(fn, cst.FunctionDef)
        and any(
            call.func.attr.value in _MODES
            for call in m.findall(fn.body, m.Call(func=m.Attribute(attr=m.Name())))
        )
    }
    root = name.split(".")[0]
    for stmt in stmts:
        for call in m.findall(stmt, m.Call(func=m.Name())):
            fn = switching.get(call.func.value)
            if fn is None:
                continue
            handed = any(
                (arg_name := dotted(arg.value)) is not None
                and (_within(arg_name, name) or _within(name, arg_name))
                for arg in call.args
            )
            if handed or any(n.value == root for n in m.findall(fn.body, m.Name())):
                return stmt
    return None
