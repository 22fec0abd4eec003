"""A torchrun script whose process group starts in a function of its own (the references'
`init_distributed_mode(args)`), found by what it calls, whatever its name:

    def init_distributed_mode(args):                   kept, but for the group's start:
        if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
            args.rank = int(os.environ["RANK"])        the ranks torchrun gives, as before
            args.world_size = int(os.environ["WORLD_SIZE"])
            args.gpu = int(os.environ["LOCAL_RANK"])
        else:
            print("Not using distributed mode")
            args.distributed = False
            return
        args.distributed = True
        args.dist_backend = "gloo"
        dist.init_process_group(backend=args.dist_backend, rank=args.rank, ...)  -> removed
        dist.barrier()                                                            -> removed

    init_distributed_mode(args)                        kept: `args.*` are set as before
    ...
    Trainer(accelerator="cpu", devices=int(os.environ.get("LOCAL_WORLD_SIZE", 1)),
            strategy="ddp" if args.distributed else "auto")

The Trainer starts the same group in the same runs: the function starts it exactly when
torchrun's environment is there and then sets its flag (`args.distributed`) True, False on
the way out otherwise, so the flag chooses the strategy; the group's rank and world size are
torchrun's, its backend gloo/nccl (-> the accelerator). Everything else the function does
stays, so `args.rank` / `args.gpu` keep their values (torchrun's ranks: the Trainer's too).

Refused: a start under another launch (an `elif "SLURM_PROCID" in os.environ:` branch, a
flag of the script) or not at the function's top level, a function used elsewhere or whose
result is used, group options the Trainer does not take (`init_method` other than
"env://", `timeout`, ...), no flag set on both ways (TL168 / TL161); and code using the
group after that function and before the loop, which would run before the Trainer starts
it (`is_main_process()` reading `dist.get_rank()`: TL164, `check_group_unused`, for every
launch).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.function_reads import module_functions
from ...analysis.names import bound_names
from ...analysis.statements import single_assign, statements
from ...rule import Unsupported
from ...source.code_text import code_of
from .facts import ENV_ROLES, INIT_GROUP, Facts, is_flag, remove_with_reason
from .process_group import group_arguments, group_use, helper_starts, is_docstring
from .rules import PROCESS_GROUP, RANK_READ, TORCHRUN
from .torchrun import accelerator_of, env_key, read_group_end, torchrun_devices

_BARRIER = "torch.distributed.barrier"
_WHY_HELPER = (
    "the process group's start -> the Trainer's (`strategy=\"ddp\"` under the flag this "
    "function sets); the function still sets torchrun's ranks and the flag"
)


def read_init_helper(ctx, facts: Facts) -> None:
    facts.launch = "torchrun"
    starts = helper_starts(ctx)
    if len(starts) != 1:
        raise Unsupported(
            PROCESS_GROUP,
            f"{len(starts)} calls start the process group before the loop (expected one)",
            ctx.loop,
        )
    stmt, name = starts[0]
    helper = module_functions(ctx.module)[name]
    call = _lone_call(stmt, name)
    if call is None:
        raise Unsupported(
            TORCHRUN, f"`{name}(...)` is not a statement of its own (its result is used)", stmt
        )
    if len(m.findall(ctx.module, m.Name(name))) != 2:  # its def and this call
        raise Unsupported(
            TORCHRUN, f"`{name}` is used elsewhere too; the conversion changes it", stmt
        )
    given = _arguments(helper, call, stmt)
    body = [s for s in helper.body.body if not is_docstring(s)]
    start = next((s for s in body if _group_statement(ctx, s, INIT_GROUP)), None)
    if start is None:
        raise Unsupported(
            TORCHRUN,
            f"`{name}()` starts the process group inside a block or another function",
            helper,
        )
    index = body.index(start)
    ranks, flag = _read_gate(ctx, name, body[:index])
    owner, attr = flag
    if owner not in given or not isinstance(given[owner], cst.Name):
        raise Unsupported(
            TORCHRUN, f"`{name}()` sets its flag on `{owner}`, not on a name it is given", stmt
        )
    facts.flag = f"{given[owner].value}.{attr}"
    _check_flag_kept(ctx, name, helper, stmt, facts.flag, flag)
    facts.strategy = f'"ddp" if {facts.flag} else "auto"'
    facts.accelerator = _read_group_call(ctx, name, start, body[:index], ranks)
    after = body[index + 1 :]
    removed = [start]
    if after and _group_statement(ctx, after[0], _BARRIER, no_args=True):
        removed.append(after[0])  # the group's first barrier: nothing to wait for without it
    functions = {n: f for n, f in module_functions(ctx.module).items() if n != name}
    for other in body:
        if other not in removed and group_use(ctx, other, functions) is not None:
            what = group_use(ctx, other, functions)
            raise Unsupported(
                TORCHRUN, f"`{name}()` uses the process group besides starting it: {what}", other
            )
    remove_with_reason(facts, removed, _WHY_HELPER)
    facts.kept_ranks.update({f"{given[owner].value}.{a}": r for a, r in ranks.items()})
    facts.group_start = stmt
    _kept_env_ranks(ctx, facts, stmt)
    torchrun_devices(ctx, facts)
    read_group_end(ctx, facts)


def _check_flag_kept(ctx, name: str, helper, stmt, flag: str, in_helper: tuple) -> None:
    """The Trainer reads the flag where the loop stood: nothing between the call and the loop
    may set it or rebind its owner, nor the function set it but on its two ways."""
    owner = flag.split(".")[0]
    body = list(ctx.scope_before)
    later = [s for s in body[body.index(stmt) + 1 :] if not isinstance(s, cst.FunctionDef)]
    for other in [*later, ctx.loop]:
        if owner in bound_names(other) or flag in _attribute_writes(other):
            raise Unsupported(
                TORCHRUN, f"`{flag}` changes after `{name}()` set it, before the loop", other
            )
    inside = ".".join(in_helper)
    sets = [s for s in statements(helper) if inside in _attribute_writes(s)]
    if len([s for s in sets if isinstance(s, cst.SimpleStatementLine)]) != 2:
        raise Unsupported(
            TORCHRUN, f"`{name}()` sets `{inside}` other than once on each way", helper
        )


def _attribute_writes(node) -> set[str]:
    """The `owner.attribute` targets `node` assigns (`=`, `+=`, annotated)."""
    targets = [t.target for t in m.findall(node, m.AssignTarget())]
    targets += [a.target for a in m.findall(node, m.AugAssign() | m.AnnAssign())]
    return {".".join(found) for found in map(_owner_attr, targets) if found is not None}


def _kept_env_ranks(ctx, facts: Facts, start) -> None:
    """`local_rank = int(os.environ["LOCAL_RANK"]) if args.distributed else 0` after the
    call: torchrun's rank (the Trainer's), or a plain run's, kept as the script binds it."""
    body = list(ctx.scope_before)
    for stmt in body[body.index(start) + 1 :]:
        assign = single_assign(stmt)
        if assign is None:
            continue
        name, value = assign
        if (
            isinstance(value, cst.IfExp)
            and is_flag(facts, value.test)
            and m.matches(value.orelse, m.Integer("0") | m.Integer("1"))
        ):
            role = _env_rank(ctx, value.body)
            single = "1" if role == "world_size" else "0"
            if role is not None and value.orelse.value == single:
                facts.kept_ranks[name] = role
        elif _env_rank(ctx, value) is not None:
            facts.kept_ranks[name] = _env_rank(ctx, value)
    for name in list(facts.kept_ranks):  # bound once, or it is not that rank everywhere
        if "." not in name and ctx.binding(name)[1] != 1:
            del facts.kept_ranks[name]


