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
drop_last, `set_epoch(epoch)` when shuffling); a loader with no sampler keeps every rank on
the whole data (`use_distributed_sampler=False`).

Refused, each with its code: a launch other than one `mp.spawn` of the function holding the
loop (TL160), a process group other than one `init_process_group` (gloo for workers) (TL161),
a DistributedSampler that Lightning's would not reproduce (TL162), hand-written collectives
(TL163), a rank read before the process group starts (TL164), DDP options (TL165), a step loop or
an evaluation pass under DDP (TL166, TL167), a torchrun setup block doing more (TL168); DDP
with neither launch is data_parallel.py's TL115.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names, file_identifiers, mentions, rename, scope_reads
from ..analysis.statements import call_method, single_assign
from ..rule import Rule, Unsupported
from .data_parallel import DISTRIBUTED as DISTRIBUTED_SCRIPT

_HEAD = """
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def setup(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "29500"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)

"""


def _example(worker: str, launch: str = "mp.spawn(train, args=(2,), nprocs=2)") -> str:
    return f'{_HEAD}\n{worker.strip(chr(10))}\n\n\nif __name__ == "__main__":\n    {launch}\n'


_WORKER = """
def train(rank, world_size):
    setup(rank, world_size)
    torch.manual_seed(0)
    dataset = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank{sampler})
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    model = {model}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step(){after_step}
    dist.destroy_process_group()
"""


def _worker(sampler="", model="DDP(nn.Linear(4, 1))", after_step=""):
    return _WORKER.format(sampler=sampler, model=model, after_step=after_step)


LAUNCH = Rule(
    "TL160",
    "DDP launch not understood (one `mp.spawn` of the function holding the loop)",
    """The Trainer starts the processes itself (`strategy="ddp"`, `devices=N`), so the
    script's launcher must go: one `mp.spawn(worker, args=(...), nprocs=N)` of the function
    holding the loop (directly, or through a helper given that function), whose first
    parameter is the rank, and whose process count is a literal or one of the arguments it
    hands the worker.""",
    """Start the worker with one `mp.spawn(worker, args=(...), nprocs=N)` and pass N to it;
    or convert the single-process script and ask for `Trainer(strategy="ddp", devices=N)`.""",
    _example(_worker(), "mp.spawn(train, args=(2,), nprocs=2, join=False)"),
    uses_header=False,
)

PROCESS_GROUP = Rule(
    "TL161",
    "process group not started once by an `init_process_group` the Trainer can replace",
    """The Trainer creates the process group. The worker must start it once, before the
    loop, by `init_process_group("gloo", ...)` (or a `setup()` helper doing only that and
    setting MASTER_ADDR / MASTER_PORT) and end it after the loop. NCCL workers place the
    model and every batch on the GPU of their rank, which is not converted yet (a torchrun
    script choosing `"nccl" if torch.cuda.is_available() else "gloo"` is: the Trainer then
    gets the same choice of accelerator).""",
    """Use the gloo backend on CPU, or convert the single-process script and ask for
    `Trainer(accelerator="gpu", strategy="ddp", devices=N)`.""",
    _example(_worker().replace("setup(rank, world_size)", 'dist.init_process_group("nccl")')),
    uses_header=False,
)

SAMPLER = Rule(
    "TL162",
    "DistributedSampler that Lightning's own sampler would not reproduce",
    """Lightning replaces the training loader's sampler by `DistributedSampler(dataset,
    shuffle=<the loader shuffled>, seed=0, drop_last=False)` and calls `set_epoch(epoch)`
    every epoch. The script's sampler is removed when it is exactly that: same dataset as the
    loader, the default seed and drop_last, and `set_epoch(epoch)` at the start of each epoch
    when it shuffles.""",
    """Use the sampler's defaults and call `sampler.set_epoch(epoch)` first in the epoch, or
    keep your sampler in a hand-written `train_dataloader()` with
    `Trainer(use_distributed_sampler=False)`.""",
    _example(_worker(sampler=", seed=42")),
    uses_header=False,
)

COLLECTIVE = Rule(
    "TL163",
    "hand-written torch.distributed call (all_reduce, barrier, broadcast, ...) under DDP",
    """Collectives the script calls itself run at points of its own loop that the Trainer's
    hooks do not reproduce one for one (and a barrier around file IO may deadlock when moved).
    Only the process group's start and end are converted.""",
    """Use `self.log(..., sync_dist=True)` or `self.all_gather` in the converted module.""",
    _example(_worker(after_step="\n            dist.all_reduce(loss)")),
    uses_header=False,
)

RANK_READ = Rule(
    "TL164",
    "the rank is read where the Trainer cannot give it",
    """The rank becomes `self.global_rank` in the LightningModule and `trainer.global_rank`
    outside it. Code after the process group starts that reads the rank (a per-rank seed,
    per-rank data) gets a Trainer built where the group started; code before that point has
    no Trainer, nor rank, in Lightning (only a `print` there is moved after the Trainer).""",
    """Start the process group first, then seed or build per-rank data.""",
    _example(
        _worker().replace(
            "    setup(rank, world_size)\n    torch.manual_seed(0)",
            "    torch.manual_seed(rank)\n    setup(rank, world_size)",
        )
    ),
    uses_header=False,
)

DDP_OPTIONS = Rule(
    "TL165",
    "DistributedDataParallel wrapper with options or used other than as the model",
    """`DDP(model)` (with `device_ids` of the rank on CPU at most) is what `strategy="ddp"`
    builds; options such as `find_unused_parameters` belong to `DDPStrategy(...)`, which is
    not written for you yet.""",
    """Drop the option or pass `strategy=DDPStrategy(find_unused_parameters=True)` by hand.""",
    _example(_worker(model="DDP(nn.Linear(4, 1), find_unused_parameters=True)")),
    uses_header=False,
)

STEP_LOOP = Rule(
    "TL166",
    "step loop under DDP is not converted",
    """A step loop draws its batches itself (`get_batch()`, `next(iter(loader))`); under DDP
    each rank must draw its own shard, which the generated loader of iteration numbers does
    not do.""",
    """Iterate a DataLoader with a DistributedSampler in an epoch loop.""",
    _example("""
def train(rank, world_size):
    setup(rank, world_size)
    model = DDP(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for it in range(10):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    dist.destroy_process_group()
"""),
    uses_header=False,
)

