"""Whether an expression is a plain Python sequence of samples, not a loader.

    training_data = [("The dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]), ...]
    training_data = make_data(16)        # def make_data(n): data = []; ...; return data
    for sentence, tags in training_data: ...

The PyTorch NLP tutorials train one sample per step over such a list. `Trainer.fit` given a
list takes it for a list of dataloaders; wrapping it in a DataLoader draws a base seed from
torch's generator at each epoch, which the script never did. So it is not a loader the
Trainer can iterate as the script did.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

_SEQUENCE_NODES = (cst.List, cst.Tuple, cst.ListComp)
_SEQUENCE_BUILTINS = frozenset({"list", "tuple", "sorted", "zip"})


def is_python_sequence(module: cst.Module, value: cst.BaseExpression) -> bool:
    """`value` is a list/tuple display or comprehension, `list(...)`/`sorted(...)`/`zip(...)`,
    or a call of a module function every `return` of which gives one (or a local bound only to
    one, appended to)."""
    if isinstance(value, _SEQUENCE_NODES):
        return True
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
        return False
    name = value.func.value
    functions = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    if len(functions) != 1:
        return name in _SEQUENCE_BUILTINS and not _module_binds(module, name)
    returns = [r.value for r in m.findall(functions[0].body, m.Return()) if r.value is not None]
    return bool(returns) and all(_returns_sequence(functions[0], r) for r in returns)


def _returns_sequence(function: cst.FunctionDef, value) -> bool:
    if isinstance(value, _SEQUENCE_NODES):
        return True
    if not isinstance(value, cst.Name):
        return False
    bindings = [
        a.value
        for a in m.findall(function.body, m.Assign())
        if any(m.matches(t.target, m.Name(value.value)) for t in a.targets)
    ]
    return bool(bindings) and all(isinstance(b, _SEQUENCE_NODES) for b in bindings)


def _module_binds(module: cst.Module, name: str) -> bool:
    """A module-level def, class, import or assignment of `name` (a builtin shadowed)."""
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and stmt.name.value == name:
            return True
        if m.findall(stmt, m.AssignTarget(target=m.Name(name))):
            return True
        for alias in m.findall(stmt, m.ImportAlias()):
            bound = alias.asname.name if alias.asname else alias.name
            if isinstance(bound, cst.Name) and bound.value == name:
                return True
    return False
