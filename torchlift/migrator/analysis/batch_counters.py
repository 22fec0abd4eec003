"""A batch loop ended by a hand counter: `if cnt >= K: break` after `cnt += 1` counts K batches.

    cnt = 0                        (the epoch's code, before the loop: written nowhere else)
    for image, target in loader:
        cnt += 1                   (one top-level increment, every batch: no `continue`)
        ...
        if cnt >= K:               (`>=` or `==`; the loop's last statement)
            break                  -> the loop ran its first K batches (K >= 1: the caller's)

The PyTorch quantization tutorials count their batches so (source/early_returns.py turns their
`return` into this `break`). The counter is 0 before the first batch and counts each batch
once before the test, so the test first holds at the K-th batch, after its step.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .names import collect_names

_BREAK_ONLY = m.IndentedBlock([m.SimpleStatementLine([m.Break()])])


def counted_limit(ctx, stmt, loop: cst.For, loop_body: list, epoch: list, closing=False):
    """K of `stmt`, the `if cnt >= K: break` ending `loop` (whose statements before it are
    `loop_body`), when `cnt` counts the batches from 0; None otherwise. `epoch`: every
    statement of the epoch loop, the batch loop's among them or not. `closing`: the `if` may
    run statements before its `break` (`print("-" * 80); break`): they run on batch K, the
    last one, and the caller keeps them under the `if`."""
    test = m.Comparison(
        left=m.Name(),
        comparisons=[m.ComparisonTarget(operator=m.GreaterThanEqual() | m.Equal())],
    )
    if not m.matches(stmt, m.If(test=test, orelse=None)):
        return None
    if not m.matches(stmt.body, _BREAK_ONLY) and not (closing and _closing_break(stmt.body)):
        return None
    counter = stmt.test.left.value
    limit = stmt.test.comparisons[0].comparator
    if counter in collect_names(limit).reads:
        return None
    if any(counter in collect_names(g).all() for g in m.findall(ctx.module, m.Global())):
        return None  # a function may count too
    if m.findall(cst.IndentedBlock(loop_body), m.Continue()):
        return None  # a batch whose increment is skipped
    step = m.SimpleStatementLine(
        [m.AugAssign(target=m.Name(counter), operator=m.AddAssign(), value=m.Integer("1"))]
    )
    increments = [s for s in loop_body if m.matches(s, step)]
    if len(increments) != 1 or _writes(cst.IndentedBlock(loop_body), counter) != increments:
        return None
    if counter in collect_names(cst.AssignTarget(loop.target)).writes:
        return None
    outside = [s for s in _writes(cst.IndentedBlock(epoch), counter) if not _inside(s, loop)]
    zero = m.SimpleStatementLine([m.Assign([m.AssignTarget(m.Name(counter))], m.Integer("0"))])
    if len(outside) != 1 or not m.matches(outside[0], zero):
        return None
    if not _runs_before(epoch, outside[0], loop):
        return None
    return limit


def _closing_break(block) -> bool:
    """`block` is statements without flow of their own, then a lone `break`."""
    if not isinstance(block, cst.IndentedBlock) or len(block.body) < 2:
        return False
    *before, last = block.body
    flow = m.Break() | m.Continue() | m.Return() | m.Raise() | m.Yield()
    return m.matches(last, m.SimpleStatementLine([m.Break()])) and not any(
        m.findall(s, flow) for s in before
    )


def _writes(node, name: str) -> list:
    """The statements in `node` binding `name` (a loop or `with` header binding it counts)."""
    found = [s for s in m.findall(node, m.SimpleStatementLine()) if name in collect_names(s).writes]
    for header in m.findall(node, m.For() | m.With() | m.CompFor()):
        bound = (
            [header.target]
            if not isinstance(header, cst.With)
            else [item.asname.name for item in header.items if item.asname is not None]
        )
        if any(name in collect_names(cst.AssignTarget(t)).writes for t in bound):
            found.append(header)
    return found


def _inside(stmt, loop) -> bool:
    return any(s is stmt for s in m.findall(loop, m.SimpleStatementLine()))


def _runs_before(epoch: list, zero, loop) -> bool:
    """`zero` runs unconditionally before `loop` each epoch: a top-level statement of the
    epoch before it, or one of a `with` block holding the loop, before it."""
    blocks = [epoch]
    blocks += [
        w.body.body for w in m.findall(cst.IndentedBlock(epoch), m.With()) if _holds(w, loop)
    ]
    for block in blocks:
        at = next((k for k, s in enumerate(block) if s is zero), None)
        if at is None:
            continue
        holder = next((k for k, s in enumerate(block) if s is loop or _holds(s, loop)), None)
        return holder is not None and at < holder
    return False


def _holds(stmt, loop) -> bool:
    return any(s is loop for s in m.findall(stmt, m.For()))
