"""Module globals the function holding the loop reads (Python's scopes: stdlib `symtable`).

The sentdex-style script binds `net = Net()` and `optimizer = optim.Adam(net.parameters())`
at module level and trains in `def train():`, whose step reads them as globals. Such a name
is the module's own object wherever the function runs, provided the function never binds it
(it is no local of the function's: `symtable`), no function rebinds it through `global`, and
the module binds it exactly once, before the function is defined.
"""

from __future__ import annotations

import symtable

import libcst as cst

from .names import only_module_binding
from .statements import single_assign


def rebound_through_global(ctx) -> set[str]:
    """Names some function or class of the module assigns as a module global."""
    found = ctx.found.get("globals_rebound")
    if found is None:
        table = symtable.symtable(ctx.module.code, "<module>", "exec")
        found = {
            symbol.get_name()
            for child in nested_tables(table)
            for symbol in child.get_symbols()
            if symbol.is_declared_global() and symbol.is_assigned()
        }
        ctx.found["globals_rebound"] = found
    return found


def nested_tables(table: symtable.SymbolTable):
    """Every function's and class's table inside `table`, at any depth."""
    pending = list(table.get_children())
    while pending:
        child = pending.pop()
        pending += child.get_children()
        yield child


def module_global_binding(ctx, name: str) -> tuple[cst.CSTNode, cst.BaseExpression] | None:
    """(statement, value) of `name = value`, the one module-level binding of a global the
    function holding the loop reads, bound before that function; else None."""
    if not ctx.in_function or name in ctx.params or name in rebound_through_global(ctx):
        return None
    if name in function_locals(ctx):
        return None
    stmt = only_module_binding(ctx.module, name)
    assign = single_assign(stmt) if stmt is not None else None
    if assign is None or assign[0] != name or not any(stmt is s for s in ctx.module_before):
        return None
    return stmt, assign[1]


def function_locals(ctx) -> set[str]:
    """Names the function holding the loop binds in its own scope (not its globals)."""
    code = ctx.module.code_for_node(ctx.function).lstrip()
    table = symtable.symtable(code, "<def>", "exec").get_children()[0]
    return {
        s.get_name()
        for s in table.get_symbols()
        if (s.is_local() or s.is_parameter() or s.is_nonlocal()) and not s.is_global()
    }
