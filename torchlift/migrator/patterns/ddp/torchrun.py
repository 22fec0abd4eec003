"""A torchrun script: the setup block reading RANK / LOCAL_RANK / WORLD_SIZE."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.function_reads import module_functions
from ...analysis.names import scope_reads
from ...analysis.statements import single_assign
from ...rule import Unsupported
from ...source.code_text import code_of
from . import env_info
from .facts import DESTROY_GROUP, ENV_ROLES, INIT_GROUP, Facts, flag_body, remove_with_reason
from .process_group import (
    group_arguments,
    group_call,
    has_call,
    helper_starts,
    is_barrier,
    is_docstring,
)
from .rules import PROCESS_GROUP, TORCHRUN

# -- torchrun: the environment's ranks -----------------------------------------------------


def env_key(ctx, node) -> str | None:
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


def reads_env(ctx, node, keys) -> bool:
    return any(
        env_key(ctx, found) in keys
        for found in m.findall(node, m.Subscript() | m.Call() | m.Comparison())
    )


def read_torchrun(ctx, facts: Facts) -> None:
    """`init_process_group()` once before the loop, alone or in an `if <flag>:` block whose
    other statements bind the ranks from the environment and choose the device; the `else`
    binds the same names for a single process."""
    facts.launch = "torchrun"
    starts = [
        s
        for s in ctx.scope_before
        if not isinstance(s, (cst.FunctionDef, cst.ClassDef)) and has_call(ctx, s, INIT_GROUP)
    ]
    starts += [s for s, _ in helper_starts(ctx) if s not in starts]  # `ddp_setup()`
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
        returned = env_info.read(ctx, flag.value) if binding is None and count == 1 else None
        if returned is not None:  # `ddp, rank, world_size, local_rank = get_dist_info()`
            stmt, roles, new = returned
            facts.roles.update(roles)
            facts.rewrites.append((stmt, new))
            facts.why[id(stmt)] = (
                f"torchrun's ranks from `{code_of(stmt.body[0].value.func)}()` -> the Trainer's; "
                f"`{flag.value}` kept for `strategy=`"
            )
        elif binding is None or count != 1 or not reads_env(ctx, binding[1], ENV_ROLES):
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
        remove_with_reason(
            facts, [start], "torchrun setup -> the Trainer (`devices=`, `strategy=`) and its ranks"
        )
    else:  # no test of the environment: only torchrun starts the script
        _check_env_rendezvous(ctx, start)
        _check_env_unset(ctx)
        _read_setup_block(ctx, facts, [start], single=False)
        remove_with_reason(
            facts,
            [start],
            "torchrun setup -> the Trainer (`devices=`, `num_nodes=`, `strategy=`) and its ranks",
        )
    facts.group_start = start
    body = list(ctx.scope_before)
    for at, stmt in enumerate(body):  # ranks bound outside the block: `rank = int(os.environ[...])`
        if stmt is start or not isinstance(stmt, cst.SimpleStatementLine):
            continue
        role = _env_role(ctx, facts, stmt)
        if role is None:
            continue
        name = single_assign(stmt)[0]
        if facts.flag is None and any(name in scope_reads(s) for s in body[at + 1 :]):
            # read before the loop: torchrun's value there as in the script (only torchrun
            # starts it), the Trainer's in the module
            facts.env_bound.add(name)
        else:
            remove_with_reason(facts, [stmt], "rank from the environment -> the Trainer's")
    torchrun_devices(ctx, facts)
    read_group_end(ctx, facts)
    facts.rank = next((n for n, role in facts.roles.items() if role == "global_rank"), "")


def torchrun_devices(ctx, facts: Facts) -> None:
    """What torchrun started on this node (1 for `python script.py` when the script tests
    torchrun's environment). A script starting its group with no such test runs only under
    torchrun: the Trainer reads torchrun's counts without a default, so `python script.py`
    still stops before training (at the Trainer, where the script stopped at the group's
    start), and the nodes too, which Lightning checks against WORLD_SIZE."""
    if facts.flag is None:
        facts.devices = f"int({_LOCAL_WORLD_SIZE})"
        facts.num_nodes = f'int(os.environ["WORLD_SIZE"]) // int({_LOCAL_WORLD_SIZE})'
    else:
        facts.devices = 'int(os.environ.get("LOCAL_WORLD_SIZE", 1))'
    if "os" not in ctx.module_defs:
        raise Unsupported(TORCHRUN, "the script does not `import os`", ctx.loop)


_LOCAL_WORLD_SIZE = 'os.environ["LOCAL_WORLD_SIZE"]'
# torchrun's ranks: a script setting them itself starts its group in a plain run too
_TORCHRUN_KEYS = {*ENV_ROLES, "LOCAL_WORLD_SIZE", "*"}


def plain_start_helper(ctx) -> bool:
    """The one statement starting the process group before the loop calls a function of the
    script that starts it with no test around it (the tutorial series' `ddp_setup()`:
    `init_process_group(backend="gloo")`): the group's start itself (read_torchrun), not
    `init_distributed_mode(args)`'s start under a test of the environment (init_helper.py)."""
    starts = helper_starts(ctx)
    if len(starts) != 1:
        return False
    helper = module_functions(ctx.module).get(starts[0][1])
    return (
        helper is not None
        and any(has_call(ctx, s, INIT_GROUP) for s in helper.body.body)
        and not m.findall(helper, m.If() | m.IfExp() | m.Return())
    )


def _check_env_rendezvous(ctx, start) -> None:
    """The group a script starts with no test meets as torchrun's processes do, as the
    Trainer's will: env://, torchrun's RANK and WORLD_SIZE (or none given)."""
    call = _start_call(ctx, start)
    for key, value in group_arguments(call):
        if key == "backend":
            continue
        if key == "init_method" and m.matches(value, m.SimpleString()):
            if value.evaluated_value == "env://":
                continue
        elif key in ("rank", "world_size") and m.matches(
            value, m.Call(func=m.Name("int"), args=[m.Arg(keyword=None)])
        ):
            if (
                ENV_ROLES.get(env_key(ctx, value.args[0].value))
                == {"rank": "global_rank", "world_size": "world_size"}[key]
            ):
                continue
        code = code_of(value)
        raise Unsupported(
            PROCESS_GROUP,
            f"`init_process_group(..., {key}={code})`: the Trainer's group meets at torchrun's "
            "address with torchrun's ranks",
            start,
        )


def _start_call(ctx, start) -> cst.Call:
    """The `init_process_group(...)` call of `start`, or of the function it calls."""
    functions = module_functions(ctx.module)
    nodes = [
        start,
        *(
            functions[c.func.value]
            for c in m.findall(start, m.Call(func=m.Name()))
            if c.func.value in functions
        ),
    ]
    found = [
        c
        for node in nodes
        for c in m.findall(node, m.Call())
        if INIT_GROUP in ctx.call_qualnames(c)
    ]
    if len(found) != 1:  # deeper in the script's functions, or started twice
        raise Unsupported(
            PROCESS_GROUP, "the process group's start is not one call read here", start
        )
    return found[0]


def _check_env_unset(ctx) -> None:
    """A script that sets torchrun's variables itself (`os.environ.setdefault("RANK", "0")`)
    also runs without torchrun, in a group of its own making: the Trainer, reading torchrun's
    counts, would not."""
    assigned = {id(t.target) for t in m.findall(ctx.module, m.AssignTarget())}
    for node in m.findall(ctx.module, m.Subscript() | m.Call()):
        if isinstance(node, cst.Call) and not ctx.call_qualnames(node) & _ENV_WRITERS:
            continue
        if isinstance(node, cst.Subscript) and id(node) not in assigned:
            continue
        key = _written_key(ctx, node)
        if key in _TORCHRUN_KEYS:
            raise Unsupported(
                TORCHRUN,
                f"the script sets {key} itself: it also runs without torchrun, the Trainer "
                "reading torchrun's counts would not",
                node,
            )


_ENV_WRITERS = {"os.environ.setdefault", "os.putenv", "os.environ.update"}


def _written_key(ctx, node) -> str | None:
    """K of `os.environ["K"] = ...` (`node` the assigned subscript), `os.environ.setdefault("K", ...)`,
    `os.putenv("K", ...)`, any key of `os.environ.update(...)` ("*": not known)."""
    if isinstance(node, cst.Call):
        if "os.environ.update" in ctx.call_qualnames(node):
            return "*"
        first = node.args[0].value if node.args else None
        return first.evaluated_value if isinstance(first, cst.SimpleString) else "*"
    if "os.environ" in ctx.qualnames(node.value):
        return env_key(ctx, node) or "*"
    return None


def read_group_end(ctx, facts: Facts) -> None:
    """`destroy_process_group()` after the loop, alone or under `if <flag>:`: the Trainer's."""
    ends = [s for s in ctx.scope_after if has_call(ctx, s, DESTROY_GROUP)]
    for end in ends:
        inner = flag_body(facts, end)
        if inner is not None and _barriers_before(ctx, inner):
            if _barrier_orders_code_after(ctx, end):
                _keep_barriers(facts, end, inner)
                continue
            _final_end(ctx, end)
            inner = inner[-1:]
        if not (
            group_call(ctx, end, DESTROY_GROUP, facts)
            or (
                inner is not None
                and len(inner) == 1
                and group_call(ctx, inner[0], DESTROY_GROUP, facts)
            )
        ):
            raise Unsupported(PROCESS_GROUP, "the process group ends inside other code", end)
        remove_with_reason(
            facts, [end], 'process group -> `strategy="ddp"`: the Trainer starts and ends it'
        )


def _barriers_before(ctx, block: list) -> bool:
    """`dist.barrier()` statements, then the group's end (`if ddp: dist.barrier();
    destroy_process_group()`: every rank waits for rank 0's save, then ends)."""
    return len(block) > 1 and all(is_barrier(ctx, s) for s in block[:-1])


_STRATEGY_BARRIER = "trainer.strategy.barrier()"


def _barrier_orders_code_after(ctx, end) -> bool:
    """Code runs after `if <flag>: dist.barrier(); destroy_process_group()` (rank 0 saved,
    every rank loads), none of it touching torch.distributed: the barrier is kept as the
    Trainer's (`trainer.strategy.barrier()`; the group lives on after `fit`, the Trainer's
    processes end it), the end goes. Code reading the group after its end (`dist.
    is_initialized()`, another collective) would see it still alive: refused (_final_end)."""
    after = ctx.scope_after[next(i for i, s in enumerate(ctx.scope_after) if s is end) + 1 :]
    rest = [s for s in after if not is_docstring(s)]
    if not rest:
        return ctx.in_function and not _called_last(ctx, ctx.function.name.value)
    return _group_read(ctx, rest) is None


def _group_read(ctx, stmts: list):
    """The first torch.distributed name or call in `stmts`, or None."""
    for s in stmts:
        for node in m.findall(s, m.Call() | m.Attribute() | m.Name()):
            names = ctx.call_qualnames(node) if isinstance(node, cst.Call) else ctx.qualnames(node)
            if any(q.startswith("torch.distributed") for q in names):
                return node
    return None


def _keep_barriers(facts: Facts, end, inner: list) -> None:
    """`if <flag>:` keeping its barriers as `trainer.strategy.barrier()`, without the end."""
    barrier = cst.Expr(cst.parse_expression(_STRATEGY_BARRIER))
    kept = [s.with_changes(body=[barrier]) for s in inner[:-1]]
    new = end.with_changes(body=end.body.with_changes(body=kept))
    facts.rewrites.append((end, new))
    facts.final_barriers.append(end)
    facts.why[id(end)] = (
        "`dist.barrier()` -> `trainer.strategy.barrier()`: every rank still waits there for "
        "what rank 0 wrote before the code after it; the process group's end is the Trainer's"
    )


def _final_end(ctx, end) -> None:
    """A barrier before the group's end goes with it only when nothing runs after the end on
    any rank (what it orders is no one's to see; the Trainer's processes end after `fit` and
    the code following it): else TL161, naming the code it may order."""
    after = ctx.scope_after[next(i for i, s in enumerate(ctx.scope_after) if s is end) + 1 :]
    rest = [s for s in after if not is_docstring(s)]
    read = _group_read(ctx, rest)
    if read is not None:
        raise Unsupported(
            PROCESS_GROUP,
            f"code after the process group's end reads it (`{code_of(read).strip()}`): the "
            "group is gone there, the Trainer's lives on after `fit`",
            read,
        )
    if rest:
        raise Unsupported(
            PROCESS_GROUP,
            "`dist.barrier()` before the process group's end, with code after it "
            f"(`{code_of(rest[0]).strip().splitlines()[0]}`) whose order across ranks it may "
            "set: not removed",
            end,
        )
    if ctx.in_function and not _called_last(ctx, ctx.function.name.value):
        raise Unsupported(
            PROCESS_GROUP,
            f"`dist.barrier()` before the process group's end in `{ctx.function.name.value}()`"
            ", whose caller may run more code after it: not removed",
            end,
        )


def _called_last(ctx, name: str) -> bool:
    """`name()` is called once in the file, as the last statement of the module or of its
    `if __name__ == "__main__":` block ending the module: nothing runs after it returns."""
    calls = m.findall(ctx.module, m.Call(func=m.Name(name)))
    body = [s for s in ctx.module.body if not is_docstring(s)]
    if len(calls) != 1 or not body:
        return False
    last = body[-1]
    if isinstance(last, cst.If) and last.orelse is None and "__main__" in code_of(last.test):
        last = last.body.body[-1]
    return m.matches(last, m.SimpleStatementLine([m.Expr(m.Call(func=m.Name(name)))]))


def _env_role(ctx, facts: Facts, stmt) -> str | None:
    """`X = int(os.environ["RANK"])` (LOCAL_RANK, WORLD_SIZE) and `X = <rank> == 0`: the
    role of X, recorded."""
    assign = single_assign(stmt)
    if assign is None:
        return None
    name, value = assign
    role = None
    if m.matches(value, m.Call(func=m.Name("int"), args=[m.Arg()])):
        role = ENV_ROLES.get(env_key(ctx, value.args[0].value))
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
        if is_docstring(stmt):
            continue
        if not single and group_call(ctx, stmt, INIT_GROUP, facts):
            continue
        if not single and _env_role(ctx, facts, stmt) is not None:
            continue
        assign = single_assign(stmt)
        if single and assign is not None:
            name, value = assign
            role = facts.roles.get(name)
            if role is not None:
                code = code_of(value)
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
            facts.accelerator = accelerator_of(ctx, assign[1], stmt)
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


def accelerator_of(ctx, value, stmt) -> str:
    """gloo -> "cpu", nccl -> "gpu", `"nccl" if C else "gloo"` -> `"gpu" if C else "cpu"`."""
    code = code_of(value)
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
            else code_of(s)
        )
        for s in strings
    ]
    if strings and all(("cuda" in t or t == "cpu" or "cpu" in t) for t in texts):
        facts.devices_named.add(assign[0])
        return True
    return False
