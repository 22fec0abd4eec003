"""An `mp.spawn` worker: its launch, its rank parameter, its process group."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.names import collect_names, rename
from ...rule import Unsupported
from ...source.code_text import code_of
from .facts import DESTROY_GROUP, INIT_GROUP, SPAWN_FUNCTIONS, Facts, remove_with_reason
from .process_group import group_call, has_call, is_barrier
from .rules import LAUNCH, PROCESS_GROUP


def spawn_calls(ctx) -> list:
    return [
        (stmt, call)
        for stmt in _all_statements(ctx.module)
        if isinstance(stmt, cst.SimpleStatementLine)
        for call in m.findall(stmt, m.Call())
        if ctx.call_qualnames(call) & SPAWN_FUNCTIONS
    ]


def read_launch(ctx, facts: Facts) -> None:
    """The one `mp.spawn` starting the function holding the loop: the rank parameter, the
    device count, and the call that replaces it."""
    worker = ctx.function
    spawns = spawn_calls(ctx)
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
    launches = _launches(ctx, fn, stmt)
    if len(launches) > 1:  # `run_demo(demo_basic, n)` then `run_demo(demo_checkpoint, n)`
        ctx.block(  # read on: what else the worker does is reported too
            LAUNCH,
            f"`mp.spawn` starts processes {len(launches)} times (each call of "
            f"`{code_of(launches[0].func)}(...)` a new set): the "
            "Trainer's DDP runs the script once in each of its processes",
            launches[1],
        )
    if not _starts(ctx, fn, stmt, worker.name.value):
        raise Unsupported(
            LAUNCH,
            f"`mp.spawn` does not start `{worker.name.value}`, which holds the loop",
            stmt,
        )
    if not _rewritable(ctx.module, stmt):  # reading on: the other causes are reported too
        ctx.block(
            LAUNCH,
            f"`mp.spawn(...)` is nested deeper than {_nesting(ctx.module, stmt)}: its "
            "replacement by a plain call is not written there",
            stmt,
        )
    direct = {id(c) for c in m.findall(ctx.module, m.Call(func=m.Name(worker.name.value)))}
    if direct:  # `else: run(0, 1, cfg)`: the worker loses its rank parameter
        ctx.block(
            LAUNCH,
            f"`{worker.name.value}(...)` is also called directly, not only by `mp.spawn`: "
            "the conversion takes its rank parameter away",
            next(
                (
                    s
                    for s in _all_statements(ctx.module)
                    if isinstance(s, cst.SimpleStatementLine)
                    and any(id(c) in direct for c in m.findall(s, m.Call()))
                ),
                stmt,
            ),
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
    after = _runs_after(ctx.module, stmt) if len(launches) < 2 else None
    if after is not None:
        raise Unsupported(
            LAUNCH,
            "code runs in the parent after `mp.spawn(...)` returns (once); the Trainer's DDP "
            "runs the script in every process, where it would run once per rank: move it into "
            "the worker under `if rank == 0:`",
            after,
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
    arguments = ", ".join(code_of(a) for a in args)
    launch = code_of(fn)
    replacement = cst.parse_statement(f"{launch}({arguments})\n")
    replacement = replacement.with_changes(leading_lines=stmt.leading_lines)
    facts.rewrites.append((stmt, replacement))
    facts.launch_call = (stmt, f"{launch}({arguments})")
    ctx.found["ddp_launch"] = stmt


def _runs_after(module: cst.Module, stmt) -> cst.CSTNode | None:
    """The first statement the parent runs after the spawn statement returns: after it in its
    block, or after a module-level call of the function holding it (`main()` in `if __name__
    == "__main__":`), or None."""
    for block, owner in _blocks(module):
        if not any(s is stmt for s in block):
            continue
        rest = block[[i for i, s in enumerate(block) if s is stmt][0] + 1 :]
        if rest:
            return rest[0]
        if isinstance(owner, cst.FunctionDef):
            calls = m.findall(module, m.Call(func=m.Name(owner.name.value)))
            for caller_block, _ in _blocks(module):
                for index, other in enumerate(caller_block):
                    if isinstance(other, cst.SimpleStatementLine) and any(
                        found is call for call in calls for found in m.findall(other, m.Call())
                    ):
                        if caller_block[index + 1 :]:
                            return caller_block[index + 1]
        return None
    return None


def _blocks(node):
    """(statements, the module, def, `if` or `with` holding them) of every such block, nested
    (an `else:` branch is not followed)."""
    body = node.body.body if isinstance(node, (cst.FunctionDef, cst.If, cst.With)) else None
    if isinstance(node, cst.Module):
        body = list(node.body)
    if body is None:
        return
    yield list(body), node
    for stmt in body:
        if isinstance(stmt, (cst.FunctionDef, cst.If, cst.With)) and isinstance(
            stmt.body, cst.IndentedBlock
        ):
            yield from _blocks(stmt)


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
            return code_of(renamed)
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


def _rewritable(module: cst.Module, stmt) -> bool:
    """`stmt` is where plan edits are applied (emit/apply.py): the module's body, or the body
    of a top-level function or `if` (`if __name__ == "__main__":`)."""
    for top in module.body:
        if top is stmt:
            return True
        if isinstance(top, (cst.FunctionDef, cst.If)) and isinstance(top.body, cst.IndentedBlock):
            if any(inner is stmt for inner in top.body.body):
                return True
    return False


def _launches(ctx, fn, stmt) -> list:
    """The calls of the function holding the spawn statement when `fn` is one of its
    parameters (each call a launch of its own), else []."""
    helper = _holder(ctx, stmt)
    if helper is None or not isinstance(fn, cst.Name):
        return []
    if fn.value not in [p.name.value for p in helper.params.params]:
        return []
    return m.findall(ctx.module, m.Call(func=m.Name(helper.name.value)))


def _holder(ctx, stmt):
    """The module-level function holding `stmt`, or None."""
    return next(
        (
            s
            for s in ctx.module.body
            if isinstance(s, cst.FunctionDef) and any(x is stmt for x in _all_statements(s))
        ),
        None,
    )


def _starts(ctx, fn, stmt, worker: str) -> bool:
    """`fn` is the worker, or a parameter of the function around the spawn that a call of
    it gives the worker."""
    if m.matches(fn, m.Name(worker)):
        return True
    if not isinstance(fn, cst.Name):
        return False
    helper = _holder(ctx, stmt)
    if helper is None:
        return False
    names = [p.name.value for p in helper.params.params]
    if fn.value not in names:
        return False
    index = names.index(fn.value)
    calls = m.findall(ctx.module, m.Call(func=m.Name(helper.name.value)))
    # several calls are refused by read_launch, once the worker is known
    return any(
        m.matches(arg.value, m.Name(worker))
        for call in calls
        for position, arg in enumerate(call.args)
        if (arg.keyword is None and position == index)
        or (arg.keyword is not None and arg.keyword.value == fn.value)
    )


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


def read_process_group(ctx, facts: Facts) -> None:
    """One statement before the loop starts the group (directly or through a helper of the
    module doing only that), one statement after it ends it."""
    starts = [s for s in ctx.before if group_call(ctx, s, INIT_GROUP, facts)]
    if len(starts) != 1:
        nested = [s for s in ctx.before if not isinstance(s, cst.SimpleStatementLine)]
        nested = [s for s in nested if has_call(ctx, s, INIT_GROUP)]
        if not starts and nested:  # `if world_size > 1: dist.init_process_group(...)`
            raise Unsupported(PROCESS_GROUP, _conditional_start(nested[0]), nested[0])
        raise Unsupported(
            PROCESS_GROUP,
            "the worker does not start its process group once before the loop",
            ctx.loop,
        )
    ends = [s for s in ctx.after if group_call(ctx, s, DESTROY_GROUP, facts)]
    if len(ends) > 1:
        raise Unsupported(PROCESS_GROUP, "the process group is destroyed twice", ends[1])
    remove_with_reason(
        facts, [*starts, *ends], 'process group -> `strategy="ddp"`: the Trainer starts and ends it'
    )
    facts.group_start = starts[0]
    _final_barrier(ctx, facts, ends)


def _final_barrier(ctx, facts: Facts, ends: list) -> None:
    """`dist.barrier()` as the worker's last statement but the group's end (after the rank-0
    save, "wait for rank 0 before anybody exits"): the ranks do nothing after it, so what it
    orders is no one's to see -- removed. A barrier followed by other code stays refused
    (TL163, process_group.read_collectives): it may order a read of what rank 0 wrote."""
    rest = [s for s in ctx.after if not any(s is e for e in ends)]
    if not rest or not is_barrier(ctx, rest[-1]):
        return
    at = next(i for i, s in enumerate(ctx.after) if s is rest[-1])
    if all(any(s is e for e in ends) for s in ctx.after[at + 1 :]):
        why = (
            "`dist.barrier()` before the worker ends -> removed: nothing runs after it on "
            "any rank (the Trainer's processes end after `fit` and the code following it)"
        )
        remove_with_reason(facts, [rest[-1]], why)


def _conditional_start(block) -> str:
    """Why a group started under a test is refused, naming the test: the script has two runs
    (N processes in a group, or one without), the conversion writes one launch."""
    test = getattr(block, "test", None)
    where = f"under `if {code_of(test)}:`" if test is not None else "inside a block"
    return (
        f"the worker starts its process group only {where} (else one process trains without "
        'a group): the conversion writes one launch, `strategy="ddp"` starting a group in '
        "every run, and does not fold the script's two runs into it"
    )


def _nesting(module: cst.Module, stmt) -> str:
    """Where a spawn statement too deep for the plan's edits sits, said in a message."""
    for top in module.body:
        if isinstance(top, cst.If) and any(
            s is stmt for s in m.findall(top, m.SimpleStatementLine())
        ):
            return "the body of the module's `if`"
    return "the body of a module-level function"
