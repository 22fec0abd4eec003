"""Pattern: hand-written DDP -> `strategy="ddp"`, for `mp.spawn` workers and torchrun scripts.

    def setup(rank, world_size):                      -> removed (the Trainer starts the group)
        os.environ["MASTER_PORT"] = "29531"
        dist.init_process_group("gloo", rank=rank, world_size=world_size)

    def worker(rank, world_size, epochs):             -> def worker(world_size, epochs):
        setup(rank, world_size)                       -> removed
        sampler = DistributedSampler(dataset, ...)    -> removed: Lightning's own is the same
        loader = DataLoader(..., sampler=sampler)     -> DataLoader(..., shuffle=True)
        ddp_model = DDP(model)                        -> removed; `ddp_model.module` -> model
        for epoch in range(epochs):
            sampler.set_epoch(epoch)                  -> removed: the Trainer calls it
            ...
            if rank == 0: print(...)                  -> `self.global_rank == 0` in the hook
        if rank == 0: torch.save(...)                 -> `trainer.global_rank == 0`
        cleanup()                                     -> removed

    mp.spawn(worker, args=(world_size, 3), nprocs=world_size)   -> worker(world_size, 3)

A spawn worker's Trainer gets `accelerator="cpu"` (gloo), `devices=` the process count the
script spawned (as the worker reads it: the parameter given the same value, or the literal),
`strategy="ddp"`: `python script.py` starts the same processes. Code after the process group
starts that reads the rank (a per-rank seed) gets the Trainer built where the group started
(`torch.manual_seed(trainer.global_rank)`); a `print` of the rank before it moves after the
Trainer.

A torchrun script (`ddp = int(os.environ.get("RANK", -1)) != -1`, `if ddp:
init_process_group(...); ddp_rank = int(os.environ["RANK"]) ...` `else:` the single-process
values) loses that block; its rank names read `self.global_rank` / `self.local_rank` /
`self.trainer.world_size` / `self.trainer.is_global_zero` in the module and `trainer.` after
it; the Trainer gets `devices=int(os.environ.get("LOCAL_WORLD_SIZE", 1))` (what torchrun
started on this node; 1 for `python script.py`), `strategy="ddp" if ddp else "auto"`, and
the accelerator the backend choice implies (gloo -> cpu, nccl -> gpu). `python script.py`
still trains in one process, `torchrun --nproc_per_node=N script.py` in N, as before.

In both, a DistributedSampler goes when Lightning's is the same (dataset, seed 0, no
drop_last, shuffling with `set_epoch(epoch)` for training, `shuffle=False` for validation); a
loader with no sampler keeps every rank on the whole data (`use_distributed_sampler=False`).
A validation pass over its shard becomes `validation_step`, its counters' `dist.all_reduce`
kept in the epoch-end hook, when the model provably holds no buffers (evaluation.py).

The parent's prints and files before the spawn stay the launching process's (spawn_parent.py).

Refused, each with its code: a launch other than one `mp.spawn` of the function holding the
loop (TL160; at its `--local_rank` argument for a script `torch.distributed.launch` starts:
launch_argument.py), parent code before it computing what differs per process (TL160:
spawn_parent.py), a process group other than one `init_process_group` (gloo for workers) (TL161),
a DistributedSampler that Lightning's would not reproduce (TL162), hand-written collectives
but the validation counters' all_reduce (TL163), a rank read before the process group starts
(TL164), DDP options (TL165), a step loop not started by `mp.spawn` (TL166), an evaluation
Lightning would not reproduce (TL167: evaluation.py), a torchrun setup block doing more
(TL168), a trained model the script never wraps in DDP (TL169: each rank trained alone); DDP
with neither launch is data_parallel.py's TL115.

A step loop in an `mp.spawn` worker (`for step in range(N):` drawing `torch.randn(...)`
batches after `torch.manual_seed(100 + rank)`) is read like an epoch's code (step_body): every
rank runs all N iterations over the unsharded loader of iteration numbers
(`use_distributed_sampler=False`), its draws from its own seeded generator as in the script.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.names import collect_names, file_identifiers, scope_reads
from ...analysis.statements import statements
from ...rule import Unsupported
from ...source.code_text import code_of, first_line
from ..data_parallel import DISTRIBUTED as DISTRIBUTED_SCRIPT
from .evaluation import check_wrapper_forwards, read_evaluation, read_wrapper_runs
from .facts import (
    AFTER_TRAINER,
    ENV_ROLES,
    IN_MODULE,
    INIT_GROUP,
    SAMPLER_CLASSES,
    Facts,
    _Unwrap,
    ddp_unwrap,
    is_ddp_wrap,
    ranks_as,
    read_as_model,
    remove_with_reason,
    uses_ddp,
)
from .init_helper import check_group_unused, helper_starts, read_init_helper
from .launch_argument import refuse_launcher_argument
from .own_sampler import with_trainer_ranks
from .process_group import has_call, read_collectives
from .reduces import check_reduces
from .rules import (
    DDP_OPTIONS,
    EVAL_UNDER_DDP,
    LAUNCH,
    NOT_WRAPPED,
    PROCESS_GROUP,
    RANK_READ,
    RULES,
    SAMPLER,
    STEP_LOOP,
)
from .sampler import read_sampler, take_set_epoch
from .sharded_reads import check_sharded_reads
from .spawn import read_launch, read_process_group, spawn_calls
from .spawn_parent import guard_parent_code
from .torchrun import plain_start_helper, read_torchrun, reads_env
from .wrappers import drop_wrappers, read_wrappers, unwrap_in_functions

__all__ = [
    "RULES",
    "bind",
    "ddp_unwrap",
    "epoch_body",
    "is_ddp_wrap",
    "read",
    "read_as_model",
    "step_body",
    "uses_ddp",
]

_RANK_READ_WHY = (
    "rank / DDP wrapper -> the Trainer's: its `global_rank`, and the model itself (the "
    "strategy wraps it)"
)


# -- epoch_body: recognise the launch, rewrite the rank in the epoch's code -------------------


def epoch_body(ctx, stmts):
    if not uses_ddp(ctx):
        return stmts
    facts = Facts()
    ctx.found["ddp"] = facts
    try:
        if ctx.in_function and spawn_calls(ctx):
            read_launch(ctx, facts)
            read_process_group(ctx, facts)
        elif not _starts_directly(ctx) and helper_starts(ctx) and not plain_start_helper(ctx):
            read_init_helper(ctx, facts)
        elif reads_env(ctx, ctx.module, ENV_ROLES):
            read_torchrun(ctx, facts)
        else:
            refuse_launcher_argument(ctx)  # `torch.distributed.launch` starts it: TL160 there
            if ctx.in_function:
                raise Unsupported(
                    LAUNCH, "no `mp.spawn` starts the function holding the loop", ctx.loop
                )
            raise Unsupported(DISTRIBUTED_SCRIPT, DISTRIBUTED_SCRIPT.title, ctx.loop)
        if facts.backend_ref is not None and facts.backend_ref != facts.backend_name:
            raise Unsupported(
                PROCESS_GROUP,
                f"the backend `{facts.backend_ref}` is not a gloo/nccl choice",
                ctx.loop,
            )
        read_collectives(ctx, facts, stmts)
        read_wrappers(ctx, facts)
        read_wrapper_runs(facts, stmts)
    except Unsupported as why:
        ctx.block(why.rule, why.reason, why.node)
        facts.launch = ""
        return stmts
    if "trainer" in file_identifiers(ctx.module.code, "<script>"):
        ctx.block(
            RANK_READ,
            "the name `trainer` is taken: the rank could not be read from it",
            ctx.loop,
        )
    stmts = take_set_epoch(ctx, facts, stmts)
    _check_wrapper_state(ctx, facts, stmts)
    renamed = [ranks_as(facts, stmt, IN_MODULE) for stmt in stmts]
    _note_origins(ctx, renamed, stmts)
    return renamed


def _note_origins(ctx, renamed, stmts) -> None:
    """A refusal about a statement whose rank names were rewritten names the script's line
    (the engine reads helpers.py's `inlined_at`): renaming keeps the statements' shape."""
    origins = ctx.found.setdefault("inlined_at", {})
    for new, old in zip(renamed, stmts):
        if new is not old:
            for a, b in zip(statements(new), statements(old)):
                origins[id(a)] = origins.get(id(b), b)


# what the user would see if the wrapper's state_dict call became the model's
_KEYS_DIFFER = {
    "state_dict": "a file written from it would hold other keys",
    "load_state_dict": "a file the wrapper wrote would not load",
}


def _check_wrapper_state(ctx, facts: Facts, stmts) -> None:
    """`ddp_model.state_dict()` / `ddp_model.load_state_dict(...)` of the wrapper itself (not
    its `.module`): its keys carry the `module.` prefix, which the model the conversion reads
    there instead lacks -- a checkpoint written with other keys, or one that no longer loads."""
    wrappers = set(facts.wrappers) - facts.unwrapped
    method = m.Attribute(m.Name(), m.Name("state_dict") | m.Name("load_state_dict"))
    unwrap = _Unwrap(facts.wrappers)
    for stmt in stmts:
        # `model.module.state_dict() if ddp else model.state_dict()`: the model's either way
        chosen = [
            e for e in m.findall(stmt, m.IfExp()) if e.body.visit(unwrap).deep_equals(e.orelse)
        ]
        inside = {id(c) for e in chosen for c in m.findall(e, m.Call())}
        for call in m.findall(stmt, m.Call(func=method)):
            name = call.func.value.value
            if name in wrappers and id(call) not in inside:
                inner = [s for s in statements(stmt) if isinstance(s, cst.SimpleStatementLine)]
                ctx.block(
                    DDP_OPTIONS,
                    f"`{name}.{call.func.attr.value}(...)` of the DDP wrapper: its keys carry "
                    "`module.`; the conversion has no wrapper there and the model's keys lack "
                    f"it ({_KEYS_DIFFER[call.func.attr.value]}; "
                    f"`{name}.module.{call.func.attr.value}(...)` converts)",
                    next((s for s in inner if m.findall(s, m.Call(func=method))), stmt),
                )
                return


def step_body(ctx, stmts):
    """A step loop in an `mp.spawn` worker: read as an epoch's code is (the launch, the
    process group, the wrapper), each step drawing its own batches on its own rank as in the
    script. Under torchrun or a setup helper it is refused: TL166."""
    if not uses_ddp(ctx):
        return stmts
    if ctx.in_function and spawn_calls(ctx):
        return epoch_body(ctx, stmts)
    ctx.found["ddp"] = Facts()
    ctx.block(STEP_LOOP, f"{STEP_LOOP.title}: only a worker `mp.spawn` starts", ctx.loop)
    return stmts


def _starts_directly(ctx) -> bool:
    """A statement of the loop's scope calls `init_process_group` itself."""
    return any(
        has_call(ctx, s, INIT_GROUP)
        for s in ctx.scope_before
        if not isinstance(s, (cst.FunctionDef, cst.ClassDef))
    )


