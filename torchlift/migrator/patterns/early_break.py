"""Pattern: `break` after `optimizer.step()` -> end the epoch early, as the script did.

    optimizer.step()
    if i == limit:
        break                  -> self.stop_epoch = True

`on_train_epoch_start` resets the flag and `on_train_batch_start` returns -1 while it is set,
which makes Lightning end the epoch (validation still runs). Refused (TL107): a `break`
before the optimizer step (the step would be skipped for that batch).
"""

from __future__ import annotations

import libcst as cst

from ..analysis.statements import direct_breaks
from ..shapes.context import CONTROL_FLOW

RULES = ()


def read(ctx, plan, steps) -> None:
    breaks = [(p, s) for p, s in steps["body"] if direct_breaks(s)]
    if not breaks:
        return
    for position, stmt in breaks:
        if position < steps["optimizer_step"]:
            ctx.block(
                CONTROL_FLOW, "`break` before optimizer.step() cannot be kept faithfully", stmt
            )
    plan.hook_pieces.setdefault("on_train_epoch_start", []).append("self.stop_epoch = False")
    plan.hook_pieces.setdefault("on_train_batch_start", []).append(
        "if self.stop_epoch:\n    return -1"
    )
    plan.step_rewrites.append(lambda node: node.visit(_BreakToFlag()))


class _BreakToFlag(cst.CSTTransformer):
    """`break` of the batch loop (not of a loop inside it) -> `self.stop_epoch = True`."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0

    def visit_For(self, node) -> None:
        self.depth += 1

    def leave_For(self, original_node, updated_node):
        self.depth -= 1
        return updated_node

    def visit_While(self, node) -> None:
        self.depth += 1

    def leave_While(self, original_node, updated_node):
        self.depth -= 1
        return updated_node

    def leave_Break(self, original_node, updated_node):
        if self.depth:
            return updated_node
        return cst.parse_statement("self.stop_epoch = True\n").body[0]