def _lone_call(stmt, name: str) -> cst.Call | None:
    if m.matches(stmt, m.SimpleStatementLine([m.Expr(m.Call(func=m.Name(name)))])):
        return stmt.body[0].value
    return None


def _arguments(helper: cst.FunctionDef, call: cst.Call, stmt) -> dict:
    """parameter name -> the expression the call gives it."""
    params = helper.params
    if any(a.star for a in call.args) or params.star_arg not in (None, cst.MaybeSentinel.DEFAULT):
        raise Unsupported(TORCHRUN, "`*args` in the process group's start", stmt)
    names = [p.name.value for p in [*params.posonly_params, *params.params]]
    given = {n: a.value for n, a in zip(names, call.args) if a.keyword is None}
    given.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})
    return given


def _group_statement(ctx, stmt, qualname: str, no_args: bool = False) -> bool:
    if not m.matches(stmt, m.SimpleStatementLine([m.Expr(m.Call())])):
        return False
    call = stmt.body[0].value
    return qualname in ctx.call_qualnames(call) and not (no_args and call.args)


def _owner_attr(target) -> tuple[str, str] | None:
    if m.matches(target, m.Attribute(value=m.Name(), attr=m.Name())):
        return target.value.value, target.attr.value
    return None


def _attr_assign(stmt) -> tuple[tuple[str, str], cst.BaseExpression] | None:
    """((owner, attribute), value) of `owner.attribute = value`."""
    if m.matches(stmt, m.SimpleStatementLine([m.Assign(targets=[m.AssignTarget()])])):
        small = stmt.body[0]
        found = _owner_attr(small.targets[0].target)
        if found is not None:
            return found, small.value
    return None


