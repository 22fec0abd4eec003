"""The process group's start and end (directly or through a helper), the backend, and the
collectives a script calls by hand."""

from __future__ import annotations

from itertools import takewhile

import libcst as cst
import libcst.matchers as m

from ...analysis.function_reads import module_functions
from ...analysis.names import collect_names, definition_reads
from ...analysis.statements import BACKWARD, contains
from ...rule import Unsupported
from ...source.code_text import code_of
from .collective_helpers import collective_helpers, is_collective, nested_collective
from .facts import BACKENDS, GROUP_QUERIES, INIT_GROUP, Facts, flag_body
from .rules import COLLECTIVE, PROCESS_GROUP


def group_call(ctx, stmt, qualname: str, facts: Facts) -> bool:
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
        if qualname == INIT_GROUP:
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
    inner = [s for s in helper.body.body if not is_docstring(s)]
    group = [s for s in inner if has_call(ctx, s, qualname)]
    if len(group) != 1 or not all(s in group or sets_master_env(s) for s in inner):
        if any(has_call(ctx, s, qualname) for s in inner):
            raise Unsupported(
                PROCESS_GROUP,
                f"`{helper.name.value}()` does more than start or end the process group",
                stmt,
            )
        return False
    if qualname == INIT_GROUP:
        params = [p.name.value for p in helper.params.params]
        given = {name: arg.value for name, arg in zip(params, call.args) if arg.keyword is None}
        given.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})
        _check_backend(ctx, group[0].body[0].value, given, facts)
    if len(m.findall(ctx.module, m.Name(helper.name.value))) == 2:  # its def and this call
        facts.helpers.append(helper.name.value)
    return True


def helper_starts(ctx) -> list:
    """(statement, called function) for each statement of the loop's scope before it that
    calls a script function starting the process group, directly or through others."""
    functions = module_functions(ctx.module)
    starting = {name for name, f in functions.items() if has_call(ctx, f, INIT_GROUP)}
    grown = True
    while grown:  # callers of starters start it too
        callers = {
            name
            for name, f in functions.items()
            if name not in starting and collect_names(f.body).reads & starting
        }
        starting |= callers
        grown = bool(callers)
    found = []
    for stmt in ctx.scope_before:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        for call in m.findall(stmt, m.Call(func=m.Name())):
            if call.func.value in starting:
                found.append((stmt, call.func.value))
    return found


def has_call(ctx, stmt, qualname: str) -> bool:
    return any(qualname in ctx.call_qualnames(c) for c in m.findall(stmt, m.Call()))


def is_docstring(stmt) -> bool:
    return m.matches(stmt, m.SimpleStatementLine([m.Expr(m.SimpleString())]))


def sets_master_env(stmt) -> bool:
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
# `torch.distributed.init_process_group`'s parameters, in order (for positional arguments)
_GROUP_PARAMETERS = (
    *("backend", "init_method", "timeout", "world_size", "rank", "store", "group_name"),
    *("pg_options", "device_id"),
)


def group_arguments(call: cst.Call):
    """(parameter name, value) of each argument of an `init_process_group(...)` call."""
    for position, arg in enumerate(call.args):
        if arg.keyword is not None:
            yield arg.keyword.value, arg.value
        elif not arg.star and position < len(_GROUP_PARAMETERS):
            yield _GROUP_PARAMETERS[position], arg.value
        else:
            yield "*", arg.value  # `*args` / `**kwargs`: not known


def _check_backend(ctx, call: cst.Call, given: dict, facts: Facts) -> None:
    backend = None
    for key, value in group_arguments(call):
        if key == "backend":
            backend = value
        if key == "world_size":
            if isinstance(value, cst.Name) and value.value in given:
                value = given[value.value]
            facts.world_names.add(code_of(value))
        # (a start only torchrun makes gives torchrun's RANK: torchrun._check_env_rendezvous)
        torchrun_only = facts.launch == "torchrun" and facts.flag is None
        if key == "rank" and not torchrun_only:
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
    code = code_of(backend) if backend is not None else None
    if code not in BACKENDS:
        raise Unsupported(
            PROCESS_GROUP,
            f"process group backend {code or '(default)'} (only gloo, on CPU, is converted)",
            call,
        )
    facts.accelerator = BACKENDS[code]


def read_collectives(ctx, facts: Facts, epoch: list) -> None:
    """Hand-written collectives are refused (TL163), but for `dist.all_reduce(name)` and
    `dist.barrier()` statements of the epoch's code (also under `if <flag>:`), which
    reduces.py keeps when every rank runs them after a pass, on the epoch's own tensors
    (facts.reduces)."""
    facts.reduces = [
        (stmt, inner) for stmt in epoch if (inner := _reduce_statements(ctx, facts, stmt))
    ]
    kept = {id(s.body[0].value) for _, inner in facts.reduces for s in inner}
    where = ctx.function if ctx.in_function else ctx.module
    helpers = collective_helpers(ctx, ctx.function if ctx.in_function else None)
    taken = [s for s in [*facts.removed, facts.group_start] if s is not None]
    taken += facts.final_barriers  # kept as the Trainer's (torchrun.py)
    for call in m.findall(where, m.Call()):
        if id(call) in kept or any(_path(s, call) for s in taken):
            continue  # (the setup helper the Trainer takes over may call a barrier)
        code = code_of(call.func)
        if is_collective(ctx, call):
            why = f"`{code}(...)` called by hand{_where(ctx, facts, where, call)}"
            ctx.block(COLLECTIVE, why, call)
        elif isinstance(call.func, cst.Name) and call.func.value in helpers:
            # a function of the script calling a collective: placed like a direct call
            inner = nested_collective(ctx, helpers, helpers[call.func.value])
            place = _where(ctx, facts, where, call) or _outside_epoch_end(ctx, epoch, call)
            if inner is not None:
                place = f", which calls `{inner}(...)` in a loop or under a test of its own"
            if place:
                ctx.block(COLLECTIVE, f"`{code}(...)` calls a collective{place}", call)


