"""The epoch's own `dist.all_reduce` calls, kept where they stand when every rank runs them.

    for epoch in range(N):
        sampler.set_epoch(epoch)
        total = torch.zeros(1)                      -> on_train_epoch_start
        for x, y in loader:
            ...; total += loss.item()               -> training_step, on the rank's shard
        t = torch.tensor([total, correct])          -> on_train_epoch_end, as written: both
        dist.all_reduce(t, op=dist.ReduceOp.SUM)       engines run the epoch hooks on every
        if rank == 0: print(t)                         rank, in the Trainer's process group

Lightning (and the runtime) run `on_train_epoch_end` / `on_validation_epoch_end` on every rank,
at the same point of each epoch, with the default process group started (gloo on CPU): a
collective every rank calls there meets itself on the other ranks as in the script, and reduces
what each rank accumulated over its shard (the script's DistributedSampler is Lightning's,
sampler.py). Kept: `dist.all_reduce(name[, op=dist.ReduceOp.X])` statements of the epoch's code
after the batch loop (alone, or making up the body of the DDP flag's `if`), reducing a tensor
the epoch itself made and only updated in place since: bound before the batch loop
(on_train_epoch_start) or after it, from nothing the step rebinds (the step's `loss` is also
held by Lightning, which logs it), or the validation pass's counters after that pass; and
`dist.barrier()` there (it reads nothing: every rank waits at the same place of the same hook).

Refused (TL163), naming the call: a collective in the step (per batch), under a test of the
rank (the other ranks would wait for it), before the batch loop or outside the epoch loop,
other collectives (broadcast, all_gather, a barrier with arguments, an `async_op=`), a reduce
of a value of the step.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.names import collect_names
from ...source.code_text import code_of
from .facts import Facts
from .process_group import reduced_name
from .rules import COLLECTIVE


def check_reduces(ctx, plan, facts: Facts) -> None:
    """Each `dist.all_reduce(name)` kept in an epoch-end hook reduces a tensor of the epoch's
    own (see the module's docstring); else TL163."""
    rebound = _rebound_in(plan.train_body)
    for outer, inner in facts.reduces:
        tensors = _epoch_tensors(plan, outer, inner, rebound)
        if tensors is None:
            ctx.block(
                COLLECTIVE,
                f"`{_called(outer)}` called by hand before the batch loop, not after a pass",
                outer,
            )
            continue
        for stmt in inner:
            name = reduced_name(ctx, stmt)
            if name is not None and name not in tensors:  # (else a barrier: reads nothing)
                ctx.block(COLLECTIVE, _why_not(name, rebound, plan, outer), stmt)


def _called(stmt) -> str:
    """`dist.all_reduce(...)`: what the message names of a reduce statement."""
    inner = stmt.body.body[0] if isinstance(stmt, cst.If) else stmt
    return code_of(inner.body[0].value.func) + "(...)"


def _epoch_tensors(plan, outer, inner: list, rebound: set[str]) -> set[str] | None:
    """Names of the tensors the epoch made that a reduce at `outer` may reduce: the training
    epoch's (bound before the batch loop, or after it before `outer`, and not rebound by the
    step), and the validation pass's counters when `outer` follows that pass. None when
    `outer` is no statement of the epoch after the batch loop."""
    evaluation = plan.validation
    tensors: set[str] | None = None
    if evaluation is not None:
        later = [*evaluation.after, *evaluation.following]
        if any(_same_place(outer, inner, s) for s in later):
            tensors = collect_names(*evaluation.before, *evaluation.body).writes
    post = plan.post_train
    at = next((i for i, s in enumerate(post) if _same_place(outer, inner, s)), None)
    if at is None:
        return tensors
    made = collect_names(*plan.pre_train).writes
    for stmt in post[:at]:
        writes = collect_names(stmt).writes
        if collect_names(stmt).reads & rebound:  # may alias a value of the step
            made -= writes
        else:
            made |= writes
    return (tensors or set()) | (made - rebound)


def _same_place(outer, inner: list, stmt) -> bool:
    """`stmt` of the planned epoch is `outer`: equal, or the same `if <flag>:` starting with the
    same reduces (the code after them may have been rewritten since: the ranks it reads)."""
    if outer.deep_equals(stmt):
        return True
    if not (isinstance(outer, cst.If) and isinstance(stmt, cst.If)):
        return False
    body = stmt.body.body
    return (
        stmt.test.deep_equals(outer.test)
        and len(body) >= len(inner)
        and all(a.deep_equals(b) for a, b in zip(inner, body, strict=False))
    )


def _rebound_in(step: list) -> set[str]:
    """Names the training step binds anew (`loss = ...`, `out = ...`), not only updates in
    place (`total += ...`): values of the last step, which Lightning may hold too."""
    rebound = collect_names(*step).writes
    updated = {
        node.target.value
        for node in m.findall(cst.Module(body=list(step)), m.AugAssign(target=m.Name()))
    }
    plain = set()
    for node in m.findall(cst.Module(body=list(step)), m.AssignTarget() | m.AnnAssign()):
        plain |= {n.value for n in m.findall(node.target, m.Name())}
    return rebound - (updated - plain)


def _why_not(name: str | None, rebound: set[str], plan, outer) -> str:
    if name in rebound:
        return (
            f"`dist.all_reduce({name})` reduces a value of the training step (its last "
            "batch's), which Lightning holds too"
        )
    post = plan.post_train
    at = next((i for i, s in enumerate(post) if outer.deep_equals(s)), len(post))
    for stmt in reversed(post[:at]):
        if name in collect_names(stmt).writes:
            step = sorted(collect_names(stmt).reads & rebound)
            if step:
                return (
                    f"`dist.all_reduce({name})` reduces `{name}`, bound from `{step[0]}`, a "
                    "value of the training step, which Lightning holds too"
                )
            break
    if plan.validation is not None:
        return (
            f"`dist.all_reduce({name})` reduces a value neither the epoch's training nor its "
            "validation pass accumulates"
        )
    return f"`dist.all_reduce({name})` reduces a value the epoch does not accumulate"