def _env_rank(ctx, value) -> str | None:
    """The role of `int(os.environ["RANK"])` (LOCAL_RANK, WORLD_SIZE), else None."""
    if m.matches(value, m.Call(func=m.Name("int"), args=[m.Arg(keyword=None)])):
        return ENV_ROLES.get(env_key(ctx, value.args[0].value))
    return None


def _torchrun_test(ctx, test) -> bool:
    """`"RANK" in os.environ and "WORLD_SIZE" in os.environ` (any of torchrun's keys, `and`-ed):
    true exactly under torchrun."""
    parts = [test]
    while parts and isinstance(parts[-1], cst.BooleanOperation):
        last = parts.pop()
        if not isinstance(last.operator, cst.And):
            return False
        parts += [last.left, last.right]
    return all(
        isinstance(part, cst.Comparison)
        and isinstance(part.comparisons[0].operator, cst.In)
        and env_key(ctx, part) in ENV_ROLES
        for part in parts
    )


def _read_gate(ctx, name: str, before: list) -> tuple[dict, tuple[str, str]]:
    """The statements before the group's start: one `if <torchrun's env>: <ranks> else:
    <flag False>; return` (or `if not <env>: ...; return`), and the flag set True. Returns
    (attribute -> role of the ranks bound from the environment, (owner, flag attribute))."""
    ranks: dict = {}
    flag_false = flag_true = None
    gate = [s for s in before if m.findall(s, m.Return())]
    if len(gate) != 1 or not isinstance(gate[0], cst.If):
        raise Unsupported(
            TORCHRUN,
            f"`{name}()` does not return early exactly when torchrun's environment is missing",
            gate[0] if gate else ctx.loop,
        )
    gate = gate[0]
    if isinstance(gate.orelse, cst.If):
        test = code_of(gate.orelse.test)
        raise Unsupported(
            TORCHRUN,
            f"`{name}()` also starts the process group when `{test}` (a launch other than "
            "torchrun's)",
            gate.orelse,
        )
    negated = isinstance(gate.test, cst.UnaryOperation) and isinstance(gate.test.operator, cst.Not)
    test = gate.test.expression if negated else gate.test
    if not _torchrun_test(ctx, test):
        code = code_of(gate.test)
        raise Unsupported(
            TORCHRUN,
            f"`{name}()` starts the process group unless `{code}`, not exactly under torchrun",
            gate,
        )
    if negated and gate.orelse is None:
        go, stop = [], list(gate.body.body)
    elif not negated and gate.orelse is not None:
        go, stop = list(gate.body.body), list(gate.orelse.body.body)
    else:
        raise Unsupported(TORCHRUN, f"`{name}()`'s torchrun test not understood", gate)
    if not stop or not m.matches(stop[-1], m.SimpleStatementLine([m.Return(value=None)])):
        raise Unsupported(TORCHRUN, f"`{name}()` goes on without torchrun's environment", gate)
    if any(m.findall(s, m.Return()) for s in [*go, *stop[:-1]]):
        raise Unsupported(TORCHRUN, f"`{name}()` returns elsewhere in its torchrun test", gate)
    for stmt in [*go, *[s for s in before if s is not gate]]:
        found = _attr_assign(stmt)
        if found is None:
            continue
        target, value = found
        role = _env_rank(ctx, value)
        if role is not None:  # in the torchrun branch, or after the early return
            ranks[target] = role
        elif m.matches(value, m.Name("True")) and flag_true is None:
            flag_true = target
    for stmt in stop:
        found = _attr_assign(stmt)
        if found is not None and m.matches(found[1], m.Name("False")):
            flag_false = found[0]
    if flag_true is None or flag_true != flag_false:
        raise Unsupported(
            TORCHRUN,
            f"`{name}()` sets no flag True when it starts the process group and False when it "
            "does not (`args.distributed`), for the Trainer to choose its strategy by",
            gate,
        )
    owners = {owner for owner, _ in ranks}
    if owners - {flag_true[0]}:
        raise Unsupported(TORCHRUN, f"`{name}()` keeps its ranks on several objects", gate)
    return {attr: role for (_, attr), role in ranks.items()}, flag_true


