"""What the DDP pattern learns of a script (`Facts`), and how rank names and DDP wrappers
are read once the Trainer owns the processes."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from ...analysis.names import mentions, rename
from ...source.code_text import code_of

DDP_CLASSES = {
    "torch.nn.parallel.DistributedDataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel",
}
SPAWN_FUNCTIONS = {"torch.multiprocessing.spawn", "torch.multiprocessing.spawn.spawn"}
INIT_GROUP = "torch.distributed.init_process_group"
DESTROY_GROUP = "torch.distributed.destroy_process_group"
SAMPLER_CLASSES = {
    "torch.utils.data.DistributedSampler",
    "torch.utils.data.distributed.DistributedSampler",
}
# questions about the group: asked in the epoch's code and after the loop, they get the same
# answers from the Trainer's group, which both engines keep until the process exits (asked
# before the loop, they would not: init_helper.check_group_unused)
GROUP_QUERIES = {
    "torch.distributed.is_initialized",
    "torch.distributed.is_available",
    "torch.distributed.get_rank",
    "torch.distributed.get_world_size",
}
BACKENDS = {'"gloo"': '"cpu"', "'gloo'": '"cpu"'}


ENV_ROLES = {
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
IN_MODULE, AFTER_TRAINER = 0, 1


@dataclass
class Facts:
    """What the DDP script turned out to be (ctx.found["ddp"])."""

    launch: str = ""  # "spawn" | "torchrun", once recognised
    rank: str = ""  # the name of the global rank, if any
    roles: dict = field(default_factory=dict)  # name -> key of _ROLE_CODE
    flag: str | None = None  # torchrun: the code telling a DDP run from a plain one (`ddp`,
    # `args.distributed`)
    devices: str = ""
    num_nodes: str = ""  # torchrun's node count, for a script only torchrun starts
    strategy: str = '"ddp"'
    accelerator: str = '"cpu"'
    removed: list = field(default_factory=list)  # statements that go
    helpers: list = field(default_factory=list)  # setup()/cleanup() defs nothing else calls
    rewrites: list = field(default_factory=list)  # (statement, replacement) outside the loop
    # `if <flag>: dist.barrier(); destroy_process_group()` with code after it: its barriers
    # kept as `trainer.strategy.barrier()` (torchrun.py)
    final_barriers: list = field(default_factory=list)
    early_prints: list = field(default_factory=list)  # prints reading the rank, before the loop
    sampler_shuffle: bool = True
    set_epoch: list = field(default_factory=list)  # (sampler name, statement)
    # set_epoch statements after the batch loop: they set the next epoch's order
    late_set_epoch: list = field(default_factory=list)
    # the script's own DistributedSampler kept (own_sampler.py): (its statement, the
    # `num_replicas=` / `rank=` keywords it needs from the Trainer, the change log's why)
    kept_sampler: tuple | None = None
    wrappers: dict = field(default_factory=dict)  # name bound to DDP(model) / .module -> model
    unwrapped: set = field(default_factory=set)  # those bound to the `.module` (or the model)
    devices_named: set = field(default_factory=set)  # device names the setup bound
    backend_name: str | None = None  # `backend = "nccl" if ... else "gloo"` of the setup
    backend_ref: str | None = None  # the name init_process_group was given as its backend
    world_names: set = field(default_factory=set)  # the process count as the worker reads it
    group_start: cst.CSTNode | None = None  # the statement starting the process group
    why: dict = field(default_factory=dict)  # id of a removed statement -> the change log's why
    launch_call: tuple | None = None  # (the mp.spawn statement, the call replacing it)
    # ranks the script keeps reading itself, equal to the Trainer's (`args.rank` bound from
    # torchrun's RANK): code -> role
    kept_ranks: dict = field(default_factory=dict)
    # rank names a script only torchrun starts binds from the environment and reads before
    # the loop: their bindings stay (torchrun's values, there as in the script)
    env_bound: set = field(default_factory=set)
    # `dist.all_reduce(name)` statements of the epoch's code, kept when they reduce the
    # validation pass's counters (evaluation.py)
    reduces: list = field(default_factory=list)
    wrapper_runs: list = field(default_factory=list)  # (epoch statement, call running DDP)
    # `w = DDP(name)`: (that statement, the statement of the scope holding it, w, the model)
    wraps: list = field(default_factory=list)
    eval_sharded: bool = False  # the validation loader's DistributedSampler taken over
    # loaders whose DistributedSampler goes to Lightning: sharded only inside `fit`
    sharded_loaders: list = field(default_factory=list)


def remove_with_reason(facts: Facts, stmts, why: str) -> None:
    facts.removed += stmts
    facts.why.update({id(stmt): why for stmt in stmts})


def uses_ddp(ctx) -> bool:
    found = ctx.found.get("ddp_marks")
    if found is None:
        names = SPAWN_FUNCTIONS | {INIT_GROUP, DESTROY_GROUP} | DDP_CLASSES | SAMPLER_CLASSES
        found = any(ctx.call_qualnames(call) & names for call in m.findall(ctx.module, m.Call()))
        ctx.found["ddp_marks"] = found
    return found


def is_ddp_wrap(ctx, value) -> bool:
    """`DDP(model)` in a script this pattern understood (bindings then treats it as the
    DataParallel wrapper it removes)."""
    return (
        "ddp" in ctx.found
        and isinstance(value, cst.Call)
        and bool(ctx.call_qualnames(value) & DDP_CLASSES)
    )


def all_ranks(facts: Facts) -> list[tuple[str, str]]:
    """(code, role) of every rank the script reads: the names the Trainer's ranks replace and
    those it keeps binding itself (`args.rank`)."""
    return [*facts.roles.items(), *facts.kept_ranks.items()]


def ddp_unwrap(ctx, assign: tuple, model: str) -> bool:
    """`assign` (name, value) is `x = ddp_model.module`, x read as `model` (wrappers.py)."""
    facts = ctx.found.get("ddp")
    name, value = assign
    return (
        facts is not None
        and m.matches(value, m.Attribute(m.Name(), m.Name("module")))
        and facts.wrappers.get(value.value.value) == model
        and facts.wrappers.get(name) == model
    )


def read_as_model(ctx, model) -> None:
    """A model plan named after DDP's unwrapped module (`model_without_ddp = model.module`,
    the name the optimizer reads) trains the model DDP wrapped: that name, the other an alias."""
    facts = ctx.found.get("ddp")
    if facts is not None and model.name in facts.unwrapped:
        inner = facts.wrappers[model.name]
        model.aliases.add(model.name)
        model.name = inner


def _attr(owner: str, name: str) -> cst.Attribute:
    return cst.Attribute(value=cst.Name(owner), attr=cst.Name(name))


def ranks_as(facts: Facts, stmt, where: int):
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


def is_flag(facts: Facts, expr) -> bool:
    """`expr` is the flag telling a DDP run from a plain one (a name or `args.distributed`)."""
    return bool(facts.flag) and code_of(expr) == facts.flag


def flag_body(facts: Facts, stmt) -> list | None:
    """The statements of `if <flag>:` (no else), or None for any other statement."""
    if isinstance(stmt, cst.If) and stmt.orelse is None and is_flag(facts, stmt.test):
        return list(stmt.body.body)
    return None
