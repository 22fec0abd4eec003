"""Pattern: one optimizer's whole step under an `if` -> manual optimization, kept as written.

    for t in count():                              -> training_step(self, batch, batch_idx):
        action = select_action(state)                   optimizer = self.optimizers()
        ...                                              action = select_action(state)
        memory.push(state, action, next_state, r)        ...
        if not len(memory) < BATCH_SIZE:                 if not len(memory) < BATCH_SIZE:
            transitions = memory.sample(BATCH_SIZE)          ...
            loss = criterion(q, expected)                    loss = criterion(q, expected)
            optimizer.zero_grad()                            optimizer.zero_grad()
            loss.backward()                                  self.manual_backward(loss)
            optimizer.step()                                 optimizer.step()
        <soft update of the target network>              <soft update of the target network>

The DQN tutorial learns only once its replay memory holds a batch (`if len(memory) <
BATCH_SIZE: return` first in `optimize_model()`, which step_inline.py inlines as the `if`
above). Lightning's automatic optimization steps on every batch; under manual optimization it
runs nothing between the statements of training_step, so the script's test, its optimizer
calls and the code after them (which reads the stepped model) run in the script's order
(manual_optimization.py keeps the statements; this module only decides it is needed).

Taken: a loop stepping exactly one torch.optim optimizer, once, where one `if` statement of
the loop (no `else`) holds every backward() and every call on that optimizer. Accumulation
(backward() every batch, the step under a test) and a test known before training are other
patterns'. Refused (TL114): mixed precision (the scaler's calls would need Lightning's
precision plugin), DDP or DataParallel (a step one process skips would leave the others
waiting for its gradients).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.statements import BACKWARD, contains
from ..rule import Unsupported
from .accumulation import ACCUMULATION
from .manual_backward import _refuse_what_manual_cannot_keep, _stepped_optimizers, _steps

RULES = ()

_OPTIMIZER_CALL = m.Call(
    func=m.Attribute(value=m.Name(), attr=m.Name("step") | m.Name("zero_grad"))
)


def batch_statements(ctx, stmts):
    """Note a loop whose one optimizer steps, with its backward(), only under one `if`."""
    if "manual_optimizers" in ctx.found:
        return stmts
    optimizers = _stepped_optimizers(ctx, stmts)
    if len(optimizers) != 1:
        return stmts
    name = next(iter(optimizers))
    if _steps(stmts, name) != 1:
        return stmts
    holders = [s for s in stmts if contains(s, BACKWARD) or _calls_on(s, name)]
    if len(holders) != 1 or not isinstance(holders[0], cst.If) or holders[0].orelse is not None:
        return stmts
    guard = holders[0]
    if not contains(guard.body, BACKWARD) or contains(guard.test, BACKWARD):
        return stmts
    if _calls_on(guard.test, name):
        return stmts
    why = "the optimizer step taken under an `if`"
    _refuse_what_manual_cannot_keep(ctx, stmts, why, guard)
    ctx.found["manual_optimizers"] = optimizers
    ctx.found["guarded_step"] = guard
    return stmts


def _calls_on(node, name: str) -> bool:
    """Whether `node` calls `<name>.step()` or `<name>.zero_grad()`."""
    return any(call.func.value.value == name for call in m.findall(node, _OPTIMIZER_CALL))


def read(ctx, plan, steps) -> None:
    if ctx.found.get("guarded_step") is not None:
        plan.loss_every_step = False  # the loss is bound only on the batches that step
        plan.notes.append(
            "the optimizer steps only when the script's `if` says so: manual optimization "
            "keeps that test and the step as written"
        )


def clean(ctx, plan) -> None:
    """DDP around such a step (also the DDP a DataParallel script becomes): refused."""
    guard = ctx.found.get("guarded_step")
    if guard is None:
        return
    from .ddp import uses_ddp

    if uses_ddp(ctx) or ctx.found.get("data_parallel_conditions"):
        raise Unsupported(
            ACCUMULATION,
            "the optimizer step taken under an `if` with DDP / DataParallel: a process whose "
            "test is False would leave the others waiting for its gradients",
            guard,
        )
