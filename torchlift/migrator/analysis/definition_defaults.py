"""Whether a default of a module-level helper, read again where the helper is called, gives
what the `def` evaluated.

Python evaluates a default once, when the `def` runs, in the module's scope. Inlined into the
loop (patterns/helpers.py), the default is read at the call, in the caller's scope: the same
value only for a constant (`constant`), or a name that means there what it meant at the `def`
-- a builtin no scope shadows, or a module global bound once, before the `def`, that no
function rebinds through `global` and the caller does not bind as a local of its own -- or an
attribute of such a name bound by an import (`torch.optim.SGD`: a module's attribute).
Anything else (`TrainState()`, `[]`, `args.lr`, a name the module binds again) is hoisted
before the `def` instead (source/hoisted_defaults.py).
"""

from __future__ import annotations

import libcst as cst

from .globals_read import function_locals, rebound_through_global
from .names import builtin_unshadowed, only_module_binding

_CONSTANT_NAMES = frozenset({"None", "True", "False"})


def constant(value: cst.BaseExpression) -> bool:
    """A literal whose value no evaluation can change and no caller can share and mutate:
    numbers (signed), strings, None/True/False, tuples of those."""
    if isinstance(value, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
        return True
    if isinstance(value, cst.ConcatenatedString):
        return constant(value.left) and constant(value.right)
    if isinstance(value, cst.Name):
        return value.value in _CONSTANT_NAMES
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
        return isinstance(value.expression, (cst.Integer, cst.Float, cst.Imaginary))
    if isinstance(value, cst.Tuple):
        return all(
            not isinstance(e, cst.StarredElement) and constant(e.value) for e in value.elements
        )
    return False


def read_alike_at_call(ctx, func: cst.FunctionDef, value: cst.BaseExpression) -> bool:
    """`value`, a default of `func` (a module-level def), evaluated in the scope of the loop
    `ctx` plans gives the object the `def` evaluated (see the module docstring)."""
    if constant(value):
        return True
    base, attribute = value, False
    while isinstance(base, cst.Attribute):
        base, attribute = base.value, True
    if not isinstance(base, cst.Name):
        return False
    name = base.value
    if ctx.in_function and (name in ctx.params or name in function_locals(ctx)):
        return False
    if name in rebound_through_global(ctx):
        return False
    binding = only_module_binding(ctx.module, name)
    if binding is None:
        return not attribute and builtin_unshadowed(ctx.module, name)
    body = list(ctx.module.body)
    if _index(body, binding) > _index(body, func):
        return False
    return not attribute or _is_import(binding)


def _index(body: list, stmt) -> int:
    return next(k for k, s in enumerate(body) if s is stmt)


def _is_import(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body
    )
