"""Pattern: a loop at the top of the epoch that draws no data -> on_train_epoch_start.

    for epoch in range(n_epochs):
        for metric in metrics:              -> on_train_epoch_start, where the script ran it
            metric.reset()
        for x, y in train_loader:
            ...

A loop before the batch loop stays where the script ran it (on_train_epoch_start: before the
epoch's first step, after the previous epoch's end) when nothing in it depends on that place
being more than "the epoch's start": it iterates no loader (analysis/loader_iteration.py's
data flow: a DataLoader's iterator draws its seed from torch's generator, which Lightning
draws before this hook for its own loader), steps no optimizer or scheduler, and reaches no
model (a forward may draw from torch's generator too -- dropout -- and none of its names says
so: a read of the model, of a name holding its objects or of an object built on it, or a call
of the script's function reaching it). Draws by name (`torch.rand`) are loader_rng.py's
business, as for any other statement there; a loop setting the learning rate on
`param_groups` is lr_decay.py's. Any other loop there is refused (TL109), naming what it does.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.function_reads import functions_reading
from ..analysis.loader_iteration import loader_iterations
from ..analysis.model_holders import holders_of
from ..analysis.model_views import model_views
from ..analysis.names import collect_names
from ..analysis.plain_objects import optimizer_calls
from ..analysis.statements import statements
from ..shapes.context import EPOCH_STATEMENT

RULES = ()


def draws_nothing(ctx, stmt) -> bool:
    """`stmt`'s loops are `for` loops over what is no loader, and it calls no `.step()` /
    `.zero_grad()` that may be an optimizer's; the model is checked once known (`read`)."""
    loops = [s for s in statements(stmt) if isinstance(s, (cst.For, cst.While))]
    if any(isinstance(loop, cst.While) for loop in loops):
        return False  # how often it runs is no iterable's length: not followed
    if loader_iterations(ctx, stmt) or optimizer_calls(ctx.module, stmt):
        return False
    ctx.found.setdefault("epoch_start_loops", []).append(stmt)
    return True


def read(ctx, plan, steps) -> None:
    loops = ctx.found.get("epoch_start_loops", ())
    if not loops or not plan.models:
        return
    models = {n for model in plan.models for n in (model.name, *model.aliases)}
    optimizers = {optimizer.name for optimizer in plan.optimizers}
    models |= model_views(ctx.scope_before, models, optimizers, ctx.module)
    reaching = models | functions_reading(ctx.module, models)
    reaching |= set(holders_of(ctx, models)) - optimizers
    helpers = ctx.found.get("inlined_from", {})
    for loop in loops:
        used = sorted(collect_names(loop).reads & reaching)
        if used:
            helper = helpers.get(id(loop))
            where = f" (in `{helper}()`, called before it)" if helper else ""
            ctx.block(
                EPOCH_STATEMENT,
                f"loop before the training batch loop in the epoch{where} reaches the model "
                f"through `{used[0]}`: a forward there may draw from torch's generator "
                "(dropout) after Lightning drew the epoch's loader seed",
                loop,
            )
