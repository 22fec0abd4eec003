"""A DistributedSampler Lightning's own reproduces, and its `set_epoch` calls."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.names import scope_reads
from ...analysis.statements import BACKWARD, call_method, contains, single_assign, with_keywords
from ...source.code_text import code_of
from ...source.flag_branch_loaders import why_not_joined
from .facts import SAMPLER_CLASSES, Facts, all_ranks, flag_body, is_flag, remove_with_reason
from .loader_function import built_by_function, read_function_loader
from .own_sampler import keep_own_sampler
from .rules import EVAL_UNDER_DDP, SAMPLER
from .sharded_reads import read_outside_fit


def take_set_epoch(ctx, facts: Facts, stmts):
    """`sampler.set_epoch(epoch)` statements of the epoch body (also under `if <flag>:`):
    the Trainer's now."""
    kept = []
    drawn = False  # the batch loop (the statement holding `backward()`) came before
    for stmt in stmts:
        inner = flag_body(facts, stmt)
        only = inner[0] if inner is not None and len(inner) == 1 else stmt
        receiver = call_method(only, "set_epoch")
        if isinstance(receiver, cst.Name):
            facts.set_epoch.append((receiver.value, only, stmt))
        elif m.matches(receiver, m.Attribute(m.Name(), m.Name("sampler"))):
            # `train_data.sampler.set_epoch(epoch)`: the loader's sampler, by its loader
            facts.set_epoch.append((f"{receiver.value.value}.sampler", only, stmt))
        else:
            drawn = drawn or contains(stmt, BACKWARD)
            kept.append(stmt)
            continue
        if drawn:
            facts.late_set_epoch.append(only)
    return kept


