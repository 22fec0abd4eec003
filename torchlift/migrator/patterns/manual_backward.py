"""Pattern: one optimizer, backward() calls Lightning's automatic step cannot make ->
manual optimization, the script's step kept as written.

    for x, y_cls, y_reg in loader:                -> training_step(self, batch, batch_idx):
                                                        optimizer = self.optimizers()
        optimizer.zero_grad()                           optimizer.zero_grad()
        logits, reg = model(x)                          logits, reg = self(x)
        loss_main = F.cross_entropy(logits, y_cls)      ...
        loss_aux = F.mse_loss(reg, y_reg)
        loss_main.backward(retain_graph=True)           self.manual_backward(loss_main, retain_graph=True)
        (w * loss_aux).backward()                       self.manual_backward(w * loss_aux)
        optimizer.step()                                optimizer.step()

Lightning's automatic optimization calls backward() once per batch, on the loss
training_step returns, with no arguments. Two backward() calls add their gradients in the
order the script made them; one backward on their sum adds them in another order, which
changes the bits. A keyword (`retain_graph=True`, `create_graph=True`, `inputs=[...]`) or a
`gradient` argument is the script's choice of what autograd does. Under manual optimization
Lightning runs nothing between the statements of training_step, and `self.manual_backward`
hands its extra arguments to `loss.backward` unchanged: the step is the script's, call for
call (manual_optimization.py keeps it; this module only decides it is needed with one
optimizer). The logged `train_loss` is the first loss backward() is called on.

Only backward() calls that are statements of the batch loop itself are read here (a
conditional backward, or one in an inner loop, is the shape's and accumulation's to refuse),
and only a loop stepping exactly one torch.optim optimizer (several: manual_optimization.py;
none: hand_update.py).

Refused (TL114): mixed precision (the scaler's calls would need Lightning's precision plugin
around each backward), DDP or DataParallel (DDP's reducer all-reduces the gradients of one
backward per forward: a second backward's stay local to each process, checked with two gloo
processes), no named loss among the backward() calls (nothing to log as the step's loss).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..rule import Unsupported
from .accumulation import ACCUMULATION
from .amp import _AUTOCAST, SCALERS
from .bindings import optim_kind
from .manual_optimization import _step_calls

RULES = ()

_BACKWARD_CALL = m.Call(func=m.Attribute(attr=m.Name("backward")))


def batch_statements(ctx, stmts):
    """Note a batch loop that steps one optimizer and calls backward() more than once, or
    with arguments, as statements of its own: manual optimization keeps its step."""
    if "manual_optimizers" in ctx.found:
        return stmts
    optimizers = _stepped_optimizers(ctx, stmts)
    if len(optimizers) != 1 or _steps(stmts, next(iter(optimizers))) != 1:
        return stmts  # several updates per batch: not one step Lightning counts as one
    calls = [(stmt, call) for stmt in stmts for call in m.findall(stmt, _BACKWARD_CALL)]
    direct = [(stmt, call) for stmt, call in calls if _is_statement_call(stmt, call)]
    if not direct or len(direct) != len(calls):
        return stmts  # a backward() nested in an `if` or a loop: refused where it stands
    if len(direct) == 1 and not direct[0][1].args:
        return stmts  # the step Lightning's automatic optimization makes
    first = direct[0][0]
    times = {2: "twice"}.get(len(direct), f"{len(direct)} times")
    why = f"backward() called {times} per batch" if len(direct) > 1 else "backward() with arguments"
    _refuse_what_manual_cannot_keep(ctx, stmts, why, first)
    if not any(isinstance(call.func.value, cst.Name) for _, call in direct):
        raise Unsupported(
            ACCUMULATION,
            f"{why}, each on an expression: manual optimization keeps them, but no loss "
            "variable names the step's loss (bind one, `loss = ...`, and call "
            "`loss.backward(...)`)",
            first,
        )
    ctx.found["manual_optimizers"] = optimizers
    ctx.found["manual_backward"] = why
    ctx.found["manual_backward_stmt"] = first
    return stmts


def _stepped_optimizers(ctx, stmts) -> dict:
    """{name: its `step()` call} of the torch.optim optimizers the statements step, also
    through a scaler (`scaler.step(optimizer)`)."""
    found = {}
    for stmt in stmts:
        for call in _step_calls(stmt):
            names = [call.func.value, *(arg.value for arg in call.args)]
            for name in (n.value for n in names if isinstance(n, cst.Name)):
                if optim_kind(ctx, ctx.binding(name)[0]) == "optimizer":
                    found.setdefault(name, call)
    return found


def _steps(stmts, optimizer: str) -> int:
    """How many `step()` calls of `optimizer` the statements hold (`scaler.step(optimizer)`
    too)."""
    return sum(
        1
        for stmt in stmts
        for call in _step_calls(stmt)
        if optimizer
        in {
            n.value
            for n in (call.func.value, *(a.value for a in call.args))
            if isinstance(n, cst.Name)
        }
    )


def _is_statement_call(stmt, call: cst.Call) -> bool:
    """`stmt` is the expression statement `<receiver>.backward(...)` itself."""
    return m.matches(stmt, m.SimpleStatementLine(body=[m.Expr()])) and stmt.body[0].value is call


def _refuse_what_manual_cannot_keep(ctx, stmts, why: str, first) -> None:
    """Mixed precision around such a step: refused, naming it."""
    for stmt in stmts:
        for call in m.findall(stmt, m.Call()):
            func = call.func
            scaled = isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
            binding = ctx.binding(func.value.value)[0] if scaled else None
            if ctx.call_qualnames(call) & _AUTOCAST or (
                binding is not None
                and isinstance(binding[1], cst.Call)
                and ctx.call_qualnames(binding[1]) & SCALERS
            ):
                raise Unsupported(
                    ACCUMULATION,
                    f"{why} under mixed precision: manual optimization would keep the "
                    "scaler's calls, which Lightning's precision plugin does not see",
                    stmt,
                )


def read(ctx, plan, steps) -> None:
    why = ctx.found.get("manual_backward")
    if why is not None:
        plan.notes.append(
            f"{why}, kept as self.manual_backward calls (the gradients add up in the "
            "script's order)"
        )


def clean(ctx, plan) -> None:
    """DDP around such a step (also the DDP a DataParallel script becomes): refused (the
    facts of ddp, data_parallel and bindings, read before this phase)."""
    why = ctx.found.get("manual_backward")
    if why is None:
        return
    from .ddp import uses_ddp

    if uses_ddp(ctx) or ctx.found.get("data_parallel_conditions"):
        raise Unsupported(
            ACCUMULATION,
            f"{why} with DDP / DataParallel: DDP all-reduces the gradients of one backward "
            "per forward, what another backward() adds would differ between the processes",
            ctx.found["manual_backward_stmt"],
        )