EVAL_UNDER_DDP = Rule(
    "TL167",
    "evaluation pass under DDP is not converted",
    """Lightning gives each rank a shard of the validation and test loaders too, where the
    script evaluated its whole loader on every rank; the numbers it prints would change.""",
    """Evaluate on rank 0 after training, or shard the evaluation data yourself.""",
    None,
)

TORCHRUN = Rule(
    "TL168",
    "torchrun-style setup (RANK / LOCAL_RANK / WORLD_SIZE) not understood",
    """A script started by torchrun reads its ranks from the environment, usually in an
    `if ddp:` block that starts the process group (and an `else` for a plain `python
    script.py`). The Trainer takes the block over when it holds only: the group's start, rank
    bindings `int(os.environ[...])`, `rank == 0` flags, the device choice and the backend's
    name; the Trainer gets `devices=` torchrun's LOCAL_WORLD_SIZE and `strategy="ddp"` under
    the script's own flag.""",
    """Move other statements out of the setup block (after it), or bind them from the
    Trainer after it is built (`trainer.global_rank`).""",
    """
import os

import torch
import torch.nn as nn
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset

ddp = "RANK" in os.environ
if ddp:
    init_process_group(backend="gloo")
    rank = int(os.environ["RANK"])
    print("process", rank, "ready")
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=8)
model = nn.Linear(4, 1)
if ddp:
    model = DDP(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
if ddp:
    destroy_process_group()
""",
    uses_header=False,
)

RULES = (
    LAUNCH,
    PROCESS_GROUP,
    SAMPLER,
    COLLECTIVE,
    RANK_READ,
    DDP_OPTIONS,
    STEP_LOOP,
    EVAL_UNDER_DDP,
    TORCHRUN,
)

_DDP = {
    "torch.nn.parallel.DistributedDataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel",
}
_SPAWN = {"torch.multiprocessing.spawn", "torch.multiprocessing.spawn.spawn"}
_INIT = "torch.distributed.init_process_group"
_DESTROY = "torch.distributed.destroy_process_group"
_SAMPLER = {
    "torch.utils.data.DistributedSampler",
    "torch.utils.data.distributed.DistributedSampler",
}
_GROUP_QUERIES = {"torch.distributed.is_initialized", "torch.distributed.is_available"}
_BACKENDS = {'"gloo"': '"cpu"', "'gloo'": '"cpu"'}


_ENV_ROLES = {
    "RANK": "global_rank",
    "LOCAL_RANK": "local_rank",
    "WORLD_SIZE": "world_size",
}
# what a rank name becomes: in the LightningModule, and after the Trainer is built
_ROLE_CODE = {
    "global_rank": ("self.global_rank", "trainer.global_rank"),
    "local_rank": ("self.local_rank", "trainer.local_rank"),
    "world_size": ("self.trainer.world_size", "trainer.world_size"),
    "is_global_zero": ("self.trainer.is_global_zero", "trainer.is_global_zero"),
}
_IN_MODULE, _AFTER_TRAINER = 0, 1


@dataclass
class Facts:
    """What the DDP script turned out to be (ctx.found["ddp"])."""

    launch: str = ""  # "spawn" | "torchrun", once recognised
    rank: str = ""  # the name of the global rank, if any
    roles: dict = field(default_factory=dict)  # name -> key of _ROLE_CODE
    flag: str | None = None  # torchrun: the name telling a DDP run from a plain one
    devices: str = ""
    strategy: str = '"ddp"'
    accelerator: str = '"cpu"'
    removed: list = field(default_factory=list)  # statements that go
    helpers: list = field(default_factory=list)  # setup()/cleanup() defs nothing else calls
    rewrites: list = field(default_factory=list)  # (statement, replacement) outside the loop
    early_prints: list = field(default_factory=list)  # prints reading the rank, before the loop
    sampler_shuffle: bool = True
    set_epoch: list = field(default_factory=list)  # (sampler name, statement)
    wrappers: dict = field(default_factory=dict)  # name bound to DDP(model) / .module -> model
    devices_named: set = field(default_factory=set)  # device names the setup bound
    backend_name: str | None = None  # `backend = "nccl" if ... else "gloo"` of the setup
    backend_ref: str | None = None  # the name init_process_group was given as its backend
    world_names: set = field(default_factory=set)  # the process count as the worker reads it
    group_start: cst.CSTNode | None = None  # the statement starting the process group
    why: dict = field(default_factory=dict)  # id of a removed statement -> the change log's why
    launch_call: tuple | None = None  # (the mp.spawn statement, the call replacing it)


def _remove(facts: Facts, stmts, why: str) -> None:
    facts.removed += stmts
    facts.why.update({id(stmt): why for stmt in stmts})


def uses_ddp(ctx) -> bool:
    found = ctx.found.get("ddp_marks")
    if found is None:
        names = _SPAWN | {_INIT, _DESTROY} | _DDP | _SAMPLER
        found = any(ctx.call_qualnames(call) & names for call in m.findall(ctx.module, m.Call()))
        ctx.found["ddp_marks"] = found
    return found


def is_ddp_wrap(ctx, value) -> bool:
    """`DDP(model)` in a script this pattern understood (bindings then treats it as the
    DataParallel wrapper it removes)."""
    return (
        "ddp" in ctx.found
        and isinstance(value, cst.Call)
        and bool(ctx.call_qualnames(value) & _DDP)
    )


# -- epoch_body: recognise the launch, rewrite the rank in the epoch's code -------------------


def epoch_body(ctx, stmts):
    if not uses_ddp(ctx):
        return stmts
    facts = Facts()
    ctx.found["ddp"] = facts
    try:
        if ctx.in_function and _spawn_calls(ctx):
            _read_launch(ctx, facts)
            _read_process_group(ctx, facts)
        elif _reads_env(ctx, ctx.module, _ENV_ROLES):
            _read_torchrun(ctx, facts)
        elif ctx.in_function:
            raise Unsupported(
                LAUNCH, "no `mp.spawn` starts the function holding the loop", ctx.loop
            )
        else:
            raise Unsupported(DISTRIBUTED_SCRIPT, DISTRIBUTED_SCRIPT.title, ctx.loop)
        if facts.backend_ref is not None and facts.backend_ref != facts.backend_name:
            raise Unsupported(
                PROCESS_GROUP,
                f"the backend `{facts.backend_ref}` is not a gloo/nccl choice",
                ctx.loop,
            )
        _read_collectives(ctx)
        _read_wrappers(ctx, facts)
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
    stmts = _take_set_epoch(ctx, facts, stmts)
    return [_ranks_as(facts, stmt, _IN_MODULE) for stmt in stmts]


