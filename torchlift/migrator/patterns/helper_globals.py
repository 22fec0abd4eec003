"""Pattern: per-epoch helpers that declare `global` names (`global best_acc` in `test(epoch)`).

    best_acc = 0                         best_acc = 0
    def test(epoch):                     class LitNet(L.LightningModule):   (test() inlined)
        global best_acc                      def on_train_epoch_end(self):
        ...                          ->          ...
        best_acc = acc                           self.best_acc = acc
    for epoch in range(3):               ...
        train(epoch)                     trainer.fit(lit_model, trainloader, testloader)
        test(epoch)                      best_acc = lit_model.best_acc      (carried back)

A helper's `global x` makes its `x = ...` write the module's `x`. Its `global` lines go when
it is inlined, and the declared names keep their spelling (never prefixed as helper locals):
- loop at module level: the inlined statement writes that same module name; the
  LightningModule carries it as state and its final value is read back after `trainer.fit`;
- loop in a function: the names stay module globals that the generated methods declare
  `global` where they assign them (patterns/module_globals.py), so every write lands in the
  module at the moment the script made it.

Refused (TL130): a `global` that is not at the top of the helper's body, a declared name that
is one of its parameters or a local of the function holding the loop (inlined there, both
would be one name), or -- loop at module level -- a declared name another module-level
function reads (it would see the module's value, not the one the hooks carry while training).
"""

from __future__ import annotations

import symtable

import libcst as cst

from ..analysis.names import bound_names, node_kinds
from ..rule import Rule, Unsupported

HELPER_GLOBAL = Rule(
    "TL130",
    "a per-epoch helper's `global` name would change meaning once inlined",
    """A helper that declares `global x` writes the module's `x`, and it is inlined into the
    epoch loop. That keeps its meaning unless `x` is also a local of the function holding the
    loop, one of the helper's parameters, or (loop at module level, where `x` is carried as
    LightningModule state during training) read by another function.""",
    """Rename the helper's global or the function's local so they differ, or return the value
    from the helper instead of declaring it global.""",
    """
    best = 0.0


    def evaluate(epoch):
        global best
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        best = max(best, loss.item())


    def main():
        best = None
        for epoch in range(2):
            evaluate(epoch)
        print(best)


    main()
    """,
)

RULES = (HELPER_GLOBAL,)


def declared_globals(ctx, func: cst.FunctionDef, stmt, inlined: set[str]) -> tuple[list, set[str]]:
    """(the helper's body without its `global` lines, the names they declare), or
    Unsupported when inlining would change what those names mean. `inlined`: the helpers
    the epoch loop calls (inlined too, so their reads follow the same state)."""
    body, declared = [], set()
    for item in func.body.body:
        small = item.body if isinstance(item, cst.SimpleStatementLine) else ()
        if small and all(isinstance(s, cst.Global) for s in small):
            declared |= {n.name.value for s in small for n in s.names}
            continue
        body.append(item)
    name = func.name.value
    if "global" in _kinds_below_top(body):
        raise Unsupported(HELPER_GLOBAL, f"helper `{name}` declares `global` inside a block", stmt)
    if not declared:
        return body, declared
    if ctx.in_function:
        local = _function_locals(ctx) - set(ctx.found.get("function_globals", ()))
        if declared & local:
            shared = sorted(declared & local)[0]
            raise Unsupported(
                HELPER_GLOBAL,
                f"helper `{name}` declares `global {shared}` but `{shared}` is a local of "
                f"`{ctx.function.name.value}`, where the loop is: inlined there, both would "
                "be one name",
                stmt,
            )
    params = {p.name.value for p in (*func.params.posonly_params, *func.params.params)}
    params |= {p.name.value for p in func.params.kwonly_params}
    if declared & params:
        raise Unsupported(HELPER_GLOBAL, f"helper `{name}` declares its parameter global", stmt)
    if ctx.in_function:  # the hooks write them as module globals (module_globals.py)
        ctx.found.setdefault("hook_globals", set()).update(declared)
        return body, declared
    readers = _other_readers(ctx, declared, inlined)
    if readers:
        who, what = readers[0]
        raise Unsupported(
            HELPER_GLOBAL,
            f"`{what}`, declared global in helper `{name}`, is also used by function `{who}`, "
            "which would not see the value the hooks carry during training",
            stmt,
        )
    ctx.found.setdefault("helper_globals", set()).update(declared)
    return body, declared


def _function_locals(ctx) -> set[str]:
    """Every name the function holding the loop binds (its parameters included)."""
    names = set(ctx.params)
    for stmt in ctx.function.body.body:
        names |= bound_names(stmt)
    return names


def _kinds_below_top(body) -> set[str]:
    kinds: set[str] = set()
    for stmt in body:
        kinds |= node_kinds(stmt)
    return kinds


def _other_readers(ctx, names: set[str], inlined: set[str]) -> list[tuple[str, str]]:
    """(function, name) for module-level functions and classes, other than the inlined
    helpers, that refer to one of `names` as a global (symtable: Python's own scoping).
    """
    found = []
    for stmt in ctx.module.body:
        if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) or stmt.name.value in inlined:
            continue
        table = symtable.symtable(ctx.module.code_for_node(stmt).lstrip(), "<def>", "exec")
        for used in sorted(names & _global_uses(table)):
            found.append((stmt.name.value, used))
    return found


def _global_uses(table: symtable.SymbolTable) -> set[str]:
    """Names some nested scope of `table` reads or writes as module globals."""
    used = set()
    for child in table.get_children():
        for symbol in child.get_symbols():
            if symbol.is_global() and (symbol.is_referenced() or symbol.is_assigned()):
                used.add(symbol.get_name())
        used |= _global_uses(child)
    return used
