"""Pattern: `for ... else` on the batch loop -> the `else` block after the loop.

    for e in range(epochs):
        for images, labels in trainloader:
            ...step...
        else:                              (online-course notebooks: validation here)
            with torch.no_grad(): ...      -> after the batch loop, as epoch code
            print(running_loss)

A loop's `else` block runs when the loop ends without `break`. With no `break` leaving the
batch loop it runs after every complete pass, exactly like statements written after the loop,
so it is moved there and read as the epoch's usual code (evaluation pass, prints). A batch
loop that can `break` keeps its `else` and is refused (TL107): Lightning has no "the epoch
ended early" branch to put it in.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.statements import BACKWARD, contains, direct_breaks

RULES = ()


def epoch_body(ctx, stmts):
    """The epoch body with the batch loop's `else` block (when no `break` can skip it)
    written after the loop instead."""
    for at, stmt in enumerate(stmts):
        if not (isinstance(stmt, cst.For) and contains(stmt, BACKWARD)):
            continue
        orelse = stmt.orelse
        if orelse is None or direct_breaks(stmt) or not isinstance(orelse.body, cst.IndentedBlock):
            return stmts
        moved = list(orelse.body.body)
        if not moved:
            return stmts
        # comments above `else:` belong to the first statement it held
        moved[0] = moved[0].with_changes(
            leading_lines=[*orelse.leading_lines, *moved[0].leading_lines]
        )
        return [*stmts[:at], stmt.with_changes(orelse=None), *moved, *stmts[at + 1 :]]
    return stmts