# -- bind / read: the sampler, the code around the loop, the Trainer's arguments ---------------


def bind(ctx, plan, steps) -> None:
    """A step loop (no epoch_body phase) still answers to this pattern, not to TL115."""
    if uses_ddp(ctx) and "ddp" not in ctx.found:
        ctx.found["ddp"] = Facts()


def read(ctx, plan, steps) -> None:
    if not uses_ddp(ctx):
        return
    facts = ctx.found.get("ddp")
    if facts is None or not facts.launch:
        return  # refused in epoch_body / step_body
    if plan.test is not None:
        ctx.block(EVAL_UNDER_DDP, EVAL_UNDER_DDP.title, plan.test.anchor)
    if plan.step_loop:
        _step_loader(ctx, plan)
    else:
        read_sampler(ctx, plan, facts)
        check_sharded_reads(ctx, plan, facts)
    read_evaluation(ctx, plan, facts)
    _check_wrapped(ctx, plan, facts)
    check_reduces(ctx, plan, facts)
    check_wrapper_forwards(ctx, plan, facts)
    unwrap_in_functions(ctx, plan, facts)
    drop_wrappers(ctx, plan, facts)
    _read_rank_before(ctx, plan, facts)
    check_group_unused(ctx, plan, facts)
    _wrapper_used_before(ctx, plan, facts)
    _check_wrapper_state(ctx, facts, [s for s in ctx.scope_after if s not in facts.removed])
    for stmt in ctx.scope_after:
        if stmt in facts.removed:
            continue
        new = ranks_as(facts, stmt, AFTER_TRAINER)
        if not new.deep_equals(stmt):
            plan.rewrite_stmts.append((stmt, new))
            plan.rewritten_why += _explained(stmt, new)
    taken = {id(s) for s in plan.remove_stmts}  # an `if ddp:` block bindings removed too
    plan.remove_stmts += [s for s in facts.removed if id(s) not in taken]
    plan.removed_why += [
        (stmt, facts.why[id(stmt)]) for stmt in facts.removed if id(stmt) in facts.why
    ]
    plan.rewrite_stmts += facts.rewrites
    plan.rewritten_why += [  # (the change log's why of a rewrite, when one was given)
        (stmt, cst.Module(body=[new]).code, facts.why[id(stmt)])
        for stmt, new in facts.rewrites
        if id(stmt) in facts.why and stmt not in facts.removed
    ]
    if facts.launch_call is not None:
        stmt, code = facts.launch_call
        why = "`mp.spawn` -> a plain call: the Trainer starts the processes (`devices=`)"
        plan.rewritten_why.append((stmt, code, why))
    plan.inlined_helpers += facts.helpers
    plan.after_trainer += facts.early_prints
    plan.device_names |= facts.devices_named
    taken = ("accelerator", "devices", "num_nodes")
    arguments = [(k, v) for k, v in plan.trainer_args if k not in taken]
    plan.trainer_args[:] = [
        ("accelerator", facts.accelerator),
        ("devices", facts.devices),
        *([("num_nodes", facts.num_nodes)] if facts.num_nodes else []),
        ("strategy", facts.strategy),
        *arguments,
    ]
    if facts.launch == "spawn":
        plan.device_note = (
            f'mp.spawn + DistributedDataParallel -> `strategy="ddp"`, `devices='
            f"{facts.devices}`: `python script.py` starts the same processes"
        )
        if guard_parent_code(ctx, plan, facts.launch_call[0]):
            plan.device_note += (
                "; what the script printed or wrote before `mp.spawn` happens in the launching "
                "process only (`LOCAL_RANK` unset)"
            )
    elif facts.num_nodes:
        plan.device_note = (
            'torchrun\'s DDP -> `strategy="ddp"` with `devices=` / `num_nodes=` the processes '
            "and nodes torchrun starts; like the script, it runs under torchrun only"
        )
    else:
        plan.device_note = (
            'torchrun\'s DDP -> `strategy="ddp"` with `devices=` the processes torchrun '
            "starts per node; `python script.py` still trains in one process"
        )
    plan.notes.append(plan.device_note)
    _trainer_built_early(ctx, plan)


