"""Pattern: a tqdm bar opened with `with` in the epoch, around the batch loop iterating it.

    for epoch in range(N):
        with tqdm(loader, unit="batch") as tepoch:   -> tepoch = tqdm(loader, unit="batch")
            for x, y in tepoch:                         for x, y in tepoch:
                tepoch.set_description(...)                 ...
                ...                            (then bound_bar.py: the binding and the display
                tepoch.set_postfix(loss=...)    calls go, the batch loop iterates `loader`)

(the DataCamp / freeCodeCamp tutorials' spelling). `tqdm.__enter__` returns the bar itself and
its `__exit__` only closes it (it suppresses nothing): the `with` is the binding of a bar the
batch loop iterates, followed by a `close()`. Written as that binding, the bar is read by
bound_bar.py like one bound by an assignment: converted when only its display calls use it,
refused there (TL104) naming any other use (`tepoch.n`, the bar handed on, read after the `with`).

Left alone: a `with` of several items, or whose bar the first loop calling backward() in it
does not iterate.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.qualnames import TQDM
from ..analysis.statements import BACKWARD, contains

RULES = ()


def epoch_body(ctx, stmts):
    """The epoch body with the `with tqdm(...) as bar:` holding the batch loop written as
    `bar = tqdm(...)` followed by the `with`'s body."""
    for at, stmt in enumerate(stmts):
        if not contains(stmt, BACKWARD):
            continue
        name = _bar_alias(ctx, stmt)
        if name is None:
            return stmts
        binding = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(name))], stmt.items[0].item)],
            leading_lines=stmt.leading_lines,
        )
        # a refusal naming the binding names the `with`'s line (or the helper's call)
        inlined_at = ctx.found.setdefault("inlined_at", {})
        inlined_at[id(binding)] = inlined_at.get(id(stmt), stmt)
        inlined_from = ctx.found.get("inlined_from", {})
        if id(stmt) in inlined_from:  # the bar is a local of an inlined helper
            inlined_from[id(binding)] = inlined_from[id(stmt)]
        return [*stmts[:at], binding, *stmt.body.body, *stmts[at + 1 :]]
    return stmts


def _bar_alias(ctx, stmt) -> str | None:
    """`bar` when `stmt` is `with tqdm(<loader>, ...) as bar:` whose first statement calling
    backward() is a `for` loop iterating `bar` (possibly in `enumerate(bar)`)."""
    if not isinstance(stmt, cst.With) or stmt.asynchronous is not None or len(stmt.items) != 1:
        return None
    item = stmt.items[0]
    bar = item.item
    if not (
        item.asname is not None
        and isinstance(item.asname.name, cst.Name)
        and isinstance(bar, cst.Call)
        and ctx.call_qualnames(bar) & TQDM
        and bar.args
        and bar.args[0].keyword is None
        and not bar.args[0].star
        and isinstance(stmt.body, cst.IndentedBlock)
    ):
        return None
    name = item.asname.name.value
    loop = next((s for s in stmt.body.body if contains(s, BACKWARD)), None)
    if not isinstance(loop, cst.For):
        return None
    iterated = ctx.unwrap_iter(loop)[0]
    return name if m.matches(iterated, m.Name(name)) else None
