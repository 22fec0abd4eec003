"""A function's final returns: the `return`s it ends with, each the last act of a path.

A `return` is final when it stands last in the function's body, last in a `with` block ending
a body where every such `with` exits quietly (analysis/quiet_exits.py; the spatial-transformer
tutorial's `test()` returns from inside `with torch.no_grad():`), or last in each branch of an
`if` / `elif` / `else` ending a body, every branch then ending in one:

    def test(model, loader):                   def train(model, loader, best):
        with torch.no_grad():                      ...
            ...                                    if acc > best:
            return test_loss, correct                  print("new best")
                                                       return acc
                                                   else:
                                                       return best

Every path through such a function ends in one of them, and nothing runs after it but the
quiet exits: inlined, each is replaced where it stands by what the caller does with the value
(`target = value`), the `with`s and `if`s staying (`replace_final`). A `return` followed by
more statements, inside any other manager, or in an `if` without an `else` (the function may
fall off its end past it) is no final return (helpers.py refuses it, TL111).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst


def final_returns(body: list, quiet: Callable[[cst.With], bool]) -> list[cst.Return] | None:
    """The `return`s `body` ends with (see the docstring), in source order; None when it can
    end without one. `quiet(with)`: its exit is invisible to a caller."""
    if not body:
        return None
    last = body[-1]
    if _is_return(last):
        return [last.body[0]]
    if isinstance(last, cst.With) and isinstance(last.body, cst.IndentedBlock) and quiet(last):
        return final_returns(list(last.body.body), quiet)
    if isinstance(last, cst.If):
        found: list[cst.Return] = []
        for block in _branches(last):
            if isinstance(block, cst.SimpleStatementSuite):  # `else: return best` on one line
                ends = block.body and isinstance(block.body[-1], cst.Return)
                inner = [block.body[-1]] if ends else None
            else:
                inner = final_returns(list(block.body), quiet) if block is not None else None
            if inner is None:
                return None
            found += inner
        return found
    return None


def ends_in_branches(body: list, quiet: Callable[[cst.With], bool]) -> cst.If | None:
    """The `if` ending `body` (inside its quiet trailing `with`s), when it has one."""
    while body:
        last = body[-1]
        if isinstance(last, cst.If):
            return last
        if not (isinstance(last, cst.With) and isinstance(last.body, cst.IndentedBlock)):
            return None
        if not quiet(last):
            return None
        body = list(last.body.body)
    return None


class ReplaceReturns(cst.CSTTransformer):
    """Each `return` replaced by `make(value)` -- a small statement, or None to drop it (a
    block left empty gets `pass`). `origin`: id of a statement -> the one it copies, carried
    over to the statements rebuilt around a replaced return (for refusals naming lines).
    Applied to a function's statements holding only final returns (no nested function)."""

    def __init__(self, make, origin: dict) -> None:
        self.make, self.origin = make, origin

    def leave_Return(self, original, updated):
        new = self.make(updated.value)
        return cst.RemoveFromParent() if new is None else new

    def on_leave(self, original, updated):
        updated = super().on_leave(original, updated)
        if isinstance(updated, cst.SimpleStatementLine) and not updated.body:
            return cst.RemoveFromParent()
        if isinstance(updated, cst.IndentedBlock) and not updated.body:
            updated = updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        if isinstance(updated, cst.SimpleStatementSuite) and not updated.body:
            updated = updated.with_changes(body=[cst.Pass()])
        if (
            isinstance(updated, cst.CSTNode)
            and updated is not original
            and id(original) in self.origin
        ):
            self.origin[id(updated)] = self.origin[id(original)]
        return updated


def replace_final(body: list, make, origin: dict) -> list:
    """`body` with its returns replaced (ReplaceReturns); a top-level statement left empty
    is dropped."""
    out = []
    for stmt in body:
        new = stmt.visit(ReplaceReturns(make, origin))
        if isinstance(new, cst.CSTNode):
            out.append(new)
    return out


def _branches(stmt: cst.If) -> list:
    """The blocks of an `if` / `elif` / `else` chain, None standing for a missing `else`."""
    out = []
    while isinstance(stmt, cst.If):
        out.append(stmt.body)
        stmt = stmt.orelse
    out.append(stmt.body if stmt is not None else None)
    return out


def _is_return(stmt) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Return)
    )
