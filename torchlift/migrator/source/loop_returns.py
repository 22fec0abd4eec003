"""A bare `return` in the loop that ends a helper, as a `break` of that loop.

    def train(args, model, loader, optimizer, epoch):     ...
        for batch_idx, (data, target) in enumerate(loader):   for batch_idx, ... in ...:
            ...step...                                             ...step...
            if batch_idx % args.log_interval == 0:                 if batch_idx % ... == 0:
                print(...)                                              print(...)
                if args.dry_run:                            ->          if args.dry_run:
                    return                                                  break

When nothing follows the loop in the helper (or only a bare `return`), leaving the loop
by `break` falls off the helper's end: it returns None, as the `return` did, and both skip
the loop's `else:` and run the `__exit__` of the `with`s around the loop the same way. What
the `break` then becomes is the stop patterns' business (`limit_train_batches` for a dry run,
patterns/early_break.py), or their refusal at its line.

Left alone: a `return` with a value, one inside a loop nested in that loop (a `break` would
leave only the inner one), a loop with a `finally` inside (one holding `continue` could
swallow either differently), and any loop followed by statements of the helper (a `break`
would run them: helpers.py's refusal names them).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

_BARE_RETURN = m.Return(value=None) | m.Return(value=m.Name("None"))


def as_breaks(body: list) -> list:
    """`body` (a helper's statements) with the bare returns of its ending loop as breaks;
    `body` itself when it does not end in a loop (under `with`s) or none is such a return."""
    path = ending_loop(body)
    if path is None:
        return body
    *withs, loop = path
    if m.findall(loop.body, m.Try(finalbody=m.Finally())):
        return body
    new_body = loop.body.visit(_ReturnsAsBreaks())
    if new_body.deep_equals(loop.body):
        return body
    node = loop.with_changes(body=new_body)
    for outer in reversed(withs):
        block = [node if s is _last(outer.body.body) else s for s in outer.body.body]
        node = outer.with_changes(body=outer.body.with_changes(body=block))
    top = path[0]
    return [node if s is top else s for s in body]


def ending_loop(body: list) -> list | None:
    """[with, ..., loop]: the loop standing last in `body` (a bare `return` after it aside),
    through `with` blocks each standing last in its block; None otherwise."""
    stmts = list(body)
    if stmts and m.matches(stmts[-1], m.SimpleStatementLine([_BARE_RETURN])):
        stmts = stmts[:-1]
    path = []
    while stmts:
        last = stmts[-1]
        if isinstance(last, cst.With) and isinstance(last.body, cst.IndentedBlock):
            path.append(last)
            stmts = list(last.body.body)
            continue
        if isinstance(last, (cst.For, cst.While)) and isinstance(last.body, cst.IndentedBlock):
            if isinstance(last, cst.For) and last.asynchronous is not None:
                return None
            return [*path, last]
        return None
    return None


def _last(stmts):
    return stmts[-1] if stmts else None


class _ReturnsAsBreaks(cst.CSTTransformer):
    """Bare returns as breaks, outside nested loops, functions, classes and lambdas."""

    def visit_For(self, node) -> bool:
        return False

    def visit_While(self, node) -> bool:
        return False

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def leave_Return(self, original, updated):
        if m.matches(original, _BARE_RETURN):
            return cst.Break(semicolon=updated.semicolon)
        return updated
