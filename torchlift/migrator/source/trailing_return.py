"""A function's final `return`, at its end or as the last statement of the `with` blocks it
ends with (the spatial-transformer tutorial's `test()`):

    def test(model, loader):
        with torch.no_grad():
            ...
            return test_loss, correct

The return is the function's last act when every `with` around it exits quietly
(analysis/quiet_exits.py): inlined, the `with`s stay and the returned value is assigned where
the `return` stood, inside them (`put_last`). A `return` inside a `with` followed by more
statements, or inside any other manager, is no final return (helpers.py refuses it, TL111).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst


def final_return(
    body: list, quiet: Callable[[cst.With], bool]
) -> tuple[cst.Return | None, int, list]:
    """(the final `return`, how many `with`s hold it, `body` without it); (None, 0, body)
    when the function does not end in one. `quiet(with)`: its exit is invisible to a caller."""
    if not body:
        return None, 0, body
    last = body[-1]
    if _is_return(last):
        return last.body[0], 0, body[:-1]
    if isinstance(last, cst.With) and isinstance(last.body, cst.IndentedBlock) and quiet(last):
        found, depth, inner = final_return(list(last.body.body), quiet)
        if found is not None:
            kept = last.with_changes(body=last.body.with_changes(body=inner or [_pass()]))
            return found, depth + 1, [*body[:-1], kept]
    return None, 0, body


def holding_withs(body: list) -> list[cst.With]:
    """The `with`s ending `body`, outermost first (a return may stand last in each)."""
    out = []
    while body and isinstance(body[-1], cst.With) and isinstance(body[-1].body, cst.IndentedBlock):
        out.append(body[-1])
        body = list(body[-1].body.body)
    return out


def put_last(body: list, depth: int, stmt: cst.BaseStatement | None) -> list:
    """`body` with `stmt` added as the last statement of its `depth`-th trailing `with` (a
    `pass` standing alone there, left by final_return, replaced)."""
    if stmt is None:
        return body
    if depth == 0:
        return [*body, stmt]
    last = body[-1]
    inner = list(last.body.body)
    if len(inner) == 1 and _is_pass(inner[0]) and depth == 1:
        inner = []
    inner = put_last(inner, depth - 1, stmt)
    return [*body[:-1], last.with_changes(body=last.body.with_changes(body=inner))]


def _is_return(stmt) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Return)
    )


def _is_pass(stmt) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Pass)
    )


def _pass() -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Pass()])
