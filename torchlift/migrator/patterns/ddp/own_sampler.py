"""The script's own DistributedSampler kept, where Lightning's would not be the same.

    def worker(rank, world_size):
        setup(rank, world_size)                       -> trainer = L.Trainer(...,
                                                             use_distributed_sampler=False)
        sampler = DistributedSampler(                 -> sampler = DistributedSampler(
            ds, num_replicas=world_size, rank=rank,          ds, num_replicas=world_size,
            shuffle=True, seed=42)                           rank=trainer.global_rank, ...)
        loader = DataLoader(ds, sampler=sampler)      -> kept
        for epoch in range(epochs):
            sampler.set_epoch(epoch)                  -> removed: the Trainer calls it

Its own seed, `drop_last=True` or a training `shuffle=False` make Lightning's sampler another
one; the script's, kept in its loader (`use_distributed_sampler=False`: neither engine puts
its own there), gives the same batches when it is built with the process's rank and process
count and gets the same `set_epoch` calls. Both engines call `set_epoch(current_epoch)` on a
training loader's sampler before each epoch's batches, whatever `use_distributed_sampler`
(Lightning's fit loop `_set_sampler_epoch`, the runtime's `Strategy.on_train_epoch_start`),
so the script's `set_epoch(epoch)` at the top of `for epoch in range(N)` goes.

Before `fit` there is no process group yet, so a sampler left to read its rank and
process count from one (`DistributedSampler(ds, seed=42)`) is given the Trainer's
(`num_replicas=trainer.world_size, rank=trainer.global_rank`: both engines know them once the
Trainer is built, from the `LOCAL_RANK` its launcher sets in each process), and the Trainer is
built where the script started its process group (the rank names read after it become
`trainer.global_rank`: `_read_rank_before`).

Kept only in an `mp.spawn` worker that does not validate (the validation loader would then
keep every sample on every rank); otherwise the reason Lightning's sampler differs stays the
refusal (TL162).
"""

from __future__ import annotations

import libcst as cst

from ...analysis.names import scope_reads
from ...analysis.statements import single_assign, with_keywords
from .facts import Facts
from .rules import SAMPLER

_KEPT_WHY = (
    "the script's DistributedSampler kept (`use_distributed_sampler=False`): {why}; built with "
    "the Trainer's rank, its `set_epoch(epoch)` called by the Trainer each epoch"
)


def keep_own_sampler(ctx, plan, facts: Facts, name: str, samplers: dict, own: list) -> None:
    """Keep `name`, the training loader's DistributedSampler, that Lightning's would not
    reproduce for the reasons `own`; or refuse (TL162) with the first of them."""
    from .sampler import epoch_calls_fit, sampler_args

    stmt, call, single = samplers[name]
    why = own[0]
    if facts.launch != "spawn":
        ctx.block(SAMPLER, f"{why}: the script's is kept only in an `mp.spawn` worker", stmt)
        return
    if plan.validation is not None:
        ctx.block(
            SAMPLER,
            f"{why}; keeping the script's (`use_distributed_sampler=False`) would leave the "
            "validation loader unsharded",
            stmt,
        )
        return
    assign = single_assign(stmt)
    if single is not None or assign is None or assign[1] is not call:
        ctx.block(SAMPLER, f"{why}: the sampler is not built by `{name} = ...` alone", stmt)
        return
    loader_stmt = ctx.binding(plan.train_loader)[0][0]
    aliases = {f"{plan.train_loader}.sampler": name}
    facts.set_epoch = [(aliases.get(r, r), *rest) for r, *rest in facts.set_epoch]
    taken = {name: (loader_stmt, facts.sampler_shuffle)}
    if not epoch_calls_fit(ctx, plan, facts, taken, samplers):
        return
    users = [s for s in [*ctx.scope_before, *ctx.scope_after] if name in scope_reads(s)]
    if users != [loader_stmt]:
        ctx.block(SAMPLER, f"`{name}` is used besides its loader", stmt)
        return
    given = sampler_args(call)
    missing = [
        (key, code)
        for key, code in (("num_replicas", "trainer.world_size"), ("rank", "trainer.global_rank"))
        if key not in given
    ]
    facts.kept_sampler = (stmt, missing, _KEPT_WHY.format(why=why))
    plan.add_trainer_arg("use_distributed_sampler", "False")


def with_trainer_ranks(stmt, missing: list):
    """`stmt` (`s = DistributedSampler(...)`) given the `missing` keywords (name, code): a
    sampler built before `fit` has no process group to read them from."""
    call = single_assign(stmt)[1]
    added = [(key, cst.parse_expression(code)) for key, code in missing]
    new = with_keywords(stmt, call, set(), added)
    # the space the last argument had before `)` (`seed=42\n    )`) goes after the new last
    args = list(single_assign(new)[1].args)
    last = len(call.args) - 1
    tail = args[last].whitespace_after_arg
    args[last] = args[last].with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
    args[-1] = args[-1].with_changes(whitespace_after_arg=tail)
    value = single_assign(new)[1].with_changes(args=args)
    return new.with_changes(body=[new.body[0].with_changes(value=value)])
