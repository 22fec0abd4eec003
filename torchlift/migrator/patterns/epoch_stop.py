"""Pattern: a `break` of the epoch loop after its batch loop -> `self.trainer.should_stop`.

    for epoch in range(N):
        <batch loop> [validation]
        if val_loss < best:            -> on_train_epoch_end:
            best, bad_epochs = val_loss, 0      ...
        else:
            bad_epochs += 1
            if bad_epochs >= patience:
                break                               self.trainer.should_stop = True
        adjust_learning_rate(...)                   return      (only when code follows)
                                                ...  (the rest of the epoch's code)

`on_train_epoch_end` runs after the epoch's training and validation, as the code did, and a
Trainer whose `should_stop` is set there starts no further epoch: training ends at the same
epoch. Code after the `break` in the epoch (an lr adjustment, a scheduler step, prints, a
checkpoint) stays after it in that hook, which the `break` leaves by `return`: on the stopping
epoch it does not run, as in the script. The hook is the script's epoch code and nothing else
(hook pieces go first), so the `return` skips nothing the Trainer would have run. An epoch
scheduler stepped after the `break` is stepped by the module in place (schedulers.py), not by
Lightning, which would step it after the hook also on the stopping epoch.

Refused (TL136): code after the `break` inside the block that holds it; code after it that
another pattern takes out of the epoch's end (a validation pass, which Lightning runs before
`on_train_epoch_end`, its setup, a hand-set rate turned into a scheduler); a `break` before
the batch loop (the epoch's training would still run: TL107).
"""

from __future__ import annotations

import libcst as cst

from ..analysis.statements import direct_breaks
from ..rule import Rule
from .early_break import break_ends_its_blocks

EPOCH_BREAK = Rule(
    "TL136",
    "`break` of the epoch loop cannot become `trainer.should_stop` at the same epoch",
    """A `break` in the code after the batch loop (a patience counter, a target metric reached)
    becomes `self.trainer.should_stop = True` in `on_train_epoch_end`: the Trainer then starts
    no further epoch. Code after the `break` stays after it in that hook, which the `break`
    leaves by `return`, so it does not run on the stopping epoch. That holds only for code
    the hook keeps: a validation pass after the `break` runs before `on_train_epoch_end`
    (Lightning validates first), so it would also run on the stopping epoch; and code after
    the `break` in the block that holds it would run on it too.""",
    """Test the stopping condition after the validation pass (it is the pass's result that
    usually decides), or use an `EarlyStopping` callback on a logged metric by hand.""",
    """
    val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))
    for epoch in range(3):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        if loss.item() < 0.1:
            break
        val_loss = 0.0
        with torch.no_grad():
            for x, y in val_loader:
                val_loss += criterion(model(x), y).item()
        print(f"epoch {epoch}: val loss {val_loss:.4f}")
    """,
)

RULES = (EPOCH_BREAK,)


def read(ctx, plan, steps) -> None:
    post = ctx.found.get("epoch_post", [])
    for stmt in ctx.found.get("epoch_breaks", ()):
        if not break_ends_its_blocks(stmt):
            ctx.block(
                EPOCH_BREAK,
                "code after the epoch loop's `break` in its own block would still run on the "
                "last epoch",
                stmt,
            )
            continue
        moved = _moved_after(plan, post, stmt)
        if moved:
            validation = ctx.found.get("validation_stmt")
            if any(s is validation for s in moved):
                reason = (
                    "validation pass after the epoch loop's `break`: Lightning runs it before "
                    "on_train_epoch_end, also on the stopping epoch"
                )
                ctx.block(EPOCH_BREAK, reason, validation)
            else:
                reason = (
                    "code after the epoch loop's `break` is taken out of on_train_epoch_end "
                    "(to another hook or the Trainer), where it would also run on the "
                    "stopping epoch"
                )
                ctx.block(EPOCH_BREAK, reason, moved[0])
            continue
        at = next(i for i, s in enumerate(plan.post_train) if s is stmt)
        followed = at + 1 < len(plan.post_train)
        stopped = stmt.visit(BreakToShouldStop(followed))
        plan.post_train = [stopped if s is stmt else s for s in plan.post_train]
        plan.notes.append("the epoch loop's `break` sets trainer.should_stop")


def _moved_after(plan, post, stmt) -> list:
    """The statements the script ran after `stmt` in the epoch that are no longer in the
    epoch's end code (another pattern took them to another hook or to the Trainer); empty
    when all of them stay, in the hook the `break` leaves. An epoch check max_steps.py turned
    into `max_steps=` (a `break` of its own) ends training too, and may go."""
    at = next((i for i, s in enumerate(post) if s is stmt), None)
    kept = {id(s) for s in plan.post_train}
    later = post[at + 1 :] if at is not None else []
    return [s for s in later if id(s) not in kept and not direct_breaks(s)]


class BreakToShouldStop(cst.CSTTransformer):
    """`break` of the loop (not of a loop inside it) -> `self.trainer.should_stop = True`, and
    `return` when code follows it in the hook (so that code does not run). Also a step loop's
    `break` after the step (after_step.py)."""

    def __init__(self, followed: bool) -> None:
        super().__init__()
        self.followed = followed

    def visit_For(self, node) -> bool:
        return False

    def visit_While(self, node) -> bool:
        return False

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if not any(isinstance(small, cst.Break) for small in updated_node.body):
            return updated_node
        stop = cst.parse_statement("self.trainer.should_stop = True\n").body[0]
        body = [stop if isinstance(small, cst.Break) else small for small in updated_node.body]
        line = updated_node.with_changes(body=body)
        if not self.followed:
            return line
        return cst.FlattenSentinel([line, cst.parse_statement("return\n")])
