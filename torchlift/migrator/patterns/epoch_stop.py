"""Pattern: a `break` of the epoch loop after its batch loop -> `self.trainer.should_stop`.

    for epoch in range(N):
        <batch loop> [validation]
        if val_loss < best:            -> on_train_epoch_end:
            best, bad_epochs = val_loss, 0      ...
        else:
            bad_epochs += 1
            if bad_epochs >= patience:
                break                               self.trainer.should_stop = True

`on_train_epoch_end` runs after the epoch's training and validation, as the code did, and a
Trainer whose `should_stop` is set there starts no further epoch: training ends at the same
epoch. Refused (TL136): a `break` with code after it in the epoch (it would still run on the
last epoch), and a `break` in the code before the batch loop (the epoch's training would
still run).
"""

from __future__ import annotations

import libcst as cst

from ..rule import Rule
from .early_break import break_ends_its_blocks

EPOCH_BREAK = Rule(
    "TL136",
    "`break` of the epoch loop cannot become `trainer.should_stop` at the same epoch",
    """A `break` in the code after the batch loop (a patience counter, a target metric reached)
    becomes `self.trainer.should_stop = True` in `on_train_epoch_end`: the Trainer then starts
    no further epoch. That ends training where the script did only when the `break` is the
    last thing the epoch does; code after it would still run on the last epoch, and a `break`
    before the batch loop would still let that epoch train.""",
    """Make the stopping test the last statement of the epoch, or use an `EarlyStopping`
    callback on a logged metric by hand.""",
    """
    for epoch in range(3):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        if loss.item() < 0.1:
            break
        print(f"epoch {epoch} done")
    """,
)

RULES = (EPOCH_BREAK,)


def read(ctx, plan, steps) -> None:
    for stmt in ctx.found.get("epoch_breaks", ()):
        if stmt is not ctx.found.get("epoch_last") or not break_ends_its_blocks(stmt):
            ctx.block(
                EPOCH_BREAK,
                "code after the epoch loop's `break` would still run on the last epoch",
                stmt,
            )
            continue
        stopped = stmt.visit(_BreakToShouldStop())
        plan.post_train = [stopped if s is stmt else s for s in plan.post_train]
        plan.notes.append("the epoch loop's `break` sets trainer.should_stop")


class _BreakToShouldStop(cst.CSTTransformer):
    """`break` of the epoch loop (not of a loop inside it) -> `self.trainer.should_stop = True`."""

    def visit_For(self, node) -> bool:
        return False

    def visit_While(self, node) -> bool:
        return False

    def leave_Break(self, original_node, updated_node):
        return cst.parse_statement("self.trainer.should_stop = True\n").body[0]