def _wrapper_used_before(ctx, plan, facts: Facts) -> None:
    """Code kept before the loop reading the DDP wrapper (the tutorial's rank-0
    `torch.save(ddp_model.state_dict(), path)` and `ddp_model.load_state_dict(...)`): the
    Trainer wraps the model only in `fit`, and the wrapper's state_dict keys carry the
    `module.` prefix the model's lack."""
    wrappers = {w for w, model in facts.wrappers.items() if w != model} - facts.unwrapped
    moved = {id(o.stmt) for o in plan.optimizers} | {id(o.scheduler_stmt) for o in plan.optimizers}
    moved |= {id(s) for s in [*plan.remove_stmts, *facts.removed, *plan.strip_stmts]}
    for stmt in ctx.scope_before:
        if id(stmt) in moved or isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        used = wrappers & scope_reads(stmt)
        if used:
            inner = [s for s in statements(stmt) if isinstance(s, cst.SimpleStatementLine)]
            cause = next((s for s in inner if used & scope_reads(s)), stmt)
            ctx.block(
                DDP_OPTIONS,
                f"the DDP wrapper `{sorted(used)[0]}` is used before the loop (`"
                f"{_quoted(cause)}`): in the conversion neither the wrapper nor the "
                "process group exists before `fit`, and the model's state_dict keys lack the "
                "wrapper's `module.`",
                cause,
            )
            return