def _read_group_call(ctx, name: str, start, before: list, ranks: dict) -> str:
    """The group's options are the Trainer's: the backend (-> the accelerator), torchrun's
    rank and world size, the environment's rendezvous. Returns the accelerator."""
    call = start.body[0].value
    backend = None
    for key, value in group_arguments(call):
        if key == "backend":
            backend = value
        elif key == "init_method":
            if not m.matches(value, m.SimpleString(value=m.MatchIfTrue(_is_env_url))):
                raise Unsupported(
                    PROCESS_GROUP,
                    f"the process group meets at `init_method={code_of(value)}`, not known to "
                    "be \"env://\": the Trainer's group always meets at torchrun's "
                    "MASTER_ADDR / MASTER_PORT, so another address given there would be ignored",
                    start,
                )
        elif key in ("rank", "world_size"):
            role = {"rank": "global_rank", "world_size": "world_size"}[key]
            attr = _owner_attr(value)
            if attr is None or ranks.get(attr[1]) != role:
                raise Unsupported(
                    PROCESS_GROUP,
                    f"the process group's {key} is not torchrun's {role.upper()}",
                    start,
                )
        else:
            raise Unsupported(
                PROCESS_GROUP,
                f"`init_process_group(..., {key}=...)`: the Trainer's group is started without it",
                start,
            )
    if backend is None:
        raise Unsupported(PROCESS_GROUP, "the process group's backend is the default", start)
    if not isinstance(backend, cst.SimpleString):
        bound = [
            found[1]
            for found in (_attr_assign(s) for s in before)
            if found is not None and _owner_attr(backend) == found[0]
        ]
        if len(bound) != 1:
            raise Unsupported(
                PROCESS_GROUP, f"`{name}()`'s backend is not bound once before its start", start
            )
        backend = bound[0]
    return accelerator_of(ctx, backend, start)


def _is_env_url(value: str) -> bool:
    return value.strip("'\"") == "env://"


def check_group_unused(ctx, plan, facts: Facts) -> None:
    """The code after the group's start and before the loop runs, converted, before the
    Trainer starts the group (in `fit`), so it must not use it (directly or through the
    script's functions): `is_main_process()` would be true on every rank there."""
    if facts.group_start is None:
        return
    gone = {id(s) for s in [*facts.removed, *plan.remove_stmts]}
    new = {id(old): stmt for old, stmt in [*facts.rewrites, *plan.rewrite_stmts]}
    functions = module_functions(ctx.module)
    body = list(ctx.scope_before)
    for stmt in body[body.index(facts.group_start) + 1 :]:
        if id(stmt) in gone or isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        use = group_use(ctx, new.get(id(stmt), stmt), functions)
        if use is not None:
            ctx.block(
                RANK_READ,
                f"{use} uses the process group before the Trainer starts it",
                stmt,
            )
