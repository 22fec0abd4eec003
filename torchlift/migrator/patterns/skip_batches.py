"""Pattern: `continue` in the batch loop -> `training_step` returns None for that batch.

    for x, y in loader:
        if torch.isnan(y).any():
            continue                  -> return None
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()

When `training_step` returns None, Lightning (and the runtime) still zero the gradients but
skip backward(), and the optimizer step finds no gradient: no parameter moves, as when the
script skipped the batch. That holds only while the `continue` comes before backward(), so
that the script never stepped on that batch. Refused (TL135): a `continue` after backward()
(the script stepped, or went on with computed gradients), and a `continue` together with a
per-step scheduler, gradient accumulation or `max_steps` (Lightning still counts the skipped
batch as a step for those), with code after the step that moved to `on_train_batch_end`
(Lightning calls that hook on a skipped batch too; the script's `continue` skipped it), and in
a multi-process (DDP) conversion (a batch skipped on one process would leave the others
waiting in backward()). A `continue` of a loop nested in the batch loop is that loop's own.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.statements import OwnLoopTransformer
from ..rule import Rule

SKIPPED_BATCH = Rule(
    "TL135",
    "`continue` in the batch loop cannot become `return None` from training_step",
    """A batch skipped with `continue` becomes `training_step` returning None: Lightning then
    skips backward() and the optimizer finds no gradient to apply. That is only what the script
    did when the `continue` comes before backward(). After backward() the script may already
    have stepped, and with a per-step scheduler, gradient accumulation or `max_steps` Lightning
    still counts the skipped batch as an optimizer step.""",
    """Skip the batch before computing the loss's gradient (move the check above backward()),
    or filter the data in the dataset or sampler.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            if loss.item() > 10:
                continue
            optimizer.step()
    """,
)

RULES = (SKIPPED_BATCH,)


def direct_continues(node: cst.CSTNode) -> list[cst.Continue]:
    """`continue` statements of the loop enclosing `node` (not of a loop or def inside it)."""
    found = []
    if isinstance(node, (cst.For, cst.While)):
        node = node.body
    for child in node.children:
        if isinstance(child, cst.Continue):
            found.append(child)
        elif not isinstance(child, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            found.extend(direct_continues(child))
    return found


def read(ctx, plan, steps) -> None:
    skips = [(p, s) for p, s in steps["body"] if direct_continues(s)]
    if not skips:
        return
    for position, stmt in skips:
        if position > steps["backward"]:
            ctx.block(
                SKIPPED_BATCH,
                "`continue` after backward(): the script kept or applied that batch's "
                "gradients, a skipped training_step would not",
                stmt,
            )
    first = skips[0][1]
    if any(o.scheduler and o.interval == "step" for o in plan.optimizers):
        ctx.block(
            SKIPPED_BATCH,
            "`continue` with a per-step scheduler: Lightning steps the scheduler on a "
            "skipped batch too",
            first,
        )
    if steps.get("accumulate") is not None:
        ctx.block(SKIPPED_BATCH, "`continue` with gradient accumulation", first)
    if any(keyword == "max_steps" for keyword, _ in plan.trainer_args):
        ctx.block(
            SKIPPED_BATCH, "`continue` with max_steps: a skipped batch counts as a step", first
        )
    if plan.after_step or plan.hook_pieces.get("on_train_batch_end"):
        # Lightning calls on_train_batch_end after a training_step that returned None too
        ctx.block(
            SKIPPED_BATCH,
            "`continue` with code after optimizer.step() moved to on_train_batch_end: "
            "Lightning runs that hook on a skipped batch too, the script skipped that code",
            first,
        )
    arguments = dict(plan.trainer_args)
    if "strategy" in arguments or arguments.get("devices", "1") != "1":
        # a step skipped on one process only would leave the others waiting in backward()
        ctx.block(SKIPPED_BATCH, "`continue` in a multi-process (DDP) conversion", first)
    plan.step_rewrites.append(lambda node: node.visit(_ContinueToReturnNone()))
    plan.notes.append("a skipped batch (`continue`) returns None from training_step")


class _ContinueToReturnNone(OwnLoopTransformer):
    """`continue` of the batch loop (not of a loop inside it) -> `return None`."""

    def leave_Continue(self, original_node, updated_node):
        if self.depth:
            return updated_node
        return cst.Return(value=cst.Name("None"))
