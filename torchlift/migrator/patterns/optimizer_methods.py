"""Pattern: the optimizer built by a method of the model (nanoGPT, minGPT).

    class GPT(nn.Module):
        def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
            ...groups from self.named_parameters()...
            return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas)

    model = GPT(config)
    optimizer = model.configure_optimizers(        -> configure_optimizers(self):
        weight_decay, learning_rate, (b1, b2), dt)        return self.model.configure_optimizers(
                                                              weight_decay, learning_rate, ...)

The statement is the optimizer's binding like any `torch.optim` call (patterns/bindings.py),
and the model it trains is the method's receiver. Read only when that is certain: the
receiver is bound once to a call of a class of the script whose own body defines the method
once, undecorated, and nothing in the file assigns an attribute of that name (which could
replace it on an instance or the class); every `return` of the method returns a `torch.optim`
optimizer call or a local bound once to one; every global the method reads is a builtin or
an import (so the only model it can reach is `self`, not a model of the script); and the
call's arguments read no receiver and no name bound to a call (only values such as
hyperparameters: no other model handed in). The method then runs once, when `fit` starts,
on the same parameters, as the script ran it once before the loop. Otherwise refused (TL106)
at the binding, naming the condition that fails.
"""

from __future__ import annotations

import builtins
import symtable

import libcst as cst
import libcst.matchers as m

from ..analysis.globals_read import module_global_binding
from ..analysis.names import collect_names, only_module_binding
from .factories import _local_value, _own_returns

_BUILTINS = frozenset(dir(builtins))


def method_optimizer_model(ctx, value) -> str | None:
    """The receiver `model` of `model.<method>(...)` when the method surely returns a
    `torch.optim` optimizer on `model`'s own parameters, else None."""
    found = _read(ctx, value)
    return found if found is not None and not found.startswith("!") else None


def why_not_method_optimizer(ctx, value) -> str | None:
    """Why `model.<method>(...)` (a method of a class of the script) is not read as the
    optimizer, for the refusal; None when it is, or when `value` is no such call."""
    found = _read(ctx, value)
    return found[1:] if found is not None and found.startswith("!") else None


def _read(ctx, value) -> str | None:
    """The receiver, or "!" + the reason it is not read, or None (not a script's method)."""
    if not m.matches(value, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name()))):
        return None
    receiver, name = value.func.value.value, value.func.attr.value
    built = _bound_value(ctx, receiver)
    if not (isinstance(built, cst.Call) and isinstance(built.func, cst.Name)):
        return None
    method = _own_method(ctx, built.func.value, name)
    if method is None:
        return None
    call = f"`{receiver}.{name}(...)`"
    if _replaced(ctx, name):
        return f"!{call}: the file assigns an attribute `{name}`, which may replace the method"
    other = _other_global(ctx, method)
    if other is not None:
        return (
            f"!{call}: the method reads the global `{other}` (only imports and builtins are "
            "read as reaching no model but `self`)"
        )
    if not all(_optimizer_returned(ctx, method, r.value) for r in _own_returns(method) or [None]):
        return f"!{call}: not every `return` of the method is a torch.optim optimizer call"
    if not _only_values(ctx, value, receiver):
        return f"!{call}: an argument reads the model or a name bound to a call"
    return receiver


def _bound_value(ctx, name: str):
    found, count = ctx.binding(name)
    if count == 0:
        found = module_global_binding(ctx, name)
    elif count != 1:
        return None
    return found[1] if found is not None else None


def _own_method(ctx, class_name: str, name: str) -> cst.FunctionDef | None:
    cls = only_module_binding(ctx.module, class_name)
    if not isinstance(cls, cst.ClassDef):
        return None
    found = [s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    others = [
        s
        for s in cls.body.body
        if not isinstance(s, cst.FunctionDef) and name in collect_names(s).writes
    ]
    if len(found) != 1 or others or found[0].decorators or found[0].asynchronous:
        return None
    return found[0]


def _replaced(ctx, name: str) -> bool:
    """An assignment or deletion of an attribute `name` anywhere in the file."""
    targets = m.AssignTarget(target=m.Attribute(attr=m.Name(name)))
    deleted = m.Del(target=m.Attribute(attr=m.Name(name)))
    return bool(m.findall(ctx.module, targets | deleted))


def _other_global(ctx, method: cst.FunctionDef) -> str | None:
    """A global the method reads that is neither a builtin nor an import, or None."""
    code = ctx.module.code_for_node(method.with_changes(decorators=[])).lstrip()
    tables = [symtable.symtable(code, "<method>", "exec").get_children()[0]]
    symbols = []
    while tables:  # the method and what it nests (comprehensions: their own scope before 3.12)
        table = tables.pop()
        symbols += table.get_symbols()
        tables += table.get_children()
    for symbol in symbols:
        if not symbol.is_global():
            continue
        binding = only_module_binding(ctx.module, symbol.get_name())
        if binding is None and symbol.get_name() in _BUILTINS:
            continue
        if not m.matches(binding, m.SimpleStatementLine(body=[m.Import() | m.ImportFrom()])):
            return symbol.get_name()
    return None


def _optimizer_returned(ctx, method, value) -> bool:
    if isinstance(value, cst.Name):
        value = _local_value(method, value.value)
    if not isinstance(value, cst.Call):
        return False
    names = ctx.call_qualnames(value)
    return bool(names) and all(
        q.startswith("torch.optim.") and not q.startswith("torch.optim.lr_scheduler.")
        for q in names
    )


def _only_values(ctx, call: cst.Call, receiver: str) -> bool:
    """The call's arguments read no model: not the receiver, and no name bound to a call."""
    for arg in call.args:
        for name in collect_names(arg.value).reads:
            bound = _bound_value(ctx, name)
            if name == receiver or bound is None or m.findall(bound, m.Call()):
                return False
    return True