def _attr(owner: str, name: str) -> cst.Attribute:
    return cst.Attribute(value=cst.Name(owner), attr=cst.Name(name))


def _ranks_as(facts: Facts, stmt, where: int):
    """`stmt` with the rank names read from the module or the trainer (`where`), and
    `ddp_model.module` / `ddp_model` / `raw_model` read as the model."""
    if not (facts.roles.keys() | facts.wrappers.keys()) & mentions(stmt):
        return stmt  # the node itself: other patterns may know it by identity
    stmt = stmt.visit(_Unwrap(facts.wrappers))
    mapping = {
        name: cst.parse_expression(_ROLE_CODE[role][where]) for name, role in facts.roles.items()
    }
    mapping.update({name: cst.Name(model) for name, model in facts.wrappers.items()})
    return rename(stmt, mapping)


class _Unwrap(cst.CSTTransformer):
    """`ddp_model.module` -> `model` (the module DDP wrapped)."""

    def __init__(self, wrappers: dict[str, str]) -> None:
        super().__init__()
        self.wrappers = wrappers

    def leave_Attribute(self, original_node, updated_node):
        value = updated_node.value
        if (
            updated_node.attr.value == "module"
            and isinstance(value, cst.Name)
            and value.value in self.wrappers
        ):
            return cst.Name(
                self.wrappers[value.value],
                lpar=updated_node.lpar,
                rpar=updated_node.rpar,
            )
        return updated_node

    def leave_IfExp(self, original_node, updated_node):
        # `(model.module if ddp else model)` -> `model`
        if updated_node.body.deep_equals(updated_node.orelse):
            return updated_node.body
        return updated_node


def _spawn_calls(ctx) -> list:
    return [
        (stmt, call)
        for stmt in _all_statements(ctx.module)
        if isinstance(stmt, cst.SimpleStatementLine)
        for call in m.findall(stmt, m.Call())
        if ctx.call_qualnames(call) & _SPAWN
    ]


def _read_launch(ctx, facts: Facts) -> None:
    """The one `mp.spawn` starting the function holding the loop: the rank parameter, the
    device count, and the call that replaces it."""
    worker = ctx.function
    spawns = _spawn_calls(ctx)
    if len(spawns) != 1:
        raise Unsupported(LAUNCH, f"{len(spawns)} `mp.spawn` calls (expected one)", ctx.loop)
    stmt, call = spawns[0]
    if not (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and stmt.body[0].value is call
    ):
        raise Unsupported(LAUNCH, "`mp.spawn(...)` is not a statement of its own", stmt)
    fn, args, nprocs = _spawn_arguments(call)
    if fn is None or nprocs is None:
        raise Unsupported(LAUNCH, "`mp.spawn` arguments not understood", stmt)
    if not _starts(ctx, fn, stmt, worker.name.value):
        raise Unsupported(
            LAUNCH,
            f"`mp.spawn` does not start `{worker.name.value}`, which holds the loop",
            stmt,
        )
    params = worker.params
    if (
        params.posonly_params
        or params.kwonly_params
        or params.star_arg not in (None, cst.MaybeSentinel.DEFAULT)
        or params.star_kwarg is not None
        or not params.params
        or len(params.params) != len(args) + 1
        or any(p.default is not None for p in params.params)
    ):
        raise Unsupported(
            LAUNCH,
            f"`{worker.name.value}` does not take (rank, *args) as `mp.spawn` passes them",
            worker,
        )
    facts.launch = "spawn"
    facts.rank = params.params[0].name.value
    facts.roles[facts.rank] = "global_rank"
    if isinstance(nprocs, cst.Integer):
        facts.devices = nprocs.value
    else:
        facts.devices = _count_in_worker(args, nprocs, params.params[1:])
        if facts.devices is None:
            raise Unsupported(
                LAUNCH,
                "the process count `nprocs=` is not one of the arguments the worker is given",
                stmt,
            )
        rebound = cst.parse_expression(facts.devices)
        rebound = collect_names(rebound).reads & collect_names(*ctx.before).writes
        if rebound:
            raise Unsupported(LAUNCH, f"the worker rebinds `{sorted(rebound)[0]}`", ctx.loop)
    new_params = params.with_changes(params=params.params[1:])
    facts.rewrites.append((worker, worker.with_changes(params=new_params)))
    arguments = ", ".join(cst.Module(body=[]).code_for_node(a) for a in args)
    launch = cst.Module(body=[]).code_for_node(fn)
    replacement = cst.parse_statement(f"{launch}({arguments})\n")
    replacement = replacement.with_changes(leading_lines=stmt.leading_lines)
    facts.rewrites.append((stmt, replacement))
    facts.launch_call = (stmt, f"{launch}({arguments})")
    ctx.found["ddp_launch"] = stmt


def _count_in_worker(args, nprocs, params) -> str | None:
    """`nprocs` as the worker reads it: the parameter given the same value (`world_size`), or
    an attribute of one (`args.world_size` when the worker is given `args`)."""
    for arg, param in zip(args, params):
        if arg.deep_equals(nprocs):
            return param.name.value
    reads = collect_names(nprocs).reads
    for arg, param in zip(args, params):
        if isinstance(arg, cst.Name) and reads == {arg.value}:
            renamed = rename(nprocs, {arg.value: cst.Name(param.name.value)})
            return cst.Module(body=[]).code_for_node(renamed)
    return None


