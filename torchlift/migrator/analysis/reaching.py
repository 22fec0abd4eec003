"""The binding of a name that reaches a node, in a scope's structured code.

    model = MLP()                          # bound here...
    optimizer = SGD(model.parameters())
    train(model, optimizer)                # ...reaches this call
    model = MLP()                          # a second run: bound again
    optimizer = SGD(model.parameters())
    train(model, optimizer)                # only the second binding reaches this one

Notebooks and recipes bind the same names again before each call (one cell per learning rate,
a fresh model and optimizer loaded from a checkpoint). Which value a call sees is the last
binding before it on the way from the scope's body down to it, when that binding is a plain
statement of one of those bodies (it runs whenever the call does). None -- unknown -- when the
nearest binding before the call is inside a block (an `if` may not run it, a loop may run it
zero times), or when a loop around the call, but not around that binding, binds the name too
(its next iteration sees that binding instead), or a `try` whose handler holds the call binds
it in its body (which may have stopped after that binding).
"""

from __future__ import annotations

import libcst as cst

from ..shapes.enclosing import blocks
from ..source.find_loops import cst_contains
from .names import bound_names

_REBINDING_AROUND = (cst.For, cst.While, cst.Try, cst.TryStar)


def reaching_binding(scope: cst.CSTNode, name: str, node: cst.CSTNode) -> cst.CSTNode | None:
    """The plain statement of `scope` (a module or function) binding `name` whose value
    `node` (a call, a statement) sees; None when that is not one such statement."""
    path = _path(scope, node)
    for level in range(len(path) - 1, -1, -1):
        body, index = path[level]
        for stmt in reversed(body[:index]):
            if name not in bound_names(stmt):
                continue
            if not isinstance(stmt, cst.SimpleStatementLine):
                return None  # bound in a block: may or may not have run
            # a later iteration sees the loop's own binding; an `except` / `else` / `finally`
            # block sees what the `try` body bound before it stopped
            around = [b[i] for b, i in path[level:] if isinstance(b[i], _REBINDING_AROUND)]
            if any(name in bound_names(holder) for holder in around):
                return None
            return stmt
    return None


def loops_around(scope: cst.CSTNode, node: cst.CSTNode) -> list[cst.For | cst.While]:
    """The loops of `scope` (not of a nested function) holding `node`, outermost first."""
    return [body[i] for body, i in _path(scope, node) if isinstance(body[i], (cst.For, cst.While))]


def _path(scope: cst.CSTNode, node: cst.CSTNode) -> list[tuple[list, int]]:
    """(statement list, index of the statement holding `node`) from the scope's body down to
    the innermost statement list holding it."""
    body = list(scope.body if isinstance(scope, cst.Module) else scope.body.body)
    path: list[tuple[list, int]] = []
    while True:
        holding = [i for i, stmt in enumerate(body) if cst_contains(stmt, node)]
        if not holding:
            return path
        path.append((body, holding[0]))
        stmt = body[holding[0]]
        if stmt is node or isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return path  # a nested scope's own statements are not this scope's
        inner = [list(block) for block in blocks(stmt) if any(cst_contains(s, node) for s in block)]
        if not inner:
            return path  # in the compound statement's header (`if train(...):`)
        body = inner[0]
