"""A helper's batch loop returning after a count of batches, as the same loop with a `break`.

    def train_one_epoch(model, criterion, optimizer, loader, ntrain_batches):
        cnt = 0
        for image, target in loader:            for image, target in loader:
            cnt += 1                                 cnt += 1
            ...step...                               ...step...
            if cnt >= ntrain_batches:       ->       if cnt >= ntrain_batches:
                print("Loss", avgloss.avg)               break
                return                           if cnt >= ntrain_batches:
        print("Full train set: ...")                 print("Loss", avgloss.avg)
        return                                   else:
                                                     print("Full train set: ...")

The PyTorch quantization tutorials write this (`train_one_epoch(..., ntrain_batches)`,
`evaluate(..., neval_batches)` under `no_grad`). The rewrite is exact: the test is the last
statement of the loop and reads only the counter and the limit, so after the loop it has the
value it had at the last batch -- true when the loop broke, false when the loader ran out (or
was empty: the counter is still 0, below a limit of at least 1). The early return and the
final one must return the same thing (the same expression, or nothing). What the `break`
becomes is the stop patterns' business (`limit_train_batches`, patterns/early_break.py).

Read only in this shape: a counter bound `cnt = 0` before the loop and written only by one
`cnt += 1` standing in the loop body before the test; a test `cnt >= N`, `cnt == N` or
`cnt > N` with N a parameter the helper never rebinds, given an int >= 1 for sure (or an int
literal); no other `return`, no `break` or `continue` in the loop. Anything else keeps
helpers.py's refusal (TL111).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names

_COMPARE = m.GreaterThanEqual() | m.Equal() | m.GreaterThan()


def as_break(
    func: cst.FunctionDef,
    body: list,
    final_value: cst.BaseExpression | None,
    limit_ok: Callable[[str], bool],
) -> list:
    """`body` (the helper's statements, its final `return` taken off: `final_value` is what it
    returned) with a counted early return as a `break`; `body` itself when the shape differs.
    `limit_ok(parameter)`: the call gives that parameter an int >= 1 for sure."""
    returns = m.findall(cst.IndentedBlock(body), m.Return())
    if len(returns) != 1:
        return body
    path = _path_to_loop(body, returns[0])
    if path is None:
        return body
    *withs, loop = path
    test = _counted_test(func, body, loop, limit_ok)
    if test is None:
        return body
    check = loop.body.body[-1]
    early = check.body.body[-1].body[0].value
    if not _same(early, final_value):
        return body
    before = check.body.body[:-1]  # what ran at the last batch, before the return
    block = withs[-1].body.body if withs else body
    at = next(k for k, s in enumerate(block) if s is loop)
    after = list(block[at + 1 :])
    if withs and body[-1] is not withs[0]:
        return body  # code after the `with`: it would run after the early return too
    stop = check.with_changes(body=check.body.with_changes(body=[_line(cst.Break())]))
    new_loop = loop.with_changes(body=loop.body.with_changes(body=[*loop.body.body[:-1], stop]))
    tail = _branches(test, before, after)
    new_block = [*block[:at], new_loop, *tail]
    if not withs:
        return new_block
    return _rebuild(body, withs, new_block)


def _path_to_loop(body: list, ret: cst.Return) -> list | None:
    """[with, ..., for] from `body` down to the `for` whose last `if` holds `ret` last."""
    for stmt in body:
        if isinstance(stmt, cst.With) and isinstance(stmt.body, cst.IndentedBlock):
            rest = _path_to_loop(list(stmt.body.body), ret)
            if rest is not None:
                return [stmt, *rest]
        if isinstance(stmt, cst.For) and _returns_last(stmt, ret):
            return [stmt]
    return None


def _returns_last(loop: cst.For, ret: cst.Return) -> bool:
    if loop.orelse is not None or loop.asynchronous is not None:
        return False
    if not isinstance(loop.body, cst.IndentedBlock) or not loop.body.body:
        return False
    check = loop.body.body[-1]
    return (
        isinstance(check, cst.If)
        and check.orelse is None
        and isinstance(check.body, cst.IndentedBlock)
        and m.matches(check.body.body[-1], m.SimpleStatementLine([m.Return()]))
        and check.body.body[-1].body[0] is ret
    )


def _counted_test(func, body: list, loop: cst.For, limit_ok) -> cst.BaseExpression | None:
    """The loop's last test, `cnt >= N`, when it counts batches from 0 to a limit >= 1."""
    test = loop.body.body[-1].test
    shape = m.Comparison(
        left=m.Name(), comparisons=[m.ComparisonTarget(operator=_COMPARE, comparator=m.Name())]
    )
    if not m.matches(test, shape):
        return None
    counter, limit = test.left.value, test.comparisons[0].comparator.value
    params = {p.name.value for p in func.params.params}
    if limit not in params or limit_ok is None or not limit_ok(limit):
        return None
    everything = cst.IndentedBlock(body)
    if limit in collect_names(everything).writes:
        return None
    if m.findall(loop, m.Break() | m.Continue()):
        return None  # another way out, or a batch whose test is skipped
    lines = m.findall(everything, m.SimpleStatementLine())
    writes = [s for s in lines if counter in collect_names(s).writes]
    headers = m.findall(everything, m.For() | m.With() | m.CompFor())
    if any(counter in collect_names(_header(h)).writes for h in headers):
        return None  # bound by a loop or a `with` too
    zero = m.SimpleStatementLine([m.Assign([m.AssignTarget(m.Name(counter))], m.Integer("0"))])
    step = m.SimpleStatementLine(
        [m.AugAssign(target=m.Name(counter), operator=m.AddAssign(), value=m.Integer("1"))]
    )
    inner = list(loop.body.body[:-1])
    if len(writes) != 2 or not m.matches(writes[0], zero) or not any(s is writes[1] for s in inner):
        return None
    if not m.matches(writes[1], step):
        return None
    if not _before(body, writes[0], loop):
        return None
    return test