def _spawn_arguments(call: cst.Call):
    """(the function, its arguments, nprocs) of `mp.spawn(fn, args=(...), nprocs=N)`."""
    fn, args, nprocs = None, [], None
    for position, arg in enumerate(call.args):
        key = (
            arg.keyword.value
            if arg.keyword is not None
            else ("fn", "args", "nprocs")[min(position, 2)]
        )
        if arg.star:
            return None, [], None
        if key == "fn":
            fn = arg.value
        elif key == "args":
            if not isinstance(arg.value, cst.Tuple) or any(
                isinstance(e, cst.StarredElement) for e in arg.value.elements
            ):
                return None, [], None
            args = [e.value for e in arg.value.elements]
        elif key == "nprocs":
            nprocs = arg.value
        elif key == "join":
            if not m.matches(arg.value, m.Name("True")):
                return None, [], None
        else:  # daemon, start_method: not what the Trainer's launcher does
            return None, [], None
    return fn, args, nprocs


def _starts(ctx, fn, stmt, worker: str) -> bool:
    """`fn` is the worker, or a parameter of the function around the spawn that its only
    call gives the worker."""
    if m.matches(fn, m.Name(worker)):
        return True
    if not isinstance(fn, cst.Name):
        return False
    helper = next(
        (
            s
            for s in ctx.module.body
            if isinstance(s, cst.FunctionDef) and any(x is stmt for x in _all_statements(s))
        ),
        None,
    )
    if helper is None:
        return False
    names = [p.name.value for p in helper.params.params]
    if fn.value not in names:
        return False
    index = names.index(fn.value)
    calls = m.findall(ctx.module, m.Call(func=m.Name(helper.name.value)))
    if len(calls) != 1:
        return False
    for position, arg in enumerate(calls[0].args):
        if (arg.keyword is None and position == index) or (
            arg.keyword is not None and arg.keyword.value == fn.value
        ):
            return m.matches(arg.value, m.Name(worker))
    return False


def _all_statements(node) -> list:
    found = []
    for stmt in (
        getattr(node, "body", []) if not isinstance(node, cst.FunctionDef) else (node.body.body)
    ):
        found.append(stmt)
        block = getattr(stmt, "body", None)
        if isinstance(block, cst.IndentedBlock):
            found += _all_statements(block)
        orelse = getattr(stmt, "orelse", None)
        if orelse is not None and isinstance(getattr(orelse, "body", None), cst.IndentedBlock):
            found += _all_statements(orelse.body)
    return found


def _read_process_group(ctx, facts: Facts) -> None:
    """One statement before the loop starts the group (directly or through a helper of the
    module doing only that), one statement after it ends it."""
    starts = [s for s in ctx.before if _group_call(ctx, s, _INIT, facts)]
    if len(starts) != 1:
        raise Unsupported(
            PROCESS_GROUP,
            "the worker does not start its process group once before the loop",
            ctx.loop,
        )
    ends = [s for s in ctx.after if _group_call(ctx, s, _DESTROY, facts)]
    if len(ends) > 1:
        raise Unsupported(PROCESS_GROUP, "the process group is destroyed twice", ends[1])
    _remove(
        facts, [*starts, *ends], 'process group -> `strategy="ddp"`: the Trainer starts and ends it'
    )
    facts.group_start = starts[0]


def _group_call(ctx, stmt, qualname: str, facts: Facts) -> bool:
    """`stmt` is `<qualname>(...)` or a call of a module helper whose body only does that
    (and sets MASTER_ADDR / MASTER_PORT)."""
    if not (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, cst.Call)
    ):
        return False
    call = stmt.body[0].value
    if qualname in ctx.call_qualnames(call):
        if qualname == _INIT:
            _check_backend(ctx, call, {}, facts)
        return True
    if not isinstance(call.func, cst.Name):
        return False
    helper = next(
        (
            s
            for s in ctx.module.body
            if isinstance(s, cst.FunctionDef) and s.name.value == call.func.value
        ),
        None,
    )
    if helper is None:
        return False
    inner = [s for s in helper.body.body if not _is_docstring(s)]
    group = [s for s in inner if _calls(ctx, s, qualname)]
    if len(group) != 1 or not all(s in group or _sets_master_env(s) for s in inner):
        if any(_calls(ctx, s, qualname) for s in inner):
            raise Unsupported(
                PROCESS_GROUP,
                f"`{helper.name.value}()` does more than start or end the process group",
                stmt,
            )
        return False
    if qualname == _INIT:
        params = [p.name.value for p in helper.params.params]
        given = {name: arg.value for name, arg in zip(params, call.args) if arg.keyword is None}
        given.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})
        _check_backend(ctx, group[0].body[0].value, given, facts)
    if len(m.findall(ctx.module, m.Name(helper.name.value))) == 2:  # its def and this call
        facts.helpers.append(helper.name.value)
    return True


def _calls(ctx, stmt, qualname: str) -> bool:
    return any(qualname in ctx.call_qualnames(c) for c in m.findall(stmt, m.Call()))


def _is_docstring(stmt) -> bool:
    return m.matches(stmt, m.SimpleStatementLine([m.Expr(m.SimpleString())]))


def _sets_master_env(stmt) -> bool:
    """`os.environ["MASTER_ADDR"] = ...` / `os.environ.setdefault("MASTER_PORT", ...)`."""
    key = m.SimpleString(value=m.MatchIfTrue(lambda v: v.strip("'\"") in _MASTER))
    environ = m.Attribute(value=m.Name("os"), attr=m.Name("environ"))
    return m.matches(
        stmt,
        m.SimpleStatementLine(
            [
                m.Assign(
                    targets=[
                        m.AssignTarget(m.Subscript(environ, [m.SubscriptElement(m.Index(key))]))
                    ]
                )
                | m.Expr(
                    m.Call(
                        func=m.Attribute(environ, m.Name("setdefault")),
                        args=[m.Arg(key), m.Arg()],
                    )
                )
            ]
        ),
    )


_MASTER = {"MASTER_ADDR", "MASTER_PORT"}


