"""Per-epoch helpers written as closures: `def train(epoch):` defined in `main()`, before its
epoch loop, reading `model`, `optimizer` and the loaders from `main()`'s locals.

Such a closure reads its free names from the enclosing function's frame at the moment it is
called; inlined at its call in that same function's epoch loop, the statements read those
very bindings at that very moment. That holds when every free name of the closure is a
local of the enclosing function (Python's own scoping, `symtable`), the closure declares no
`nonlocal`, and the enclosing function binds the closure's name only with its `def`.
patterns/helpers.py inlines the closures `closure_helpers` returns like module-level helpers.
"""

from __future__ import annotations

import symtable

import libcst as cst

from .names import bound_names, node_kinds


def closure_helpers(ctx) -> dict[str, cst.FunctionDef]:
    """The functions the function holding the loop defines in its own body, before the
    statement holding the loop, whose body loops (a batch loop) and does not `yield`."""
    if not ctx.in_function:
        return {}
    found = {}
    for stmt in ctx.function.body.body:
        if stmt is ctx.top_stmt or any(stmt is w for w in ctx.withs) or stmt is ctx.loop:
            break
        if stmt is (ctx.wrapper if ctx.wrapper is not None else ctx.loop):
            break
        if isinstance(stmt, cst.FunctionDef):
            kinds = node_kinds(stmt.body)
            if "loop" in kinds and "yield" not in kinds:
                found[stmt.name.value] = stmt
    return found


def why_not_inlined(ctx, func: cst.FunctionDef) -> str | None:
    """Why the closure `func` cannot be inlined into the loop of the function defining it
    (None when it can): a `nonlocal`, a free name that is no local of the enclosing
    function, or the enclosing function binding the closure's name again."""
    name, owner = func.name.value, ctx.function.name.value
    binds = sum(name in bound_names(stmt) for stmt in ctx.function.body.body)
    if binds != 1:
        return f"closure `{name}` is bound {binds} times in `{owner}()`"
    outer = _table(ctx.module.code_for_node(ctx.function).lstrip())
    inner = next(
        (t for t in outer.get_children() if t.get_name() == name and t.get_type() == "function"),
        None,
    )
    if inner is None:  # never expected: the def is in the function's body
        return f"closure `{name}` not found in `{owner}()`'s scopes"
    for symbol in sorted(inner.get_symbols(), key=lambda s: s.get_name()):
        free = symbol.get_name()
        if symbol.is_nonlocal():
            return f"closure `{name}` declares `nonlocal {free}`"
        if symbol.is_free():
            mine = outer.lookup(free)
            if not (mine.is_local() or mine.is_parameter()):
                return f"`{free}`, read by closure `{name}`, is no local of `{owner}()`"
    return None


def _table(code: str) -> symtable.SymbolTable:
    """The table of the one function `code` defines."""
    module = symtable.symtable(code, "<closure>", "exec")
    return module.get_children()[0]
