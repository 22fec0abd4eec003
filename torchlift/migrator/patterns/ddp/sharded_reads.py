"""A loader whose DistributedSampler goes to Lightning, read by code left outside the Trainer.

    sampler = DistributedSampler(train_set, ...)       -> removed: Lightning's own is the same
    loader = DataLoader(train_set, sampler=sampler)    -> DataLoader(train_set, shuffle=True)
    print(len(loader), "batches per rank")             -> TL153: the whole loader's length now
    sched = OneCycleLR(opt, total_steps=E * len(loader))  -> TL153: another schedule

Lightning shards the loader only inside `fit` (the module's `self.trainer.train_dataloader` /
`val_dataloaders` are the shards); the script's own loader object, read before or after the
run (in the script or handed to `configure_optimizers`), is the unsharded one. What the
sampler does not change is read as before: the loader's `dataset` and `batch_size`.
"""

from __future__ import annotations

import libcst as cst

from ...analysis.names import collect_names, variable_uses
from .facts import Facts
from .rules import SHARDED_LOADER_READ

_UNSHARDED_ATTRIBUTES = frozenset({"dataset", "batch_size"})


def check_sharded_reads(ctx, plan, facts: Facts) -> None:
    """Block the first read, per loader, of a loader Lightning shards, in code outside `fit`."""
    for name in sorted(set(facts.sharded_loaders)):
        found = read_outside_fit(ctx, facts, name)
        if found is not None:
            read, when = found
            ctx.block(SHARDED_LOADER_READ, _why(name, when), read)


def read_outside_fit(ctx, facts: Facts, name: str) -> tuple[cst.Name, str] | None:
    """The first read of the loader `name` its sampler changes, in the code around the loop,
    and whether it runs "before" or "after" `fit`; None when there is none."""
    removed = {id(s) for s in facts.removed}
    for when, stmts in (("before", ctx.scope_before), ("after", ctx.scope_after)):
        for stmt in stmts:
            if id(stmt) in removed or isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            if name in collect_names(stmt).reads:
                read = _sharding_read(stmt, name)
                if read is not None:
                    return read, when
    return None


def _sharding_read(stmt: cst.CSTNode, name: str) -> cst.Name | None:
    """The first use of the variable `name` in `stmt` that its sampler changes (not its
    `.dataset` / `.batch_size`), or None."""
    uses = variable_uses(stmt, name, skip_attributes=_UNSHARDED_ATTRIBUTES)
    return uses[0] if uses else None


def _why(name: str, when: str) -> str:
    return (
        f"`{name}` is read {when} `fit`, where its DistributedSampler is gone (Lightning shards "
        "the loader only inside `fit`): it would be the whole loader, not this rank's shard"
    )
