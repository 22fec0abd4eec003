"""The validation pass of a DDP script, kept when both engines evaluate as the script did.

    if args.distributed:                                  (sampler.py)
        val_sampler = DistributedSampler(val_set, shuffle=False)   -> removed: Lightning's own
    else:                                                  for an evaluation loader is the same
        val_sampler = SequentialSampler(val_set)           (no shuffle, seed 0, the last samples
    val_loader = DataLoader(val_set, sampler=val_sampler)   repeated so every rank gets as many)
    ...
    for epoch in range(N):
        ...batch loop...
        correct = torch.zeros(1)                           -> on_validation_epoch_start
        with torch.no_grad():
            for x, y in val_loader: correct += ...         -> validation_step, on each rank's shard
        if args.distributed:
            dist.all_reduce(correct)                       -> kept as written in the epoch-end
        if is_main_process(): print(...)                     hook: every rank runs it, the group
                                                             exists in both engines
Refused: an evaluation loader every rank iterates whole (Lightning would shard it), or
sharded by a sampler Lightning would not build (TL167 / TL162, sampler.py); a model that may
hold buffers (buffers.py: Lightning's validation_step goes through the DDP wrapper, which
broadcasts them, the runtime's does not) (TL167); `dist.all_reduce` other than of the pass's
own counters after it (TL163, reduces.py); a test pass after training (TL167).

Epoch code the conversion keeps in a hook (`if rank == 0: evaluate(model.module,
test_loader)`, run by rank 0 only, over a loader the Trainer never sees) runs as written; but
when it runs the DDP wrapper itself (`evaluate(model, ...)`, `model(x)`), the wrapper's forward
broadcasts buffers where the converted code, calling the model, does not: refused unless the
model provably holds none (TL167).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.statements import BACKWARD, OPTIMIZER_CALL, contains
from ...source.code_text import code_of
from .buffers import buffers_held
from .facts import Facts
from .rules import EVAL_UNDER_DDP


def read_evaluation(ctx, plan, facts: Facts) -> None:
    evaluation = plan.validation
    if evaluation is None:
        return
    if not facts.eval_sharded:
        return  # refused in sampler.py
    why = buffers_held(ctx, _model_names(plan, facts))
    if why is not None:
        ctx.block(
            EVAL_UNDER_DDP,
            f"{why}; Lightning evaluates through the DDP wrapper (which broadcasts rank 0's "
            "buffers), the runtime does not",
            evaluation.anchor,
        )


def _model_names(plan, facts: Facts) -> set[str]:
    """Every name the model goes by: its own, its aliases, its DDP wrappers."""
    return {*facts.wrappers, *(n for model in plan.models for n in (model.name, *model.aliases))}


def read_wrapper_runs(facts: Facts, epoch: list) -> None:
    """Statements of the epoch's code that run the DDP wrapper outside the training step (as
    written: the conversion reads `model.module` and the wrapper alike as the model): those
    besides the batch loop, and those of the batch loop after its backward() and optimizer
    calls (an evaluation every N steps, kept in on_train_batch_end)."""
    wrappers = {name for name in facts.wrappers if name not in facts.unwrapped}
    for stmt in [s for e in epoch for s in _outside_step(e)]:
        use = _wrapper_run(stmt, wrappers)
        if use is not None:
            facts.wrapper_runs.append((stmt, use))


def _outside_step(stmt) -> list:
    """`stmt` itself, or the statements of a batch loop after its last backward() that call
    no optimizer."""
    if not contains(stmt, BACKWARD):
        return [stmt]
    if not isinstance(stmt, cst.For) or not isinstance(stmt.body, cst.IndentedBlock):
        return []
    body = list(stmt.body.body)
    last = max(i for i, s in enumerate(body) if contains(s, BACKWARD) or i == 0)
    return [s for s in body[last + 1 :] if not contains(s, OPTIMIZER_CALL)]


def check_wrapper_forwards(ctx, plan, facts: Facts) -> None:
    """Epoch code kept in hooks that runs the DDP wrapper (calls it, or hands it to a
    function) needs a model without buffers: the conversion calls the model itself."""
    if not facts.wrapper_runs:
        return
    stmt, use = facts.wrapper_runs[0]
    why = buffers_held(ctx, _model_names(plan, facts))
    if why is not None:
        ctx.block(
            EVAL_UNDER_DDP,
            f"`{use}` runs the DDP wrapper outside the training step, and {why}: the "
            "wrapper's forward broadcasts rank 0's buffers, the converted code's call of the "
            "model does not",
            stmt,
        )


def _wrapper_run(stmt, wrappers: set[str]) -> str | None:
    """The code of a call in `stmt` that runs a wrapper: `model(...)`, or `f(..., model, ...)`."""
    for call in m.findall(stmt, m.Call()):
        runs = isinstance(call.func, cst.Name) and call.func.value in wrappers
        runs = runs or any(
            isinstance(arg.value, cst.Name) and arg.value.value in wrappers for arg in call.args
        )
        if runs:
            return code_of(call)
    return None
