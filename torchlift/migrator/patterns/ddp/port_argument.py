"""A port the parent computes and hands through `mp.spawn` to the removed group start only.

    def setup(rank, world_size, port):           (removed: the Trainer starts the group)
        os.environ["MASTER_PORT"] = str(port)
        dist.init_process_group("gloo", rank=rank, world_size=world_size)

    def train(rank, world_size, port):           -> def train(world_size):
        setup(rank, world_size, port)
        ...
    port = 29500 + os.getpid() % 2000            -> removed
    mp.spawn(train, args=(2, port), nprocs=2)    -> train(2)

Kept, the Trainer's DDP would compute it in each of its processes (another pid, another free
port): harmless only because nothing would read it. The statement goes with the argument and
the worker's parameter when, by data flow: the name is read by nothing but that one argument,
the parameter by nothing the conversion keeps (the removed setup call), and computing the value
has no effect outside it (the pid, the clock, a socket bound to find a free port, arithmetic,
functions of the script doing only that): nothing the script showed or wrote is lost.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.function_reads import module_functions
from ...analysis.statements import single_assign
from ...source.code_text import code_of
from .facts import SPAWN_FUNCTIONS

WHY = (
    "a port for the process group's start, read only by it (the Trainer's now) -> removed, "
    "with the argument handing it to the worker"
)
# calls whose value is all they give (no output): the pid, the clock, builtins computing values
_PURE = ("os.getpid", "time.time", "time.monotonic", "socket.", "contextlib.closing")
_PURE_BUILTINS = frozenset(
    f"builtins.{n}" for n in "str int float abs min max len hash divmod round".split()
)
_SOCKET_METHODS = frozenset("bind setsockopt getsockname close listen".split())


def drop_unread_argument(ctx, plan, stmt, spawn_stmt) -> bool:
    """Remove `stmt` (`name = value`), its `mp.spawn` argument and the worker's parameter when
    they only feed removed code (see the module's docstring); False when not."""
    assign = single_assign(stmt)
    call = _spawn_call(ctx, spawn_stmt)
    if assign is None or call is None or not _pure(ctx, assign[1], set()):
        return False
    name = assign[0]
    elements = _spawn_args(call)
    at = [i for i, e in enumerate(elements) if m.matches(e.value, m.Name(name))]
    worker = ctx.function
    params = worker.params.params
    if len(at) != 1 or len(params) != len(elements) + 1:
        return False
    removed = _removed(ctx, plan)
    if not _unread_parameter(ctx, plan, at[0]):
        return False
    # the name: read by its argument only (the worker's reads are of its parameter)
    if _reads(ctx.module, name, removed | {id(stmt), id(elements[at[0]]), id(worker)}):
        return False
    return _rewrite(ctx, plan, spawn_stmt, at[0], stmt)


def spawn_arguments(ctx, spawn_stmt) -> list:
    """The values `mp.spawn(...)` hands the worker (`args=(...)`)."""
    call = _spawn_call(ctx, spawn_stmt)
    return [] if call is None else [e.value for e in _spawn_args(call)]


def drop_inline_argument(ctx, plan, spawn_stmt, index: int) -> bool:
    """`mp.spawn(train, args=(2, find_free_port()))`: the argument computed in the call goes
    with the worker's parameter when only removed code reads that (as for a name above)."""
    value = spawn_arguments(ctx, spawn_stmt)[index]
    if not _pure(ctx, value, set()) or not _unread_parameter(ctx, plan, index):
        return False
    return _rewrite(ctx, plan, spawn_stmt, index, None)


def _removed(ctx, plan) -> set[int]:
    """What the conversion takes away: removed statements, the group's start where the Trainer
    is built in its place, the helpers it inlined."""
    removed = {id(s) for s in [*plan.remove_stmts, plan.trainer_at] if s is not None}
    return removed | {
        id(f)
        for f in ctx.module.body
        if isinstance(f, cst.FunctionDef) and f.name.value in plan.inlined_helpers
    }


def _unread_parameter(ctx, plan, index: int) -> bool:
    """The worker's parameter for spawn argument `index` is read by removed code only."""
    params = ctx.function.params.params
    if len(params) <= index + 1:
        return False
    return not _reads(ctx.function.body, params[index + 1].name.value, _removed(ctx, plan))


def _spawn_call(ctx, spawn_stmt) -> cst.Call | None:
    calls = [c for c in m.findall(spawn_stmt, m.Call()) if ctx.call_qualnames(c) & SPAWN_FUNCTIONS]
    return calls[0] if len(calls) == 1 else None


def _spawn_args(call: cst.Call) -> list:
    for position, arg in enumerate(call.args):
        if (arg.keyword is not None and arg.keyword.value == "args") or (
            arg.keyword is None and position == 1
        ):
            return list(arg.value.elements) if isinstance(arg.value, cst.Tuple) else []
    return []


def _pure(ctx, node, seen: set[str]) -> bool:
    """Computing `node` gives a value and does nothing else (see `_PURE`); script functions
    followed (their bodies: assignments, `with`, `return`, calls of that kind)."""
    functions = module_functions(ctx.module)
    for call in m.findall(node, m.Call()):
        names = ctx.call_qualnames(call)
        if any(n.startswith(_PURE) for n in names) or names & _PURE_BUILTINS:
            continue
        func = call.func
        if isinstance(func, cst.Name) and func.value in functions and not names:
            if func.value in seen:
                continue
            seen.add(func.value)
            body = functions[func.value]
            if body.decorators or not _pure_body(ctx, body.body, seen):
                return False
            continue
        if isinstance(func, cst.Attribute) and func.attr.value in _SOCKET_METHODS and not names:
            continue
        return False
    return True


def _pure_body(ctx, block, seen: set[str]) -> bool:
    for stmt in block.body:
        if isinstance(stmt, cst.With):
            if not all(_pure(ctx, item.item, seen) for item in stmt.items):
                return False
            if not _pure_body(ctx, stmt.body, seen):
                return False
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if not isinstance(small, (cst.Assign, cst.Return, cst.Expr)):
                    return False
                if isinstance(small, cst.Assign) and not all(
                    isinstance(t.target, cst.Name) for t in small.targets
                ):
                    return False
                if not _pure(ctx, small, seen):
                    return False
        else:
            return False
    return True


def _reads(root, name: str, skipped: set[int]) -> bool:
    finder = _NameUses(name, skipped)
    root.visit(finder)
    return finder.found


class _NameUses(cst.CSTVisitor):
    def __init__(self, name: str, skipped: set[int]) -> None:
        self.name = name
        self.skipped = skipped
        self.found = False

    def on_visit(self, node) -> bool:
        if id(node) in self.skipped or self.found:
            return False
        return super().on_visit(node)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.found = True


def _rewrite(ctx, plan, spawn_stmt, original: int, stmt) -> bool:
    """Drop the spawn's argument `original` (its place in the script's call) from the
    replacement call and the worker's parameter there (the rank is already gone from both),
    and remove `stmt` (None: the value was inline)."""
    worker = ctx.function
    dropped = ctx.found.setdefault("dropped_spawn_arguments", [])
    index = original - sum(1 for i in dropped if i < original)  # earlier drops shift it
    spots = {id(s): i for i, (s, _) in enumerate(plan.rewrite_stmts)}
    if id(spawn_stmt) not in spots or id(worker) not in spots:
        return False
    launch = plan.rewrite_stmts[spots[id(spawn_stmt)]][1]
    new_worker = plan.rewrite_stmts[spots[id(worker)]][1]
    call = launch.body[0].value if m.matches(launch, m.SimpleStatementLine([m.Expr()])) else None
    if not isinstance(call, cst.Call) or len(call.args) <= index:
        return False
    call = call.with_changes(args=_without(call.args, index))
    launch = launch.with_changes(body=[launch.body[0].with_changes(value=call)])
    params = new_worker.params
    new_worker = new_worker.with_changes(
        params=params.with_changes(params=_without(params.params, index))
    )
    plan.rewrite_stmts[spots[id(spawn_stmt)]] = (spawn_stmt, launch)
    plan.rewrite_stmts[spots[id(worker)]] = (worker, new_worker)
    plan.rewritten_why[:] = [
        (s, code_of(call), why) if s is spawn_stmt else (s, code, why)
        for s, code, why in plan.rewritten_why
    ]
    dropped.append(original)
    if stmt is not None:
        plan.remove_stmts.append(stmt)
        plan.removed_why.append((stmt, WHY))
    return True


def _without(items, index: int) -> list:
    kept = [item for i, item in enumerate(items) if i != index]
    if kept and index == len(items) - 1:  # the new last one loses its trailing comma
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return kept
