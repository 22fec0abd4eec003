"""Pattern: a second evaluation pass in the epoch (an EMA copy of the model evaluated after the
model itself), refused with its own reason.

    for epoch in range(N):
        ...batch loop...
        acc = evaluate(model, val_loader)      -> validation_step (one validation loop)
        ema_acc = evaluate(ema, val_loader)    -> no second validation loop: refused (TL179)

Lightning runs one validation loop per epoch. Two passes are not one pass computing both: each
`iter(DataLoader)` draws from the global RNG, so folding the second pass into the first would
shift every later shuffle and dropout mask, and the model left in eval mode by the first pass
would not be the one the second pass sees. Recognised after helper inlining (the passes are
often `evaluate(net, loader)` calls) and after eval_shapes put the first pass in its canonical
form: any later loop over a loader, without backward() or optimizer calls, is a second pass.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.statements import BACKWARD, OPTIMIZER_CALL, contains
from ..rule import Rule, Unsupported
from .eval_passes import eval_loop_of

SECOND_EVALUATION = Rule(
    "TL179",
    "a second evaluation pass in the epoch (e.g. over an EMA copy of the model)",
    """Lightning runs one validation loop per epoch, and the conversion maps the script's
    first evaluation pass onto it. A second pass over a loader in the same epoch (the model's
    EMA copy, a second metric) has no Lightning loop of its own, and folding it into the first
    changes the random numbers each `iter(DataLoader)` draws.""",
    """Evaluate both models in one pass (one loop computing both metrics), or evaluate the
    second model after training.""",
    """
    val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
    ema = nn.Linear(4, 2)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            for x, y in val_loader:
                print(criterion(model(x), y).item())
        with torch.no_grad():
            for x, y in val_loader:
                print(criterion(ema(x), y).item())
    """,
)

RULES = (SECOND_EVALUATION,)


def epoch_body(ctx, stmts):
    """Unchanged; Unsupported (TL179) when more than one evaluation pass follows the batch
    loop."""
    batch_at = next((i for i, s in enumerate(stmts) if contains(s, BACKWARD)), None)
    if batch_at is None:
        return stmts
    passes = [s for s in stmts[batch_at + 1 :] if _evaluation_pass(ctx, s) is not None]
    if len(passes) < 2:
        return stmts
    first, second = (_evaluation_pass(ctx, s) for s in passes[:2])
    others = sorted(_called(second) - _called(first))
    over = f" over `{others[0]}`" if others else ""
    raise Unsupported(
        SECOND_EVALUATION,
        f"a second evaluation pass in the epoch{over}: Lightning runs one validation loop per "
        "epoch (the script iterates the loader twice, drawing from the global RNG each time)",
        passes[1],
    )


def _evaluation_pass(ctx, stmt) -> cst.For | None:
    """The batch loop of `stmt` when it is a pass over a loader that does not train."""
    found = eval_loop_of(ctx, stmt)
    loop = found[1] if found is not None else stmt
    if not isinstance(loop, cst.For) or contains(loop, BACKWARD | OPTIMIZER_CALL):
        return None
    loader = ctx.unwrap_iter(loop)[0]
    if found is None and not (isinstance(loader, cst.Name) and ctx.is_loader_name(loader.value)):
        return None
    return loop


def _called(loop: cst.For) -> set[str]:
    """Names the pass calls as functions (the model it evaluates among them)."""
    return {call.func.value for call in m.findall(loop, m.Call(func=m.Name()))}