def read_sampler(ctx, plan, facts: Facts) -> None:
    """A DistributedSampler equal to the one Lightning puts in the training loader goes, with
    its set_epoch calls; the loader shuffles as the sampler did. So does the validation
    loader's, when it is the one Lightning puts there (not shuffling, padded)."""
    samplers = _sampler_bindings(ctx)
    loader_binding, count = ctx.binding(plan.train_loader)
    if loader_binding is None or count != 1:
        branched = _bound_in_flag_branches(ctx, facts, plan.train_loader)
        if branched is not None:
            # the branches that are one loader are joined and planned again (engine.py)
            why = why_not_joined(branched, ctx.names) or "a shape not read here"
            ctx.block(
                SAMPLER,
                f"the training loader `{plan.train_loader}` is built in both branches of "
                f"`if {facts.flag}:` (with a DistributedSampler in one): {why}; the one-line "
                f"form is: `s = DistributedSampler(...) if {facts.flag} else None`"
                ", `DataLoader(..., sampler=s, shuffle=s is None)`",
                branched,
            )
        elif facts.set_epoch or samplers:
            ctx.block(
                SAMPLER,
                "the training loader is not bound once before the loop",
                ctx.loop,
            )
        return
    loader_stmt, loader = loader_binding
    built_here = isinstance(loader, cst.Call) and any(
        q.endswith("DataLoader") for q in ctx.call_qualnames(loader)
    )
    built = None if built_here else built_by_function(ctx, loader)
    if built is not None:  # `prepare_dataloader(dataset, bs)`: its sampler read in it
        read_function_loader(ctx, plan, facts, loader_stmt, built)
        return
    if not built_here:  # a sampler inside is not read
        ctx.block(
            SAMPLER,
            f"the training loader `{plan.train_loader}` is not a `DataLoader(...)` call here "
            "(a function of the script builds it): whether it shards the data with a "
            "DistributedSampler is not read",
            loader_stmt,
        )
        return
    if sampler_arg(loader) is None:
        if samplers or facts.set_epoch:
            ctx.block(
                SAMPLER,
                "a DistributedSampler not given to the training loader",
                ctx.loop,
            )
        elif plan.validation is not None:
            ctx.block(
                EVAL_UNDER_DDP,
                "every rank trains on the whole data (no DistributedSampler) and validates: "
                "not converted",
                plan.validation.anchor,
            )
        else:  # every rank iterated the whole loader: so it does under the Trainer
            plan.add_trainer_arg("use_distributed_sampler", "False")
        return
    inline = sampler_arg(loader).value
    if isinstance(inline, cst.Call) and ctx.call_qualnames(inline) & SAMPLER_CLASSES:
        # `DataLoader(ds, sampler=DistributedSampler(ds))`: reached as `loader.sampler`
        read_function_loader(ctx, plan, facts, loader_stmt, (loader_stmt, loader), inline=True)
        return
    taken = {}  # sampler name -> (loader statement, the sampler shuffles)
    own = []  # why Lightning's sampler is not the script's, when the script's is kept
    name = _loader_sampler(ctx, facts, loader_stmt, samplers, "training", own)
    if name is None:
        return
    read = read_outside_fit(ctx, facts, plan.train_loader)
    if read is not None and facts.launch == "spawn" and plan.validation is None:
        # only the script's own sampler shards the loader before / after `fit` (else TL153)
        own.append(
            f"`{plan.train_loader}` is read {read[1]} `fit`, where only its own sampler shards it"
        )
    if own:
        keep_own_sampler(ctx, plan, facts, name, samplers, own)
        return
    taken[name] = (loader_stmt, facts.sampler_shuffle)
    if plan.validation is not None:
        eval_name = eval_sampler(ctx, plan.validation.loader, facts, samplers)
        if eval_name is None:
            return
        taken[eval_name] = (ctx.binding(plan.validation.loader)[0][0], False)
    # `train_loader.sampler.set_epoch(epoch)`: the named sampler, reached through its loader
    aliases = {f"{plan.train_loader}.sampler": name}
    if plan.validation is not None:
        aliases[f"{plan.validation.loader}.sampler"] = eval_name
    facts.set_epoch = [(aliases.get(r, r), *rest) for r, *rest in facts.set_epoch]
    if not epoch_calls_fit(ctx, plan, facts, taken, samplers):
        return
    for sampler, (user, _) in taken.items():
        users = [s for s in [*ctx.scope_before, *ctx.scope_after] if sampler in scope_reads(s)]
        if users != [user]:
            ctx.block(SAMPLER, f"`{sampler}` is used besides its loader", samplers[sampler][0])
            return
    for stmt in {id(s): s for s, _, _ in samplers.values()}.values():
        others = sorted(
            n for n, (where, _, _) in samplers.items() if where is stmt and n not in taken
        )
        if others:
            ctx.block(
                SAMPLER, f"`{others[0]}` is not the sampler of a loader the Trainer shards", stmt
            )
            return
        remove_with_reason(
            facts,
            [stmt],
            "DistributedSampler -> Lightning's own, the same (set_epoch each epoch)",
        )
    for user, shuffle in taken.values():
        loader = _shuffling_loader(user, shuffle)
        plan.rewrite_stmts.append((user, loader))
        why = (
            "the loader shuffles as its DistributedSampler did; Lightning gives each rank its shard"
            if shuffle
            else "the loader keeps its order as its DistributedSampler did; Lightning gives each "
            "rank its shard, padded as the script's"
        )
        plan.rewritten_why.append((user, cst.Module(body=[loader]).code, why))
    facts.eval_sharded = plan.validation is not None
    facts.sharded_loaders.append(plan.train_loader)
    if plan.validation is not None:
        facts.sharded_loaders.append(plan.validation.loader)


def eval_sampler(ctx, loader_name: str, facts: Facts, samplers: dict) -> str | None:
    """The name of the DistributedSampler of the evaluation loader `loader_name` when it is
    the one Lightning gives an evaluation loader (`DistributedSampler(dataset,
    shuffle=False)`: every rank the same number of samples, the last ones repeated), else None
    (refused: TL167 when the loader has no sampler, TL162 when another one)."""
    binding, count = ctx.binding(loader_name)
    if binding is None or count != 1 or not isinstance(binding[1], cst.Call):
        ctx.block(
            EVAL_UNDER_DDP,
            f"the evaluation loader `{loader_name}` is not bound once before the loop",
            ctx.loop,
        )
        return None
    if sampler_arg(binding[1]) is None:
        ctx.block(
            EVAL_UNDER_DDP,
            f"every rank evaluates all of `{loader_name}` (no DistributedSampler); Lightning "
            "would give each rank a shard of it",
            binding[0],
        )
        return None
    shuffle = facts.sampler_shuffle
    name = _loader_sampler(ctx, facts, binding[0], samplers, "evaluation")
    shuffled, facts.sampler_shuffle = facts.sampler_shuffle, shuffle
    if name is not None and shuffled:
        ctx.block(
            SAMPLER,
            f"the evaluation sampler `{name}` shuffles (the default): Lightning's evaluation "
            "sampler keeps the order (`shuffle=False`)",
            samplers[name][0],
        )
        return None
    return name