def _outside_epoch_end(ctx, epoch: list, call) -> str:
    """A call of the epoch's code at the top level: before the batch loop is refused (only
    the epoch's code after its passes keeps collectives, like a direct call's)."""
    batch = next((i for i, s in enumerate(epoch) if contains(s, BACKWARD)), None)
    if batch is not None and any(_path(s, call) for s in epoch[:batch]):
        return " before the batch loop (kept only in the epoch's code after its passes)"
    return ""


def _where(ctx, facts: Facts, root, call) -> str:
    """Why the place of a collective rules it out, as the end of the refusal's message: in
    the step, under a test of the rank, outside the epoch loop (else nothing more to say)."""
    path = _path(root, call)
    if ctx.loop not in path:
        return " outside the training loop (kept only in the epoch's code after its passes)"
    inner = path[path.index(ctx.loop) + 1 :]
    for node in inner:
        if isinstance(node, (cst.If, cst.While)) and (
            facts.roles.keys() & collect_names(node.test).reads
            or any(
                q in GROUP_QUERIES
                for c in m.findall(node.test, m.Call())
                for q in ctx.call_qualnames(c)
            )
        ):
            test = code_of(node.test)
            return f" under `if {test}:`: the other ranks would not call it"
    for node in inner:
        if isinstance(node, (cst.For, cst.While)):
            loop = "the training step" if contains(node, BACKWARD) else "a loop of the epoch"
            return f" in {loop} (kept only in the epoch's code after its passes)"
    return ""


def _path(root, target) -> list:
    """The nodes from `root` down to `target` (both included), or [] when not under it."""
    if root is target:
        return [root]
    for child in root.children:
        below = _path(child, target)
        if below:
            return [root, *below]
    return []


ALL_REDUCE = "torch.distributed.all_reduce"


def _reduce_statements(ctx, facts: Facts, stmt) -> list:
    """`dist.all_reduce(name)` / `dist.all_reduce(name, op=dist.ReduceOp.X)` statements:
    `stmt` itself or those leading its `if <flag>:` block (`if ddp: dist.all_reduce(total);
    total /= world_size`: the code after them is the epoch's, kept with them in the same hook;
    a collective there is not one of these, refused by read_collectives), else none."""
    inner = flag_body(facts, stmt)
    found = [stmt] if inner is None else inner
    lead = list(takewhile(lambda s: reduced_name(ctx, s) is not None or is_barrier(ctx, s), found))
    return lead if inner is not None or lead == found else []


BARRIER = "torch.distributed.barrier"


def is_barrier(ctx, stmt) -> bool:
    """`dist.barrier()`, with no argument (no group, no timeout, no device ids)."""
    return m.matches(stmt, m.SimpleStatementLine([m.Expr(m.Call(args=[]))])) and (
        BARRIER in ctx.call_qualnames(stmt.body[0].value)
    )


def reduced_name(ctx, stmt) -> str | None:
    """`name` of a statement `dist.all_reduce(name[, op=dist.ReduceOp.X])`, else None."""
    if not m.matches(stmt, m.SimpleStatementLine([m.Expr(m.Call())])):
        return None
    call = stmt.body[0].value
    if ALL_REDUCE not in ctx.call_qualnames(call) or not call.args:
        return None
    first, *rest = call.args
    if first.keyword is not None or first.star or not isinstance(first.value, cst.Name):
        return None
    for arg in rest:
        if arg.keyword is None or arg.keyword.value != "op":
            return None
        if not any(q.startswith("torch.distributed.ReduceOp.") for q in ctx.qualnames(arg.value)):
            return None
    return first.value.value


# what reads nothing of the process group: asking whether torch was built with it
_GROUP_FREE = {"torch.distributed.is_available"}


def group_use(ctx, node, functions: dict, seen: frozenset = frozenset()) -> str | None:
    """How `node` uses the process group -- a torch.distributed call (not `is_available`),
    directly or through the script's own functions (`is_main_process()` calling
    `dist.get_rank()`) -- as a phrase, or None. (DDP wrappers and DistributedSamplers, which
    use it too, are this pattern's own: taken over or refused in wrappers.py / sampler.py.)"""
    for call in m.findall(node, m.Call()):
        names = ctx.call_qualnames(call)
        if any(q.startswith("torch.distributed.") for q in names) and not names & _GROUP_FREE:
            return f"`{code_of(call.func)}(...)`"
    reads = definition_reads(node) if isinstance(node, cst.FunctionDef) else None
    if reads is None:
        reads = collect_names(node).reads
    for name in sorted(reads & functions.keys() - seen):
        inner = group_use(ctx, functions[name], functions, seen | {name})
        if inner is not None:
            return f"`{name}()` (calling {inner.split(' (calling ')[-1].rstrip(')')})"
    return None
