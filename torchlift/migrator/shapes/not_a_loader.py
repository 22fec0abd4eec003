"""Why a batch loop's iterable is no loader the Trainer can be given (TL104), said precisely.

for x, y in prefetch(loader):          -> "iterates the loader `loader` through
                                          `prefetch(...)`, a wrapper of the script's"
batches = prefetch(loader)             -> the same, naming `batches` and pointing at the
for x, y in batches:                      line binding it in the epoch (that the epoch
                                          rebinds it, TL116, is not the cause)
pbar = tqdm(zip(xs, loader))           -> "iterates `pbar`, bound here to `tqdm(...)` over
for x, y in pbar:                         `zip(xs, loader)`"
for xb, yb in learn.data.train_dl:     -> "iterates `learn.data.train_dl`, an attribute of an
                                          object" (what an object holds is not followed)
"""

from __future__ import annotations

import libcst as cst

from ..analysis.statements import single_assign
from ..rule import Unsupported
from .context import NOT_A_LOADER, LoopContext

_NOT_A_NAME = (
    "a loader name or range(...) (manual batching over zip or chunks is not converted; use a "
    "DataLoader)"
)


def refusal(ctx: LoopContext, loop, iterator, bound=None) -> Unsupported:
    """TL104 for a batch loop iterating `iterator` -- what the name `bound[0]` the loop
    iterates stands for, bound by the statement `bound[1]` (a bar's `tqdm(...)`), if any."""
    through = _through(ctx, iterator)
    if bound is None and isinstance(iterator, cst.Attribute):
        code = ctx.module.code_for_node(iterator)
        return Unsupported(
            NOT_A_LOADER,
            f"batch loop iterates `{code}`, an attribute of an object: what an object holds "
            "is not followed to a loader (bind the loader to a name before the epoch loop)",
            loop,
        )
    if bound is None:
        why = f"iterates {through}" if through else f"does not iterate {_NOT_A_NAME}"
        return Unsupported(NOT_A_LOADER, f"batch loop {why}", loop)
    name, stmt = bound
    value = single_assign(stmt)[1]
    call = f"`{ctx.module.code_for_node(value.func)}(...)`"
    if value is not iterator:
        call += f" over `{ctx.module.code_for_node(iterator)}`"
    why = f"it reaches {through}" if through else f"not {_NOT_A_NAME}"
    return Unsupported(
        NOT_A_LOADER, f"batch loop iterates `{name}`, bound here to {call}: {why}", stmt
    )


def _through(ctx: LoopContext, iterator) -> str | None:
    """How `iterator` reaches a loader name it is handed first, or None (no loader)."""
    wrapped = _loader_wrapped_by(ctx, iterator)
    if wrapped is None:
        return None
    names = ctx.call_qualnames(iterator)
    if "builtins.enumerate" in names:  # enumerate(pbar) of a bar over enumerate(loader)
        return f"the loader `{wrapped}` through `enumerate(...)` twice (one batch index is read)"
    func = f"`{ctx.module.code_for_node(iterator.func)}(...)`"
    if any(q.startswith("builtins.") for q in names):
        return f"the loader `{wrapped}` through {func}, which the Trainer would not run"
    return (
        f"the loader `{wrapped}` through {func}, a wrapper of the script's (a logger's "
        "`log_every`, a prefetcher) that the Trainer would not run"
    )


def bound_wrapper(ctx: LoopContext, loop, iterator, pre) -> Unsupported | None:
    """TL104 when the loop iterates a name the epoch binds (in `pre`) to a call handed a
    loader (`batches = prefetch(loader)`); None otherwise (a loader built anew each epoch is
    TL116's)."""
    if not isinstance(iterator, cst.Name):
        return None
    for stmt in reversed(pre):
        assign = single_assign(stmt)
        if assign is None or assign[0] != iterator.value:
            continue
        if _loader_wrapped_by(ctx, assign[1]) is None:
            return None
        return refusal(ctx, loop, assign[1], (iterator.value, stmt))
    return None


def _loader_wrapped_by(ctx: LoopContext, iterator) -> str | None:
    """The loader name a call hands its first argument (`metric_logger.log_every(loader,
    ...)`), for a precise refusal; None for anything else (zip, chunks, a generator)."""
    if not isinstance(iterator, cst.Call) or not iterator.args:
        return None
    first = iterator.args[0].value
    if isinstance(first, cst.Name) and ctx.is_loader_name(first.value):
        return first.value
    return None
