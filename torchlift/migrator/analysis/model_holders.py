"""Objects the script builds from its model, whose methods may read or change the model.

    ema = EMA(model, 0.999)                                   ema.update() reads the model;
    ema = ExponentialMovingAverage(model.parameters(), 0.99)  ema.copy_to(...) changes it
    averaged = AveragedModel(model)

A hand-written EMA class keeps the model (or its parameters) it was given: `ema.update()` after
`optimizer.step()` reads the weights the step wrote, though the statement names no model.
torch.optim's optimizers and schedulers hold the parameters too, but what reads them is the
step sequence's own business (patterns/after_step.py follows their state separately).
"""

from __future__ import annotations

import libcst as cst

from .names import collect_names


def holders_of(ctx, models: set[str]) -> dict[str, cst.Call]:
    """Names bound in the loop's scope before it to a call given a model or something read
    from one (`model.parameters()`), with that call; not the models themselves, nor
    torch.optim optimizers and schedulers (`torch.optim.swa_utils.AveragedModel` is one)."""
    found: dict[str, cst.Call] = {}
    for stmt in ctx.scope_before:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for assign in stmt.body:
            if not isinstance(assign, cst.Assign) or not isinstance(assign.value, cst.Call):
                continue
            value = assign.value
            if not collect_names(cst.SimpleStatementLine([cst.Expr(value)])).reads & models:
                continue
            if _optimizer(ctx, value):
                continue
            for target in assign.targets:
                if isinstance(target.target, cst.Name) and target.target.value not in models:
                    found[target.target.value] = value
    return found


def _optimizer(ctx, value: cst.Call) -> bool:
    return any(
        q.startswith("torch.optim.") and not q.startswith("torch.optim.swa_utils.")
        for q in ctx.call_qualnames(value)
    )