def _check_backend(ctx, call: cst.Call, given: dict, facts: Facts) -> None:
    backend = None
    for position, arg in enumerate(call.args):
        if (arg.keyword is None and position == 0) or (
            arg.keyword is not None and arg.keyword.value == "backend"
        ):
            backend = arg.value
        if arg.keyword is not None and arg.keyword.value == "world_size":
            value = arg.value
            if isinstance(value, cst.Name) and value.value in given:
                value = given[value.value]
            facts.world_names.add(cst.Module(body=[]).code_for_node(value))
        if arg.keyword is not None and arg.keyword.value == "rank":
            value = arg.value
            if isinstance(value, cst.Name) and value.value in given:
                value = given[value.value]
            if not m.matches(value, m.Name(facts.rank)):
                raise Unsupported(
                    PROCESS_GROUP,
                    "the process group's rank is not the rank `mp.spawn` passed",
                    call,
                )
    if isinstance(backend, cst.Name) and backend.value in given:
        backend = given[backend.value]
    if isinstance(backend, cst.Name):  # bound by the setup block (checked there)
        facts.backend_ref = backend.value
        return
    code = cst.Module(body=[]).code_for_node(backend) if backend is not None else None
    if code not in _BACKENDS:
        raise Unsupported(
            PROCESS_GROUP,
            f"process group backend {code or '(default)'} (only gloo, on CPU, is converted)",
            call,
        )
    facts.accelerator = _BACKENDS[code]


def _read_collectives(ctx) -> None:
    where = ctx.function if ctx.in_function else ctx.module
    for call in m.findall(where, m.Call()):
        names = ctx.call_qualnames(call)
        if any(q.startswith("torch.distributed.") for q in names) and not names & (
            {_INIT, _DESTROY} | _GROUP_QUERIES
        ):
            ctx.block(
                COLLECTIVE,
                f"`{cst.Module(body=[]).code_for_node(call.func)}(...)` called by hand",
                call,
            )


def _flag_body(facts: Facts, stmt) -> list | None:
    """The statements of `if <flag>:` (no else), or None for any other statement."""
    if (
        facts.flag
        and isinstance(stmt, cst.If)
        and stmt.orelse is None
        and m.matches(stmt.test, m.Name(facts.flag))
    ):
        return list(stmt.body.body)
    return None


def _read_wrappers(ctx, facts: Facts) -> None:
    """`ddp_model = DDP(model)` (also under `if <flag>:`): the strategy's wrapper now;
    `raw_model = model.module if <flag> else model`: the model itself."""
    for stmt in ctx.scope_before:
        inner = _flag_body(facts, stmt)
        for each in [stmt] if inner is None else inner:
            assign = single_assign(each)
            if assign and _unwraps(facts, assign[1]):
                facts.wrappers[assign[0]] = _unwraps(facts, assign[1])
                _remove(facts, [stmt], "the unwrapped model -> the model itself")
                continue
            for call in m.findall(each, m.Call()):
                if not ctx.call_qualnames(call) & _DDP:
                    continue
                if assign is None or assign[1] is not call:
                    raise Unsupported(
                        DDP_OPTIONS, "DDP(...) is not bound by itself to a name", each
                    )
                extra = [a for a in call.args[1:] if not _harmless_ddp_arg(a, facts)]
                if extra or not call.args or call.args[0].keyword not in (None, "module"):
                    raise Unsupported(DDP_OPTIONS, "DDP(...) with options", each)
                inner = call.args[0].value
                # `DDP(model)` wraps `model`; `model = DDP(Net())` becomes `model = Net()`
                facts.wrappers[assign[0]] = (
                    inner.value if isinstance(inner, cst.Name) else assign[0]
                )


def _unwraps(facts: Facts, value) -> str | None:
    """The model `value` reads through DDP's `.module` (`model.module if ddp else model`)."""
    if isinstance(value, cst.IfExp) and facts.flag and m.matches(value.test, m.Name(facts.flag)):
        body, orelse = value.body, value.orelse
        if m.matches(body, m.Attribute(m.Name(), m.Name("module"))) and m.matches(
            orelse, m.Name(body.value.value)
        ):
            return orelse.value
    return None


def _harmless_ddp_arg(arg: cst.Arg, facts: Facts) -> bool:
    """`device_ids=` / `output_device=`: None, or this process's own rank (as the strategy
    passes them)."""
    if arg.keyword is None or arg.keyword.value not in ("device_ids", "output_device"):
        return False
    reads = collect_names(arg.value).reads
    return reads <= {"None", "torch", *facts.roles}


def _take_set_epoch(ctx, facts: Facts, stmts):
    """`sampler.set_epoch(epoch)` statements of the epoch body (also under `if <flag>:`):
    the Trainer's now."""
    kept = []
    for stmt in stmts:
        inner = _flag_body(facts, stmt)
        only = inner[0] if inner is not None and len(inner) == 1 else stmt
        receiver = call_method(only, "set_epoch")
        if isinstance(receiver, cst.Name):
            facts.set_epoch.append((receiver.value, only, stmt))
            continue
        kept.append(stmt)
    return kept


# -- torchrun: the environment's ranks -----------------------------------------------------


def _env_key(ctx, node) -> str | None:
    """K of `os.environ["K"]`, `os.environ.get("K", ...)`, `os.getenv("K", ...)`,
    `"K" in os.environ`, else None."""
    if isinstance(node, cst.Subscript) and "os.environ" in ctx.qualnames(node.value):
        key = node.slice[0].slice if len(node.slice) == 1 else None
        value = getattr(key, "value", None)
    elif isinstance(node, cst.Call) and (
        ctx.call_qualnames(node) & {"os.getenv", "os.environ.get"}
    ):
        value = node.args[0].value if node.args else None
    elif (
        isinstance(node, cst.Comparison)
        and len(node.comparisons) == 1
        and isinstance(node.comparisons[0].operator, cst.In)
        and "os.environ" in ctx.qualnames(node.comparisons[0].comparator)
    ):
        value = node.left
    else:
        return None
    if isinstance(value, cst.SimpleString):
        return value.evaluated_value
    return None


def _reads_env(ctx, node, keys) -> bool:
    return any(
        _env_key(ctx, found) in keys
        for found in m.findall(node, m.Subscript() | m.Call() | m.Comparison())
    )