def _header(node):
    """What a `for` / `with` / comprehension binds, as an assignment collect_names reads."""
    if isinstance(node, cst.With):
        targets = [cst.AssignTarget(i.asname.name) for i in node.items if i.asname is not None]
        if not targets:
            return cst.Pass()
        return cst.Assign(targets, cst.Integer("0"))
    return cst.Assign([cst.AssignTarget(node.target)], cst.Integer("0"))


def _before(body: list, first, loop) -> bool:
    """`first` is a top-level statement of a block holding the loop, before it."""
    for block in [body, *(s.body.body for s in m.findall(cst.IndentedBlock(body), m.With()))]:
        ids = [id(s) for s in block]
        if id(first) in ids:
            holder = next((k for k, s in enumerate(block) if s is loop or _holds(s, loop)), None)
            return holder is not None and ids.index(id(first)) < holder
    return False


def _holds(stmt, loop) -> bool:
    return isinstance(stmt, cst.With) and any(s is loop for s in m.findall(stmt, m.For()))


def _same(early, final) -> bool:
    if early is None or final is None:
        return early is None and final is None
    return early.deep_equals(final)


def _line(small) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([small])


def _branches(test, before: list, after: list) -> list:
    """After the loop: what the return's branch ran before returning, when the test holds,
    else what followed the loop."""
    if not before and not after:
        return []
    if after:  # the blank lines above the loop's follower stay above the `if`
        after = [after[0].with_changes(leading_lines=[]), *after[1:]]
    if not after:
        return [cst.If(test=test, body=cst.IndentedBlock(before))]
    if not before:
        negated = cst.UnaryOperation(cst.Not(), test)
        return [cst.If(test=negated, body=cst.IndentedBlock(after))]
    return [
        cst.If(
            test=test,
            body=cst.IndentedBlock(before),
            orelse=cst.Else(body=cst.IndentedBlock(after)),
        )
    ]


def _rebuild(body: list, withs: list, new_block: list) -> list:
    """`body` with the innermost `with`'s block replaced (the `with`s rebuilt outward)."""
    node = withs[-1].with_changes(body=withs[-1].body.with_changes(body=new_block))
    for outer, inner in zip(reversed(withs[:-1]), reversed(withs[1:])):
        block = [node if s is inner else s for s in outer.body.body]
        node = outer.with_changes(body=outer.body.with_changes(body=block))
    return [node if s is withs[0] else s for s in body]
