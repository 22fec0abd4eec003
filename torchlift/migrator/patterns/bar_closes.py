"""`bar.close()` in an `if` of the loop, beside the `break` it precedes: dropped with the bar.

    train_iterator = trange(epochs)           (an epoch bar: shapes/epoch_batch.py)
    for _ in train_iterator:
        epoch_iterator = tqdm(loader)         (a bar bound in the epoch: bound_bar.py)
        for step, batch in enumerate(epoch_iterator):
            ...
            if max_steps > 0 and global_step > max_steps:
                epoch_iterator.close()        -> removed: it only closed a bar that is
                break                            gone (the Trainer draws its own)
        if max_steps > 0 and global_step > max_steps:
            train_iterator.close()            -> removed
            break

The Hugging Face examples of the run_glue / run_lm_finetuning era write this on their
`max_steps` stop. Only a statement that is exactly `bar.close()`, in a block of an `if` /
`elif` / `else` (nested `if`s too) holding other statements, where no other code of that `if`
mentions the bar; the `if` is kept with its other statements (what its `break` becomes is the
stop patterns' business). Any other use of the bar keeps its refusal (TL101 / TL104).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.statements import call_method

RULES = ()


def closes_in(stmt, name: str) -> list | None:
    """The `name.close()` lines of the `if` statement `stmt` when they are every mention of
    `name` in it, each beside other statements of its block; else None."""
    if not isinstance(stmt, cst.If):
        return None
    found = _close_lines(stmt, name)
    if not found or len(m.findall(stmt, m.Name(name))) != len(found):
        return None
    return found


def _close_lines(stmt: cst.If, name: str) -> list | None:
    found = []
    for block in _blocks(stmt):
        if not isinstance(block, cst.IndentedBlock):
            return None  # `if t: bar.close(); break` on one line: not read here
        lines = [s for s in block.body if _is_close(s, name)]
        if lines and len(lines) == len(block.body):
            return None  # the block would be left empty
        found += lines
        for inner in block.body:
            if isinstance(inner, cst.If):
                nested = _close_lines(inner, name)
                if nested is None:
                    return None
                found += nested
    return found


def _blocks(stmt: cst.If):
    """The blocks of an `if` / `elif` / `else` chain."""
    node = stmt
    while isinstance(node, cst.If):
        yield node.body
        node = node.orelse
    if isinstance(node, cst.Else):
        yield node.body


def _is_close(stmt, name: str) -> bool:
    return m.matches(call_method(stmt, "close"), m.Name(name)) and not stmt.body[0].value.args


def strip(ctx, stmts: list, names) -> list:
    """`stmts` with the `close()` lines of the bars `names` dropped from their `if`s (the `if`
    rebuilt, standing on the original's line for a refusal; the lines recorded in
    found["bar_closes"] for the change log)."""
    out = []
    for stmt in stmts:
        lines = [line for name in names for line in (closes_in(stmt, name) or ())]
        if not lines:
            out.append(stmt)
            continue
        ctx.found.setdefault("bar_closes", []).extend(lines)
        out.append(_without(ctx, stmt, {id(line) for line in lines}))
    return out


def _without(ctx, node, drop: set[int]):
    """`node` (an `if`, `elif` or `else`) without the statements `drop`, rebuilt only along
    the way to them; a rebuilt `if` stands on its original's line for a refusal (engine.py
    reads helpers.py's `inlined_at`)."""
    body = [
        _without(ctx, s, drop) if isinstance(s, cst.If) and _holds(s, drop) else s
        for s in node.body.body
        if id(s) not in drop
    ]
    changes = {"body": node.body.with_changes(body=body)}
    orelse = getattr(node, "orelse", None)
    if orelse is not None and _holds(orelse, drop):
        changes["orelse"] = _without(ctx, orelse, drop)
    new = node.with_changes(**changes)
    origins = ctx.found.setdefault("inlined_at", {})
    origins[id(new)] = origins.get(id(node), node)
    return new


def _holds(node, drop: set[int]) -> bool:
    return any(id(s) in drop for s in m.findall(node, m.SimpleStatementLine()))


def epoch_body(ctx, stmts):
    """The closes of the epoch bar (shapes/epoch_batch.py) and of a bar bound in the epoch
    (bound_bar.py, run before this in progress_bar's epoch_body) at epoch level."""
    return strip(ctx, stmts, _bars(ctx))


def batch_statements(ctx, stmts):
    return strip(ctx, stmts, _bars(ctx))


def _bars(ctx) -> list[str]:
    names = []
    epoch_bar = ctx.found.get("epoch_bar_name")
    if epoch_bar is not None:
        names.append(epoch_bar)
    bound = ctx.found.get("progress_bar")
    if bound is not None:
        names.append(bound[0])
    return names


def bind(ctx, plan, steps) -> None:
    why = "progress bar's close() -> removed with the bar (the Trainer draws its own)"
    plan.explained.extend((line, None, why) for line in ctx.found.get("bar_closes", ()))