def _read_torchrun(ctx, facts: Facts) -> None:
    """`init_process_group()` once before the loop, alone or in an `if <flag>:` block whose
    other statements bind the ranks from the environment and choose the device; the `else`
    binds the same names for a single process."""
    facts.launch = "torchrun"
    starts = [s for s in ctx.scope_before if _calls(ctx, s, _INIT)]
    if len(starts) != 1:
        raise Unsupported(
            PROCESS_GROUP,
            "the script does not start its process group once before the loop",
            ctx.loop,
        )
    start = starts[0]
    if isinstance(start, cst.If):
        flag = start.test
        binding, count = ctx.binding(flag.value) if isinstance(flag, cst.Name) else (None, 0)
        if binding is None or count != 1 or not _reads_env(ctx, binding[1], _ENV_ROLES):
            raise Unsupported(
                TORCHRUN,
                "the process group starts under a condition other than a name bound once from "
                "torchrun's environment",
                start,
            )
        facts.flag = flag.value
        facts.strategy = f'"ddp" if {flag.value} else "auto"'
        _read_setup_block(ctx, facts, list(start.body.body), single=False)
        if start.orelse is not None:
            if not isinstance(start.orelse, cst.Else):
                raise Unsupported(TORCHRUN, "`elif` in the process group's setup", start)
            _read_setup_block(ctx, facts, list(start.orelse.body.body), single=True)
        _remove(
            facts, [start], "torchrun setup -> the Trainer (`devices=`, `strategy=`) and its ranks"
        )
    else:
        _read_setup_block(ctx, facts, [start], single=False)
        _remove(
            facts, [start], "torchrun setup -> the Trainer (`devices=`, `strategy=`) and its ranks"
        )
    facts.group_start = start
    for stmt in ctx.scope_before:  # ranks bound outside the block: `rank = int(os.environ[...])`
        if stmt is start or not isinstance(stmt, cst.SimpleStatementLine):
            continue
        role = _env_role(ctx, facts, stmt)
        if role is not None:
            _remove(facts, [stmt], "rank from the environment -> the Trainer's")
    facts.devices = 'int(os.environ.get("LOCAL_WORLD_SIZE", 1))'
    if "os" not in ctx.module_defs:
        raise Unsupported(TORCHRUN, "the script does not `import os`", ctx.loop)
    ends = [s for s in ctx.scope_after if _calls(ctx, s, _DESTROY)]
    for end in ends:
        inner = _flag_body(facts, end)
        if not (
            _group_call(ctx, end, _DESTROY, facts)
            or (
                inner is not None
                and len(inner) == 1
                and _group_call(ctx, inner[0], _DESTROY, facts)
            )
        ):
            raise Unsupported(PROCESS_GROUP, "the process group ends inside other code", end)
        _remove(facts, [end], 'process group -> `strategy="ddp"`: the Trainer starts and ends it')
    facts.rank = next((n for n, role in facts.roles.items() if role == "global_rank"), "")


def _env_role(ctx, facts: Facts, stmt) -> str | None:
    """`X = int(os.environ["RANK"])` (LOCAL_RANK, WORLD_SIZE) and `X = <rank> == 0`: the
    role of X, recorded."""
    assign = single_assign(stmt)
    if assign is None:
        return None
    name, value = assign
    role = None
    if m.matches(value, m.Call(func=m.Name("int"), args=[m.Arg()])):
        role = _ENV_ROLES.get(_env_key(ctx, value.args[0].value))
    elif (
        m.matches(
            value,
            m.Comparison(
                left=m.Name(),
                comparisons=[m.ComparisonTarget(m.Equal(), m.Integer("0"))],
            ),
        )
        and facts.roles.get(value.left.value) == "global_rank"
    ):
        role = "is_global_zero"
    if role is None:
        return None
    if facts.roles.get(name, role) != role:
        raise Unsupported(TORCHRUN, f"`{name}` means different ranks", stmt)
    facts.roles[name] = role
    return role


_SINGLE_VALUES = {
    "global_rank": "0",
    "local_rank": "0",
    "world_size": "1",
    "is_global_zero": "True",
}


def _read_setup_block(ctx, facts: Facts, stmts, single: bool) -> None:
    """Each statement of the setup (or of its single-process `else`) must be one the Trainer
    replaces: the group's start, a rank binding, the device choice, the backend's name.
    """
    for stmt in stmts:
        if _is_docstring(stmt):
            continue
        if not single and _group_call(ctx, stmt, _INIT, facts):
            continue
        if not single and _env_role(ctx, facts, stmt) is not None:
            continue
        assign = single_assign(stmt)
        if single and assign is not None:
            name, value = assign
            role = facts.roles.get(name)
            if role is not None:
                code = cst.Module(body=[]).code_for_node(value)
                if code != _SINGLE_VALUES[role]:
                    raise Unsupported(
                        TORCHRUN,
                        f"`{name}` is {code} without DDP, not {_SINGLE_VALUES[role]}",
                        stmt,
                    )
                continue
        if _device_choice(ctx, facts, stmt):
            continue
        if (
            assign is not None
            and assign[0] == "backend"
            or (assign is not None and _is_backend_choice(assign[1]))
        ):
            facts.accelerator = _accelerator_of(ctx, assign[1], stmt)
            facts.backend_name = assign[0]
            continue
        raise Unsupported(
            TORCHRUN,
            "a statement of the process group's setup the Trainer does not replace",
            stmt,
        )


def _is_backend_choice(value) -> bool:
    strings = [s.evaluated_value for s in m.findall(value, m.SimpleString())]
    return bool(strings) and set(strings) <= {"gloo", "nccl"}


def _accelerator_of(ctx, value, stmt) -> str:
    """gloo -> "cpu", nccl -> "gpu", `"nccl" if C else "gloo"` -> `"gpu" if C else "cpu"`."""
    code = cst.Module(body=[]).code_for_node(value)
    for backend, accelerator in (("nccl", "gpu"), ("gloo", "cpu")):
        code = code.replace(f'"{backend}"', f'"{accelerator}"').replace(
            f"'{backend}'", f'"{accelerator}"'
        )
    if not _is_backend_choice(value) or not (
        isinstance(value, cst.SimpleString)
        or (
            isinstance(value, cst.IfExp)
            and all(isinstance(v, cst.SimpleString) for v in (value.body, value.orelse))
        )
    ):
        raise Unsupported(PROCESS_GROUP, "the backend is not chosen from gloo/nccl literals", stmt)
    return code