def _quoted(stmt) -> str:
    """A statement as a one-line message quotes it: its code without a trailing comment."""
    if isinstance(stmt, cst.SimpleStatementLine):
        return "; ".join(code_of(s) for s in stmt.body)
    return first_line(stmt)


def _check_wrapped(ctx, plan, facts: Facts) -> None:
    """The script wraps a model it trains in DDP: `strategy="ddp"` always wraps it, and
    without the script's own wrapper each rank trained alone (no gradient averaging)."""
    models = {n for model in plan.models for n in (model.name, *model.aliases)}
    if models & ({*facts.wrappers, *facts.wrappers.values()}):
        return
    names = ", ".join(f"`{n}`" for n in sorted(models))
    ctx.block(
        NOT_WRAPPED,
        f"{names} is not wrapped in DDP: each rank trains its own copy, the Trainer's DDP "
        "would average the gradients",
        facts.group_start or ctx.loop,
    )


def _step_loader(ctx, plan) -> None:
    """A step loop's generated loader of iteration numbers: every rank iterates all of them,
    as every rank ran every iteration of the script (a DistributedSampler Lightning put there
    would give each rank a share of the steps)."""
    sampler = next(
        (c for c in m.findall(ctx.module, m.Call()) if ctx.call_qualnames(c) & SAMPLER_CLASSES),
        None,
    )
    if sampler is not None:  # a loader read by `next(...)` in the step: not the Trainer's
        ctx.block(SAMPLER, "a DistributedSampler in a script whose loop is a step loop", sampler)
        return
    plan.add_trainer_arg("use_distributed_sampler", "False")


