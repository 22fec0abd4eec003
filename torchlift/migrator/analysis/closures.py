"""Per-epoch helpers written as closures: `def train(epoch):` defined in `main()`, before its
epoch loop, reading `model`, `optimizer` and the loaders from `main()`'s locals.

Such a closure reads its free names from the enclosing function's frame at the moment it is
called; inlined at its call in that same function's epoch loop, the statements read those
very bindings at that very moment. That holds when every free name of the closure is a
local of the enclosing function (Python's own scoping, `symtable`) and the enclosing
function binds the closure's name only with its `def`.
patterns/helpers.py inlines the closures `closure_helpers` returns like module-level helpers.

A closure's `nonlocal step` (a step counter for the log's x-axis, `nonlocal best_acc` kept by
`test()`) names the enclosing function's own local: inlined there, `step += 1` writes that
local itself, and the `nonlocal` line goes. That holds when the name is a local of the
enclosing function (not of a function around it) and no other scope of it -- another
closure, a lambda, a generator -- reads or writes the name: while training, the hooks carry
the value, and such a scope would read the local the hooks no longer update.
"""

from __future__ import annotations

import symtable

import libcst as cst
import libcst.matchers as m

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
    (None when it can): a free name that is no local of the enclosing function, or the
    enclosing function binding the closure's name again (its `nonlocal` names:
    nonlocal_refusal)."""
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
            continue  # nonlocal_refusal's question
        if symbol.is_free():
            mine = outer.lookup(free)
            if not (mine.is_local() or mine.is_parameter()):
                return f"`{free}`, read by closure `{name}`, is no local of `{owner}()`"
    return None


def nonlocal_refusal(ctx, func: cst.FunctionDef, inlined=frozenset()):
    """(why, the `nonlocal` naming it) when a name the closure `func` declares `nonlocal`
    would change meaning inlined into the function defining it: it is no local of that
    function, or another scope of it uses the name too (`inlined`: the closures inlined with
    `func`, whose uses become the function's own). None when every one keeps its meaning."""
    name, owner = func.name.value, ctx.function.name.value
    outer = _table(ctx.module.code_for_node(ctx.function).lstrip())
    declared = {
        n.name.value: found for found in m.findall(func.body, m.Nonlocal()) for n in found.names
    }
    for free, declaration in declared.items():
        mine = outer.lookup(free)
        if mine.is_free() or not (mine.is_local() or mine.is_parameter()):
            return f"`nonlocal {free}` in closure `{name}` names no local of `{owner}()`", declaration
        other = _other_user(outer, free, {name, *inlined})
        if other is not None:
            return (
                f"`{free}`, which closure `{name}` declares `nonlocal`, is used by `{other}` in "
                f"`{owner}()` too, which would not see the value the hooks carry while training",
                declaration,
            )
    return None


def nonlocal_lines(func: cst.FunctionDef) -> list[cst.SimpleStatementLine] | None:
    """The `nonlocal` statement lines standing in `func`'s own body (not in a block), or None
    when a `nonlocal` or `global` stands anywhere else in it (a block, a nested scope)."""
    lines = [
        stmt
        for stmt in func.body.body
        if isinstance(stmt, cst.SimpleStatementLine)
        and all(isinstance(small, cst.Nonlocal) for small in stmt.body)
    ]
    rest = [stmt for stmt in func.body.body if not any(stmt is line for line in lines)]
    if m.findall(cst.IndentedBlock(rest), m.Nonlocal() | m.Global()):
        return None
    return lines


def without_nonlocal(func: cst.FunctionDef) -> cst.FunctionDef:
    """`func` without its `nonlocal` lines: inlined into the enclosing function, the names
    they declare are its own locals."""
    lines = nonlocal_lines(func) or []
    body = [stmt for stmt in func.body.body if not any(stmt is line for line in lines)]
    return func.with_changes(body=func.body.with_changes(body=body))


def _other_user(outer: symtable.SymbolTable, name: str, inlined: set[str]) -> str | None:
    """A scope nested in `outer` (closures in `inlined` aside) that reads or writes `name` as
    `outer`'s: a free or `nonlocal` name of its own or of a scope inside it."""
    for child in outer.get_children():
        if child.get_name() in inlined and child.get_type() == "function":
            continue
        todo = [child]
        while todo:
            table = todo.pop()
            try:
                symbol = table.lookup(name)
            except KeyError:
                symbol = None
            if symbol is not None and (symbol.is_free() or symbol.is_nonlocal()):
                return f"{child.get_name()}" + ("()" if child.get_type() == "function" else "")
            todo += table.get_children()
    return None


def _table(code: str) -> symtable.SymbolTable:
    """The table of the one function `code` defines."""
    module = symtable.symtable(code, "<closure>", "exec")
    return module.get_children()[0]