def _device_choice(ctx, facts: Facts, stmt) -> bool:
    """`device = "cpu"` / f"cuda:{local_rank}" / "cuda" if ... else "cpu", `torch.cuda.
    set_device(...)`, and an `if` holding only those: the accelerator's now."""
    if isinstance(stmt, cst.If):
        blocks = [stmt.body.body]
        orelse = stmt.orelse
        while orelse is not None:
            blocks.append(orelse.body.body)
            orelse = getattr(orelse, "orelse", None)
        return all(_device_choice(ctx, facts, s) for block in blocks for s in block)
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        return bool(ctx.call_qualnames(small.value) & {"torch.cuda.set_device"})
    assign = single_assign(stmt)
    if assign is None:
        return False
    strings = [s for s in m.findall(assign[1], m.SimpleString() | m.FormattedString())]
    texts = [
        (
            s.evaluated_value
            if isinstance(s, cst.SimpleString)
            else cst.Module(body=[]).code_for_node(s)
        )
        for s in strings
    ]
    if strings and all(("cuda" in t or t == "cpu" or "cpu" in t) for t in texts):
        facts.devices_named.add(assign[0])
        return True
    return False


# -- bind / read: the sampler, the code around the loop, the Trainer's arguments ---------------


def bind(ctx, plan, steps) -> None:
    """A step loop (no epoch_body phase) still answers to this pattern, not to TL115."""
    if uses_ddp(ctx) and "ddp" not in ctx.found:
        ctx.found["ddp"] = Facts()


def read(ctx, plan, steps) -> None:
    if not uses_ddp(ctx):
        return
    facts = ctx.found.get("ddp")
    if plan.step_loop:
        ctx.block(STEP_LOOP, STEP_LOOP.title, ctx.loop)
        return
    if facts is None or not facts.launch:
        return  # refused in epoch_body
    for evaluation in (plan.validation, plan.test):
        if evaluation is not None:
            ctx.block(EVAL_UNDER_DDP, EVAL_UNDER_DDP.title, evaluation.anchor)
    _read_sampler(ctx, plan, facts)
    _read_rank_before(ctx, plan, facts)
    for stmt in ctx.scope_after:
        if stmt in facts.removed:
            continue
        new = _ranks_as(facts, stmt, _AFTER_TRAINER)
        if not new.deep_equals(stmt):
            plan.rewrite_stmts.append((stmt, new))
    plan.remove_stmts += facts.removed
    plan.removed_why += [
        (stmt, facts.why[id(stmt)]) for stmt in facts.removed if id(stmt) in facts.why
    ]
    plan.rewrite_stmts += facts.rewrites
    if facts.launch_call is not None:
        stmt, code = facts.launch_call
        why = "`mp.spawn` -> a plain call: the Trainer starts the processes (`devices=`)"
        plan.rewritten_why.append((stmt, code, why))
    plan.inlined_helpers += facts.helpers
    plan.after_trainer += facts.early_prints
    plan.device_names |= facts.devices_named
    arguments = [(k, v) for k, v in plan.trainer_args if k not in ("accelerator", "devices")]
    plan.trainer_args[:] = [
        ("accelerator", facts.accelerator),
        ("devices", facts.devices),
        ("strategy", facts.strategy),
        *arguments,
    ]
    if facts.launch == "spawn":
        plan.device_note = (
            f'mp.spawn + DistributedDataParallel -> `strategy="ddp"`, `devices='
            f"{facts.devices}`: `python script.py` starts the same processes"
        )
    else:
        plan.device_note = (
            'torchrun\'s DDP -> `strategy="ddp"` with `devices=` the processes torchrun '
            "starts per node; `python script.py` still trains in one process"
        )
    plan.notes.append(plan.device_note)
    _trainer_built_early(ctx, plan)


def _read_rank_before(ctx, plan, facts: Facts) -> None:
    """Code before the loop reading a rank. Before the process group starts, a `print` moves
    after the Trainer; anything else there is refused. After it (a per-rank seed, per-rank
    data), the Trainer is built where the group started and the code reads its rank."""
    gone = {id(s) for s in [*facts.removed, *plan.remove_stmts]}
    started = False
    late = []
    for stmt in ctx.scope_before:
        if stmt is facts.group_start:
            started = True
            continue
        if id(stmt) in gone or isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        if not facts.roles.keys() & scope_reads(stmt):
            continue
        if started:
            late.append(stmt)
        elif m.matches(stmt, m.SimpleStatementLine([m.Expr(m.Call(func=m.Name("print")))])):
            new = _ranks_as(facts, stmt.with_changes(leading_lines=[]), _AFTER_TRAINER)
            facts.early_prints.append(cst.Module(body=[new]).code.strip())
            _remove(facts, [stmt], "print of the rank -> after the Trainer is built")
        else:
            name = sorted(facts.roles.keys() & scope_reads(stmt))[0]
            ctx.block(RANK_READ, f"`{name}` is read before the process group starts", stmt)
    claimed = {id(s) for s, _ in plan.rewrite_stmts} | {id(s) for s in plan.strip_stmts}
    claimed |= {id(o.stmt) for o in plan.optimizers} | {
        id(o.scheduler_stmt) for o in plan.optimizers
    }
    for stmt in late:
        if id(stmt) in claimed:
            name = sorted(facts.roles.keys() & scope_reads(stmt))[0]
            ctx.block(RANK_READ, f"`{name}` is read by code the conversion moves", stmt)
            continue
        plan.rewrite_stmts.append((stmt, _ranks_as(facts, stmt, _AFTER_TRAINER)))
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