def _explained(stmt, new) -> list:
    """(statement, new code, why) of each simple statement the rename changed, also inside
    a compound one (the rename keeps the statements' structure)."""
    pairs = zip(statements(stmt), statements(new))
    return [
        (old, cst.Module(body=[changed]).code, _RANK_READ_WHY)
        for old, changed in pairs
        if isinstance(old, cst.SimpleStatementLine) and not changed.deep_equals(old)
    ] or [(stmt, cst.Module(body=[new]).code, _RANK_READ_WHY)]


def _read_rank_before(ctx, plan, facts: Facts) -> None:
    """Code before the loop reading a rank. Before the process group starts, a `print` moves
    after the Trainer; anything else there is refused. After it (a per-rank seed, per-rank
    data), the Trainer is built where the group started and the code reads its rank."""
    gone = {id(s) for s in [*facts.removed, *plan.remove_stmts]}
    started = False
    late = []
    ranks = facts.roles.keys() - facts.env_bound  # (those bound from torchrun's env stay)
    kept, missing, kept_why = facts.kept_sampler or (None, [], "")
    for stmt in ctx.scope_before:
        if stmt is facts.group_start:
            started = True
            continue
        if id(stmt) in gone or isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        if stmt is kept and missing:  # given the Trainer's ranks: after the group starts
            if not started:
                ctx.block(RANK_READ, "the sampler is built before the process group starts", stmt)
            late.append(stmt)
            continue
        if not ranks & scope_reads(stmt):
            continue
        if started:
            late.append(stmt)
        elif m.matches(stmt, m.SimpleStatementLine([m.Expr(m.Call(func=m.Name("print")))])):
            new = ranks_as(facts, stmt.with_changes(leading_lines=[]), AFTER_TRAINER)
            facts.early_prints.append(cst.Module(body=[new]).code.strip())
            remove_with_reason(facts, [stmt], "print of the rank -> after the Trainer is built")
        else:
            name = sorted(ranks & scope_reads(stmt))[0]
            ctx.block(RANK_READ, f"`{name}` is read before the process group starts", stmt)
    claimed = {id(s) for s, _ in plan.rewrite_stmts} | {id(s) for s in plan.strip_stmts}
    claimed |= {id(o.stmt) for o in plan.optimizers} | {
        id(o.scheduler_stmt) for o in plan.optimizers
    }
    for stmt in late:
        if id(stmt) in claimed:
            name = sorted(ranks & scope_reads(stmt))[0]
            ctx.block(RANK_READ, f"`{name}` is read by code the conversion moves", stmt)
            continue
        new = ranks_as(facts, stmt, AFTER_TRAINER)
        why = _RANK_READ_WHY
        if stmt is kept:
            new, why = with_trainer_ranks(new, missing), kept_why
        plan.rewrite_stmts.append((stmt, new))
        plan.rewritten_why.append((stmt, cst.Module(body=[new]).code, why))
    if late:
        plan.trainer_at = facts.group_start
        facts.removed.remove(facts.group_start)


def _trainer_built_early(ctx, plan) -> None:
    """The Trainer built where the process group started reads only names bound by then."""
    if plan.trainer_at is None:
        return
    reads = set()
    for _, code in plan.trainer_args:
        reads |= collect_names(cst.parse_expression(code)).reads
    body = list(ctx.scope_before)
    later = body[body.index(plan.trainer_at) + 1 :]
    bound = reads & collect_names(*later).writes if later else set()
    if bound:
        ctx.block(
            RANK_READ,
            f"the Trainer, built where the process group starts so that the code after it can "
            f"read the rank, would read `{sorted(bound)[0]}` before it is bound",
            plan.trainer_at,
        )
