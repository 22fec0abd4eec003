"""Pattern: a second evaluation pass in the epoch (an EMA copy of the model evaluated after the
model itself) -> a second validation dataloader over the same loader.

    for epoch in range(N):
        ...batch loop...
        acc = evaluate(model, val_loader)      -> validation_step(batch, batch_idx, dataloader_idx)
        ema_acc = evaluate(ema, val_loader)       `if dataloader_idx == 0: ... else: ...`
                                               -> trainer.fit(..., [val_loader, val_loader])

Lightning runs its validation dataloaders one after the other and calls `iter()` on each when
it is reached, so the loader is iterated twice, in the script's order, and each `iter()` draws
from the global RNG where the script's did (merge_passes.py says what may stand between the
passes). Recognised after helper inlining (the passes are often `evaluate(net, loader)` calls)
and after eval_shapes put the first pass in its canonical form: any later loop over a loader,
without backward() or optimizer calls, is a second pass. Refused (TL179): a third pass, and
passes with code between them that would show moving (a call that may draw random numbers or
change what a pass computes, a name both sides use, the model's mode switched).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.statements import BACKWARD, OPTIMIZER_CALL, contains
from ..rule import Rule, Unsupported
from .eval_passes import eval_loop_of
from .merge_passes import merge

SECOND_EVALUATION = Rule(
    "TL179",
    "a second evaluation pass in the epoch (e.g. over an EMA copy of the model)",
    """The conversion runs a second pass over a loader in the same epoch (the model's EMA copy)
    as a second validation dataloader: Lightning iterates them one after the other, each
    `iter(DataLoader)` drawing from the global RNG where the script's did. The statements
    between the two passes then run before both or after both; that is refused when it could
    show: a call that may draw random numbers or change what a pass computes (weights swapped
    in and out), a name both sides use, the model's mode switched between them, a third pass.""",
    """Compute what the code between the passes needs after both, or evaluate both models in
    one loop.""",
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
        noise = torch.randn(4, 4)
        with torch.no_grad():
            for x, y in val_loader:
                print(criterion(ema(x + noise), y).item())
    """,
)

RULES = (SECOND_EVALUATION,)


def epoch_body(ctx, stmts):
    """Two evaluation passes after the batch loop as one over two dataloaders
    (merge_passes); Unsupported (TL179) when they cannot be, or more follow."""
    batch_at = next((i for i, s in enumerate(stmts) if contains(s, BACKWARD)), None)
    if batch_at is None:
        return stmts
    passes = [s for s in stmts[batch_at + 1 :] if _evaluation_pass(ctx, s) is not None]
    if len(passes) < 2:
        return stmts
    first, second = (_evaluation_pass(ctx, s) for s in passes[:2])
    others = sorted(_called(second) - _called(first))
    over = f" over `{others[0]}`" if others else ""
    why, at = ("a third pass follows", passes[2]) if len(passes) > 2 else (None, None)
    if why is None:
        merged, found = merge(ctx, stmts, passes[0], passes[1], stmts[batch_at])
        if merged is not None:
            ctx.found["more_val_loaders"] = [found]
            return merged
        why, at = found
    raise Unsupported(
        SECOND_EVALUATION,
        f"a second evaluation pass in the epoch{over}, not run as a second validation "
        f"dataloader: {why}",
        at if at is not None else passes[1],
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


def clean(ctx, plan) -> None:
    """(After every pattern read the loop.) The second pass's loader is only a validation
    dataloader, or the training loader (read in the module as `self.trainer.train_dataloader`,
    the same object): the test loop's (`self.trainer.test_dataloaders`, None while fitting)
    would be two things at once."""
    validation = plan.validation
    if validation is None or not validation.more_loaders or plan.test is None:
        return
    for name in validation.more_loaders:
        if name == plan.test.loader:
            ctx.block(
                SECOND_EVALUATION,
                f"the second evaluation pass iterates `{name}`, which the conversion also "
                "hands to the Trainer for testing",
                validation.anchor,
            )
