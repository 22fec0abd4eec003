"""A training loader a function of the script builds with a DistributedSampler inside.

    def prepare_dataloader(dataset, batch_size):          def prepare_dataloader(dataset, batch_size):
        return DataLoader(                                    return DataLoader(
            dataset, batch_size=batch_size,          ->           dataset, batch_size=batch_size,
            shuffle=False,                                        shuffle=True,
            sampler=DistributedSampler(dataset),              )
        )
    train_data = prepare_dataloader(dataset, 32)          (kept)
    ...  train_data.sampler.set_epoch(epoch)              -> removed: the Trainer calls it

(the DDP tutorial series' `multigpu.py`). The function is read as it is written: called once
in the file, its body one `return DataLoader(...)` whose `sampler=` is a
`DistributedSampler(...)` call Lightning's own training sampler equals (sampler.py's checks:
the loader's dataset, seed 0, no drop_last, shuffling, `set_epoch(epoch)` each epoch). The
sampler then goes from the function and the loader shuffles: Lightning gives each rank its
shard. Kept as it is, the sampler would be built before any process group exists (the Trainer
starts it in `fit`): a crash. Anything else such a function builds is refused (TL162).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.statements import with_keywords
from ..factories import _module_function, name_uses
from .facts import SAMPLER_CLASSES, Facts
from .rules import SAMPLER


def built_by_function(ctx, loader: cst.BaseExpression):
    """(return statement, DataLoader call) when `loader` calls a module function of the
    file, called only there, whose body is one `return DataLoader(...)`; else None."""
    if not (isinstance(loader, cst.Call) and isinstance(loader.func, cst.Name)):
        return None
    function = _module_function(ctx, loader.func.value)
    if function is None or function.decorators:
        return None
    name = function.name.value
    if name_uses(ctx.module, name) != 2:  # the `def` and this call
        return None
    body = list(function.body.body)
    if body and m.matches(body[0], m.SimpleStatementLine([m.Expr(m.SimpleString())])):
        body = body[1:]  # the docstring
    if len(body) != 1 or not m.matches(body[0], m.SimpleStatementLine([m.Return(m.Call())])):
        return None
    call = body[0].body[0].value
    if not any(q.endswith("DataLoader") for q in ctx.call_qualnames(call)):
        return None
    return body[0], call


def read_function_loader(ctx, plan, facts: Facts, loader_stmt, built, inline=False) -> None:
    """Take over the DistributedSampler of a training loader `built` by a function of the
    script, or refuse (TL162). `inline`: the loader's own statement, `loader = DataLoader(
    ds, sampler=DistributedSampler(ds))`, read alike (its sampler reached as
    `loader.sampler`)."""
    from .sampler import epoch_calls_fit, sampler_arg, sampler_differs

    ret, call = built
    where = f"the training loader `{plan.train_loader}`" + (
        "" if inline else ", built by a function of the script,"
    )
    sampler = sampler_arg(call)
    value = sampler.value if sampler is not None else None
    if not (isinstance(value, cst.Call) and ctx.call_qualnames(value) & SAMPLER_CLASSES):
        ctx.block(
            SAMPLER,
            f"{where} is not given a `DistributedSampler(...)` call as its `sampler=`: "
            "whether it shards the data as Lightning would is not read",
            ret,
        )
        return
    if plan.validation is not None:
        ctx.block(
            SAMPLER,
            f"{where} shards with a DistributedSampler, and the loop validates: not converted",
            ret,
        )
        return
    why = sampler_differs(ctx, value, call, facts, "training")
    if why:
        ctx.block(SAMPLER, why, ret)
        return
    key = f"{plan.train_loader}.sampler"  # what the epoch's `set_epoch` is called on
    if not epoch_calls_fit(ctx, plan, facts, {key: (loader_stmt, True)}, {key: (ret,)}):
        return
    if _sampler_used(ctx, plan):
        ctx.block(
            SAMPLER,
            f"`{key}` is used besides `set_epoch`: the Trainer's loader has a sampler of its own",
            ctx.loop,
        )
        return
    new = with_keywords(ret, call, {"sampler", "shuffle"}, [("shuffle", cst.Name("True"))])
    plan.rewrite_stmts.append((ret, new))
    why = (
        "DistributedSampler -> Lightning's own, the same (set_epoch each epoch): the loader "
        "shuffles as its DistributedSampler did; Lightning gives each rank its shard"
    )
    plan.rewritten_why.append((ret, cst.Module(body=[new]).code, why))
    facts.sharded_loaders.append(plan.train_loader)


def _sampler_used(ctx, plan) -> bool:
    """`<loader>.sampler` read by code that still runs besides the `set_epoch` calls taken
    over: the code around the loop, the epoch's code as planned (helpers inlined into it:
    `train_data.sampler.set_epoch(epoch)` of `_run_epoch(train_data, ...)`), and at module
    level the functions of the file not inlined."""
    code = [
        s
        for s in [*ctx.scope_before, *ctx.scope_after]
        if not isinstance(s, (cst.FunctionDef, cst.ClassDef))
    ]
    code += [*plan.pre_train, *plan.train_body, *plan.post_train]
    if not ctx.in_function:
        code += [
            s
            for s in ctx.module.body
            if isinstance(s, cst.FunctionDef) and s.name.value not in plan.inlined_helpers
        ]
    use = m.Attribute(m.Name(plan.train_loader), m.Name("sampler"))
    return any(m.findall(node, use) for node in code)