def sampler_arg(loader):
    return next(
        (a for a in getattr(loader, "args", ()) if a.keyword and a.keyword.value == "sampler"),
        None,
    )


def _loader_sampler(
    ctx, facts: Facts, loader_stmt, samplers: dict, kind: str, keep=None
) -> str | None:
    """The name of the DistributedSampler `loader_stmt`'s loader samples with, when Lightning
    builds the same one (facts.sampler_shuffle: whether it shuffles), else None (blocked).
    With a list `keep`, also when only the sampler kept as it is would be the same (why
    Lightning's is not, in `keep`)."""
    loader = single_assign(loader_stmt)[1]
    value = sampler_arg(loader).value
    if not isinstance(value, cst.Name) or value.value not in samplers:
        ctx.block(SAMPLER, f"the {kind} loader's sampler is not a DistributedSampler", loader_stmt)
        return None
    name = value.value
    stmt, call, single = samplers[name]
    why = sampler_differs(ctx, call, loader, facts, kind, keep)
    if not why and single is UNSAMPLED:
        why = _unsampled_differs(loader, name, facts.sampler_shuffle)
    elif not why and single is not None:
        why = _plain_differs(ctx, single, loader_dataset(loader), facts.sampler_shuffle)
    if why:
        ctx.block(SAMPLER, why, stmt)
        return None
    return name


def sampler_differs(ctx, call: cst.Call, loader: cst.Call, facts: Facts, kind: str, keep=None):
    """Why the DistributedSampler `call` of `loader` is not the one Lightning builds for a
    `kind` loader, or None (facts.sampler_shuffle: whether it shuffles). With a list `keep`,
    the differences the script's own sampler reproduces go there (_differs_from_lightning)."""
    why = _differs_from_lightning(ctx, call, loader, facts, kind, keep)
    if not why and kind == "training" and not facts.sampler_shuffle:
        # Lightning 2.x injects `DistributedSampler(shuffle=True)` into every training loader
        # (`_process_dataloader`: is_shuffled = True for the training stage), whatever the
        # loader's own sampler; the runtime would keep the order: neither is the script's
        why = (
            "the training sampler keeps its order (`shuffle=False`); Lightning's training "
            "sampler always shuffles"
        )
        if keep is not None:
            keep.append(why)
            return None
    return why


def epoch_calls_fit(ctx, plan, facts: Facts, taken: dict, samplers: dict) -> bool:
    """`set_epoch(epoch)` of the samplers taken over, each shuffling one called: Lightning
    calls it on every loader it shards."""
    for name, (_, shuffle) in taken.items():
        calls = [s for receiver, s, _ in facts.set_epoch if receiver == name]
        if shuffle and not calls:
            ctx.block(
                SAMPLER,
                "the sampler shuffles but `set_epoch` is never called: every epoch would get "
                "the same order, the Trainer calls `set_epoch` on the training sampler each "
                "epoch (other orders)",
                samplers[name][0],
            )
            return False
    for receiver, call_stmt, _ in facts.set_epoch:
        arg = call_stmt.body[0].value.args
        epoch = m.Name(plan.epoch_var or "")
        if receiver not in taken or len(arg) != 1 or not m.matches(arg[0].value, epoch):
            ctx.block(SAMPLER, "`set_epoch` is not called with the epoch number", call_stmt)
            return False
        if any(call_stmt is late for late in facts.late_set_epoch):  # the Trainer's comes first
            ctx.block(
                SAMPLER,
                f"`set_epoch({plan.epoch_var})` after the epoch's batches: it sets the next "
                "epoch's order, the Trainer sets each epoch's own before its batches",
                call_stmt,
            )
            return False
        if plan.epoch_start is not None:  # Lightning gives its sampler `current_epoch`
            start = code_of(plan.epoch_start)
            ctx.block(
                SAMPLER,
                f"`set_epoch({plan.epoch_var})` of epochs counted from `{start}`: Lightning's "
                "sampler is given the Trainer's epoch, counted from 0 (other shuffles)",
                call_stmt,
            )
            return False
    return True