def _read_sampler(ctx, plan, facts: Facts) -> None:
    """A DistributedSampler equal to the one Lightning puts in the training loader goes, with
    its set_epoch calls; the loader shuffles as the sampler did."""
    loader_binding, count = ctx.binding(plan.train_loader)
    if loader_binding is None or count != 1:
        if facts.set_epoch or _sampler_bindings(ctx):
            ctx.block(
                SAMPLER,
                "the training loader is not bound once before the loop",
                ctx.loop,
            )
        return
    loader_stmt, loader = loader_binding
    samplers = _sampler_bindings(ctx)
    sampler_arg = next(
        (a for a in getattr(loader, "args", ()) if a.keyword and a.keyword.value == "sampler"),
        None,
    )
    if sampler_arg is None:
        if samplers or facts.set_epoch:
            ctx.block(
                SAMPLER,
                "a DistributedSampler not given to the training loader",
                ctx.loop,
            )
        else:  # every rank iterated the whole loader: so it does under the Trainer
            plan.add_trainer_arg("use_distributed_sampler", "False")
        return
    value = sampler_arg.value
    if not isinstance(value, cst.Name) or value.value not in samplers or len(samplers) != 1:
        ctx.block(
            SAMPLER,
            "the training loader's sampler is not one DistributedSampler",
            loader_stmt,
        )
        return
    name = value.value
    stmt, call = samplers[name]
    why = _differs_from_lightning(ctx, call, loader, facts)
    if why:
        ctx.block(SAMPLER, why, stmt)
        return
    epoch_calls = [s for receiver, s, _ in facts.set_epoch if receiver == name]
    if facts.sampler_shuffle and not epoch_calls:
        ctx.block(
            SAMPLER,
            "the sampler shuffles but `set_epoch` is never called: every epoch would get the "
            "same order, Lightning's sampler changes it",
            stmt,
        )
        return
    for receiver, call_stmt, _ in facts.set_epoch:
        arg = call_stmt.body[0].value.args
        epoch = m.Name(plan.epoch_var or "")
        if receiver != name or len(arg) != 1 or not m.matches(arg[0].value, epoch):
            ctx.block(SAMPLER, "`set_epoch` is not called with the epoch number", call_stmt)
            return
    users = [s for s in [*ctx.scope_before, *ctx.scope_after] if name in scope_reads(s)]
    if users != [loader_stmt]:
        ctx.block(SAMPLER, f"`{name}` is used besides the training loader", stmt)
        return
    _remove(facts, [stmt], "DistributedSampler -> Lightning's own, the same (set_epoch each epoch)")
    loader = _shuffling_loader(loader_stmt, facts.sampler_shuffle)
    plan.rewrite_stmts.append((loader_stmt, loader))
    why = "the loader shuffles as its DistributedSampler did; Lightning gives each rank its shard"
    plan.rewritten_why.append((loader_stmt, cst.Module(body=[loader]).code, why))


def _sampler_bindings(ctx) -> dict:
    """name -> (statement, DistributedSampler call) of `s = DistributedSampler(...)`, or
    `s = DistributedSampler(...) if <flag> else None`."""
    facts = ctx.found["ddp"]
    found = {}
    for stmt in ctx.scope_before:
        assign = single_assign(stmt)
        if assign is None:
            continue
        value = assign[1]
        if (
            isinstance(value, cst.IfExp)
            and facts.flag
            and m.matches(value.test, m.Name(facts.flag))
            and m.matches(value.orelse, m.Name("None"))
        ):
            value = value.body
        if isinstance(value, cst.Call) and ctx.call_qualnames(value) & _SAMPLER:
            found[assign[0]] = (stmt, value)
    return found


def _differs_from_lightning(ctx, call: cst.Call, loader: cst.Call, facts: Facts) -> str | None:
    names = ("dataset", "num_replicas", "rank", "shuffle", "seed", "drop_last")
    given = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            return "DistributedSampler(*args) not understood"
        key = arg.keyword.value if arg.keyword is not None else names[min(position, 5)]
        given[key] = arg.value
    dataset = loader.args[0].value if loader.args and loader.args[0].keyword is None else None
    for arg in loader.args:
        if arg.keyword is not None and arg.keyword.value == "dataset":
            dataset = arg.value
    if dataset is None or "dataset" not in given or not given["dataset"].deep_equals(dataset):
        return "the sampler's dataset is not the training loader's"
    ranks = [n for n, role in facts.roles.items() if role == "global_rank"]
    rank = given.get("rank")
    if rank is not None and not (isinstance(rank, cst.Name) and rank.value in ranks):
        return "the sampler's rank is not the process's rank"
    sizes = [n for n, role in facts.roles.items() if role == "world_size"] + [facts.devices]
    sizes += facts.world_names
    replicas = given.get("num_replicas")
    if replicas is not None and not (cst.Module(body=[]).code_for_node(replicas) in sizes):
        return "the sampler's num_replicas is not the process count"
    seed = given.get("seed")
    if seed is not None and not (isinstance(seed, cst.Integer) and seed.evaluated_value == 0):
        return "the sampler has its own seed (Lightning's sampler uses seed 0)"
    drop_last = given.get("drop_last")
    if drop_last is not None and not m.matches(drop_last, m.Name("False")):
        return "the sampler drops the last samples (Lightning's sampler pads them)"
    shuffle = given.get("shuffle")
    if shuffle is not None and not m.matches(shuffle, m.Name("True") | m.Name("False")):
        return "the sampler's shuffle is not True or False"
    facts.sampler_shuffle = shuffle is None or shuffle.value == "True"
    for arg in loader.args:
        if arg.keyword is not None and arg.keyword.value in (
            "shuffle",
            "batch_sampler",
        ):
            # `shuffle=(sampler is None)`: False beside the sampler
            unsampled = m.Comparison(comparisons=[m.ComparisonTarget(m.Is(), m.Name("None"))])
            if not m.matches(arg.value, m.Name("False") | unsampled):
                return f"the training loader passes `{arg.keyword.value}=` beside its sampler"
    return None


def _shuffling_loader(stmt, shuffle: bool):
    """The loader statement without `sampler=` (nor `shuffle=False`), with `shuffle=True`
    where the sampler shuffled."""

    class Rewrite(cst.CSTTransformer):
        def leave_Call(self, original_node, updated_node):
            if original_node is not loader:
                return updated_node
            args = [
                a
                for a in updated_node.args
                if a.keyword is None or a.keyword.value not in ("sampler", "shuffle")
            ]
            if shuffle:
                equal = cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""),
                    whitespace_after=cst.SimpleWhitespace(""),
                )
                args.append(cst.Arg(cst.Name("True"), keyword=cst.Name("shuffle"), equal=equal))
            last = len(args) - 1
            args = [
                (
                    a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    if i == last
                    else a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                )
                for i, a in enumerate(args)
            ]
            return updated_node.with_changes(args=args)

    loader = single_assign(stmt)[1]
    return stmt.visit(Rewrite())