# the sampler of a plain run of `s = DistributedSampler(...) if <flag> else None`: none, the
# loader samples as its own `shuffle=` says
UNSAMPLED = object()


def _sampler_bindings(ctx) -> dict:
    """name -> (statement, DistributedSampler call, the sampler of a plain run or None) of
    `s = DistributedSampler(...)`, `s = DistributedSampler(...) if <flag> else None` (UNSAMPLED), or
    `if <flag>: s = DistributedSampler(...)` `else: s = RandomSampler(...)` (several samplers
    in one such block: the training and the validation loader's)."""
    facts = ctx.found["ddp"]
    found = {}
    for stmt in ctx.scope_before:
        branches = _flag_branches(facts, stmt)
        if branches is not None:
            body, orelse = branches
            if all(  # the block goes whole once its samplers are taken over: only samplers
                isinstance(value, cst.Call) and ctx.call_qualnames(value) & SAMPLER_CLASSES
                for value in body.values()
            ):
                found.update({name: (stmt, value, orelse[name]) for name, value in body.items()})
            continue
        assign = single_assign(stmt)
        if assign is None:
            continue
        value, single = assign[1], None
        if (
            isinstance(value, cst.IfExp)
            and is_flag(facts, value.test)
            and m.matches(value.orelse, m.Name("None"))
        ):
            value, single = value.body, UNSAMPLED
        if isinstance(value, cst.Call) and ctx.call_qualnames(value) & SAMPLER_CLASSES:
            found[assign[0]] = (stmt, value, single)
    return found


def _bound_in_flag_branches(ctx, facts: Facts, loader: str):
    """The `if <flag>: ... else: ...` before the loop binding `loader` in both branches (the
    DDP run's with a DistributedSampler, the plain run's shuffling), else None."""
    for stmt in ctx.scope_before:
        branches = _flag_branches(facts, stmt)
        if branches is not None and loader in branches[0]:
            return stmt
    return None


def _flag_branches(facts: Facts, stmt):
    """({name: value}, {name: value}) of `if <flag>:` `else:` whose branches only bind the
    same names, each once (`name = value`)."""
    if not (isinstance(stmt, cst.If) and is_flag(facts, stmt.test)):
        return None
    if not isinstance(stmt.orelse, cst.Else):
        return None
    branches = []
    for block in (stmt.body.body, stmt.orelse.body.body):
        assigns = [single_assign(s) for s in block]
        if None in assigns or len({n for n, _ in assigns}) != len(assigns):
            return None
        branches.append(dict(assigns))
    body, orelse = branches
    return None if body.keys() != orelse.keys() else (body, orelse)


_PLAIN_SAMPLERS = {  # what a loader of a plain run samples with -> whether it shuffles
    "torch.utils.data.RandomSampler": True,
    "torch.utils.data.sampler.RandomSampler": True,
    "torch.utils.data.SequentialSampler": False,
    "torch.utils.data.sampler.SequentialSampler": False,
}


def _unsampled_differs(loader: cst.Call, sampler: str, shuffle: bool) -> str | None:
    """Without DDP the sampler is None and the loader shuffles as its `shuffle=` says
    (`shuffle=s is None`: True; absent or `False`: False); the converted loader shuffles as
    the DistributedSampler did, in a plain run too: they must agree."""
    given = next((a.value for a in loader.args if a.keyword and a.keyword.value == "shuffle"), None)
    unsampled = m.Comparison(
        left=m.Name(sampler), comparisons=[m.ComparisonTarget(m.Is(), m.Name("None"))]
    )
    if given is None or m.matches(given, m.Name("False")):
        plain = False
    elif m.matches(given, unsampled):
        plain = True
    else:
        return f"the loader's `shuffle={code_of(given)}` beside `{sampler}` is not read"
    if plain == shuffle:
        return None
    return (
        f"without DDP (`{sampler}` None) the loader {'shuffles' if plain else 'keeps its order'}"
        f", while its DistributedSampler {'shuffles' if shuffle else 'keeps the order'}: the "
        f"converted loader would {'shuffle' if shuffle else 'keep the order'} in both runs"
    )


def _plain_differs(ctx, single: cst.Call, dataset, shuffle: bool) -> str | None:
    """The plain run's sampler is what `DataLoader(dataset, shuffle=<shuffle>)` makes:
    `RandomSampler(dataset)` when the DistributedSampler shuffles, `SequentialSampler(dataset)`
    when not."""
    kinds = {_PLAIN_SAMPLERS[q] for q in ctx.call_qualnames(single) if q in _PLAIN_SAMPLERS}
    if not (
        isinstance(single, cst.Call)
        and kinds == {shuffle}
        and len(single.args) == 1
        and single.args[0].keyword in (None, "data_source")
        and single.args[0].value.deep_equals(dataset)
    ):
        code = code_of(single)
        return (
            f"without DDP the loader samples with `{code}`, not the "
            f"{'Random' if shuffle else 'Sequential'}Sampler of its dataset that shuffle="
            f"{shuffle} makes"
        )
    return None


def sampler_args(call: cst.Call) -> dict | None:
    """DistributedSampler's parameter name -> the value `call` gives it (None: `*args`)."""
    names = ("dataset", "num_replicas", "rank", "shuffle", "seed", "drop_last")
    given = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            return None
        key = arg.keyword.value if arg.keyword is not None else names[min(position, 5)]
        given[key] = arg.value
    return given


def _differs_from_lightning(
    ctx, call: cst.Call, loader: cst.Call, facts: Facts, kind: str = "training", keep=None
) -> str | None:
    """Why the sampler is not Lightning's. With a list `keep`, the differences the script's
    sampler kept as it is reproduces (its seed, drop_last) go there instead (own_sampler.py)."""
    given = sampler_args(call)
    if given is None:
        return "DistributedSampler(*args) not understood"
    own = []
    dataset = loader_dataset(loader)
    if dataset is None or "dataset" not in given or not given["dataset"].deep_equals(dataset):
        return f"the sampler's dataset is not the {kind} loader's"
    ranks = [n for n, role in all_ranks(facts) if role == "global_rank"]
    rank = given.get("rank")
    if rank is not None and not (code_of(rank) in ranks or _asks_group(ctx, rank, "get_rank")):
        return "the sampler's rank is not the process's rank"
    sizes = [n for n, role in all_ranks(facts) if role == "world_size"] + [facts.devices]
    sizes += facts.world_names
    replicas = given.get("num_replicas")
    if replicas is not None and not (
        code_of(replicas) in sizes or _asks_group(ctx, replicas, "get_world_size")
    ):
        return "the sampler's num_replicas is not the process count"
    seed = given.get("seed")
    if seed is not None and not (isinstance(seed, cst.Integer) and seed.evaluated_value == 0):
        own.append("the sampler has its own seed (Lightning's sampler uses seed 0)")
    drop_last = given.get("drop_last")
    if drop_last is not None and not m.matches(drop_last, m.Name("False")):
        own.append("the sampler drops the last samples (Lightning's sampler pads them)")
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
                return f"the {kind} loader passes `{arg.keyword.value}=` beside its sampler"
    if keep is not None:
        keep += own
        return None
    return own[0] if own else None


def _asks_group(ctx, value, query: str) -> bool:
    """`dist.get_rank()` / `dist.get_world_size()` of the default group (no argument): the
    process's rank and the process count, read once the group started (the sampler is built
    after the start it follows)."""
    return (
        isinstance(value, cst.Call)
        and not value.args
        and f"torch.distributed.{query}" in ctx.call_qualnames(value)
    )


def loader_dataset(loader: cst.Call):
    dataset = loader.args[0].value if loader.args and loader.args[0].keyword is None else None
    for arg in loader.args:
        if arg.keyword is not None and arg.keyword.value == "dataset":
            dataset = arg.value
    return dataset


def _shuffling_loader(stmt, shuffle: bool):
    """The loader statement without `sampler=` (nor `shuffle=False`), with `shuffle=True`
    where the sampler shuffled."""
    added = [("shuffle", cst.Name("True"))] if shuffle else []
    return with_keywords(stmt, single_assign(stmt)[1], {"sampler", "shuffle"}, added)
