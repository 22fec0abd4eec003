"""What the launching process of an `mp.spawn` script ran once before the spawn.

`mp.spawn(worker, ...)` becomes `worker(...)`, and the Trainer's DDP runs the whole script in
each of its processes: the code the parent ran once before the spawn (in `if __name__ ==
"__main__":`, in the `main()` holding the spawn) now runs in every process. Its prints, logs
and written files happen in the launching process only, as before (the Trainer's children
have `LOCAL_RANK` set, the process started by `python script.py` has not):

    if __name__ == "__main__":                     if __name__ == "__main__":
        print(f"starting {n} processes")  ->           if os.environ.get("LOCAL_RANK", "0") == "0":
        os.makedirs("out", exist_ok=True)                  print(f"starting {n} processes")
        mp.spawn(train, args=(n,), nprocs=n)               os.makedirs("out", exist_ok=True)
                                                       train(n)

The children start only when the launching process reaches `fit`, after it ran this code: a
file it wrote is there for them, as it was for the spawned workers.

The values it computed and handed to the worker (`args=(...)`, globals) are now computed in
each process: kept when each process computes the same (literals, argparse, functions of the
script doing only that), refused (TL160) otherwise -- a draw of Python's or numpy's generator,
the clock, a download or any call not known to give every process the same value, and any use
of torch's generator (it seeds or advances the generator the worker then draws from, which
the spawned worker started fresh).

A `MASTER_PORT` / `MASTER_ADDR` set there from such a value (a free port found with a socket,
one offset by the pid) for the process group's start only is removed: launch_env.py; so is
such a port handed through `mp.spawn` to the removed start only: port_argument.py.

Module-level code outside `if __name__ == "__main__":` is left alone: the spawned workers
import the script too (the spawn start method), so it already ran in every process.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.confined_effects import READ_METHODS, file_classes, method
from ...analysis.function_reads import module_functions
from ...analysis.names import collect_names, file_identifiers
from ...analysis.output_effects import output_only
from ...analysis.torch_draws import draws, functions_drawing
from ...emit.rank_zero import guarded
from ...source.code_text import code_of
from .launch_env import WHY as LAUNCH_ENV_WHY
from .launch_env import forget_helpers, unread_launch_env
from .port_argument import drop_inline_argument, drop_unread_argument, spawn_arguments
from .rules import LAUNCH

_STATEMENT = m.MatchIfTrue(lambda node: isinstance(node, cst.BaseStatement))
LAUNCHING_PROCESS = 'os.environ.get("LOCAL_RANK", "0") == "0"'

# calls giving every process the same value and changing nothing outside the program
_SAME_IN_EVERY_PROCESS = frozenset(
    f"builtins.{name}"
    for name in (
        "len str int float bool round min max abs isinstance enumerate range list dict "
        "tuple set sorted sum zip repr format hasattr getattr vars any all reversed"
    ).split()
) | {
    "os.environ.get",
    "os.getenv",
    "os.cpu_count",
    "multiprocessing.cpu_count",
    "torch.cuda.is_available",
    "torch.cuda.device_count",
    "torch.device",
    "types.SimpleNamespace",
    "functools.partial",
    # the Trainer starts its processes with its own launcher: a start method set is unused
    "multiprocessing.set_start_method",
    "torch.multiprocessing.set_start_method",
}
# what differs from one process to another: generators seeded at start, the clock, ids
_PER_PROCESS = ("random.", "numpy.random.", "time.", "datetime.", "uuid.", "secrets.", "os.getpid")
_SAME_MODULES = ("argparse.", "os.path.", "math.", "collections.", "pathlib.")


def guard_parent_code(ctx, plan, spawn_stmt) -> bool:
    """Guard the output-only code the parent ran before `spawn_stmt`, refuse the values it
    computed that would differ in each process; True when something was guarded."""
    taken = {id(s) for s in plan.remove_stmts} | {id(s) for s, _ in plan.rewrite_stmts}
    checker = _SameInEveryProcess(ctx)
    marked: set[int] = set()
    # the values `mp.spawn` hands the worker, computed in its call: now in every process too
    for index, value in reversed(list(enumerate(spawn_arguments(ctx, spawn_stmt)))):
        problem = checker.expression(value)
        if problem is not None and drop_inline_argument(ctx, plan, spawn_stmt, index):
            forget_helpers(ctx, plan, value)  # port_argument.py
        elif problem is not None:
            ctx.block(
                LAUNCH,
                f"{problem}: `mp.spawn` computed it once for every worker, the Trainer's DDP "
                "computes it in each process",
                spawn_stmt,
            )
            return False
    for block in _parent_blocks(ctx.module, spawn_stmt):
        stmts = [s for s in block if id(s) not in taken]
        for stmt in list(stmts):
            simple = isinstance(stmt, cst.SimpleStatementLine)
            if simple and checker.statement(stmt) is not None:  # a port unread once converted
                if unread_launch_env(ctx, plan, stmt):  # launch_env.py
                    plan.remove_stmts.append(stmt)
                    plan.removed_why.append((stmt, LAUNCH_ENV_WHY))
                    forget_helpers(ctx, plan, stmt)
                    stmts.remove(stmt)
                    continue
                if drop_unread_argument(ctx, plan, stmt, spawn_stmt):  # port_argument.py
                    forget_helpers(ctx, plan, stmt)
                    stmts.remove(stmt)
                    continue
            problem = _mark(ctx, checker, stmt, marked)
            if problem is not None:
                node, why = problem
                ctx.block(
                    LAUNCH,
                    f"{why}: it ran once in the process calling `mp.spawn`, the Trainer's DDP "
                    "runs it in every process",
                    node,
                )
                return False
        _rewrite_runs(plan, stmts, marked)
    if marked and not _os_imported(ctx, plan):
        ctx.block(LAUNCH, "the guard of the launching process's output needs `os`", spawn_stmt)
        return False
    return bool(marked)


def _os_imported(ctx, plan) -> bool:
    """`os` names the module `os` in the file, or the conversion imports it."""
    if ctx.names.imports.get("os") == "os":
        return True
    if "os" in file_identifiers(ctx.module.code, "<module>"):
        return False  # `os` is something else there
    plan.imports.append("os")
    return True


def _rewrite_runs(plan, stmts, marked: set[int]) -> None:
    """One guard around each run of consecutive marked statements of a block (the first one
    rewritten, the others removed into it), one inside each statement holding some."""
    run: list = []
    for stmt in [*stmts, None]:
        if stmt is not None and id(stmt) in marked:
            run.append(stmt)
            continue
        if run:
            new = guarded(run, {id(s) for s in run}, LAUNCHING_PROCESS)[0]
            plan.rewrite_stmts.append((run[0], new))
            why = "output before `mp.spawn` -> the launching process's only (no `LOCAL_RANK`)"
            plan.rewritten_why.append((run[0], cst.Module(body=[new]).code, why))
            plan.remove_stmts += run[1:]
            plan.removed_why += [(s, why) for s in run[1:]]
            run = []
        if stmt is None:
            break
        inner = {id(s) for s in m.findall(stmt, _STATEMENT)} & marked
        if inner:
            new = guarded([stmt], inner, LAUNCHING_PROCESS)[0]
            plan.rewrite_stmts.append((stmt, new))
            why = "output before `mp.spawn` -> the launching process's only (no `LOCAL_RANK`)"
            plan.rewritten_why.append((stmt, cst.Module(body=[new]).code, why))


def _mark(ctx, checker, stmt, marked: set[int]):
    """Mark `stmt` (or the statements in it) to run in the launching process only when only
    output; else (node, why) when it does what may differ from one process to another."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return None
    if output_only(ctx, stmt):
        marked.add(id(stmt))
        return None
    if isinstance(stmt, cst.SimpleStatementLine):
        return checker.statement(stmt)
    if isinstance(stmt, (cst.If, cst.For)):
        head = stmt.test if isinstance(stmt, cst.If) else stmt.iter
        problem = checker.expression(head)
        if problem is not None:
            return stmt, problem
        for block in _blocks(stmt):
            for inner in block:
                problem = _mark(ctx, checker, inner, marked)
                if problem is not None:
                    return problem
        return None
    return stmt, f"a `{type(stmt).__name__.lower()}` block"


def _blocks(node):
    for child in node.children:
        if isinstance(child, cst.IndentedBlock):
            yield list(child.body)
        elif isinstance(child, (cst.Else, cst.If)):
            yield from _blocks(child)


class _SameInEveryProcess:
    """Does a statement compute the same values in every process, changing nothing but the
    names it binds (and the objects it made)?"""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.functions = module_functions(ctx.module)
        self.classes = file_classes(ctx.module)
        self.drawing = functions_drawing(ctx)
        self.followed: dict[int, str | None] = {}  # id(function) -> its problem

    def statement(self, stmt) -> tuple | None:
        """(node, why) of what in `stmt` may differ between processes, or None."""
        for small in stmt.body:
            if isinstance(small, (cst.Import, cst.ImportFrom, cst.Pass)):
                continue
            problem = self.expression(small)
            if problem is not None:
                return stmt, problem
        return None

    def expression(self, node) -> str | None:
        if draws(self.ctx, node, self.drawing):
            return "seeds or draws from torch's generator, which the spawned worker began fresh"
        for call in m.findall(node, m.Call()):
            problem = self._call(call)
            if problem is not None:
                return problem
        return None

    def _call(self, call: cst.Call) -> str | None:
        names = self.ctx.call_qualnames(call)
        shown = code_of(call.func)
        if names & _SAME_IN_EVERY_PROCESS or any(n.startswith(_SAME_MODULES) for n in names):
            return None
        func = call.func
        if isinstance(func, cst.Name) and func.value in self.functions and not names:
            return self._function(self.functions[func.value])
        if isinstance(func, cst.Name) and func.value in self.classes:
            init = method(self.classes[func.value], "__init__")
            return None if init is None else self._function(init)
        if isinstance(func, cst.Attribute):
            defined = [
                found
                for cls in self.classes.values()
                if (found := method(cls, func.attr.value)) is not None
            ]
            if defined:  # a method of the script's (the receiver's class is not known)
                return next(filter(None, map(self._function, defined)), None)
            if func.attr.value in READ_METHODS:
                return None
            if self._made_here(func.value):  # `parser.add_argument(...)`
                return None
        if any(n.startswith(_PER_PROCESS) for n in names):
            return f"`{shown}(...)` gives each process its own value"
        return f"`{shown}(...)` is not known to do the same in every process"

    def _function(self, function: cst.FunctionDef) -> str | None:
        if id(function) not in self.followed:
            self.followed[id(function)] = None  # recursion: not followed again
            self.followed[id(function)] = self._function_problem(function)
        return self.followed[id(function)]

    def _function_problem(self, function: cst.FunctionDef) -> str | None:
        name = function.name.value
        if function.decorators or function.asynchronous is not None:
            return f"`{name}` is decorated or async"
        for stmt in m.findall(function.body, m.SimpleStatementLine()):
            if any(isinstance(s, (cst.Global, cst.Nonlocal)) for s in stmt.body):
                return f"`{name}` changes a global"
            if output_only(self.ctx, stmt):  # in a function giving a value: not guarded
                return f"`{name}` prints or writes files"
            problem = self.statement(stmt)
            if problem is not None:
                return f"{problem[1]}{_argument_default(stmt, problem[1], name)}"
        for stmt in m.findall(function.body, m.With() | m.Try() | m.While()):
            return f"`{name}` holds a `{type(stmt).__name__.lower()}` block"
        return None

    def _made_here(self, receiver) -> bool:
        """`receiver` is a name every binding of which (in the file) is a call this class
        accepts (an `argparse.ArgumentParser()`, a group of one)."""
        if not isinstance(receiver, cst.Name):
            return False
        values = [
            assign.value
            for assign in m.findall(self.ctx.module, m.Assign())
            if receiver.value in collect_names(*[t for t in assign.targets]).writes
        ]
        return bool(values) and all(
            isinstance(v, cst.Call) and self._call(v) is None for v in values
        )


def _parent_blocks(module: cst.Module, spawn_stmt) -> list[list]:
    """The statements the parent runs once before `spawn_stmt`, block by block: those before
    it in its block, and when that block is a function's body, those before the call of the
    function (again up to a module-level block, which the spawned workers run too)."""
    found = []
    target = spawn_stmt
    seen = set()
    while target is not None and id(target) not in seen:
        seen.add(id(target))
        holder = _holding_block(module, target)
        if holder is None:
            break
        block, owner = holder
        if isinstance(owner, cst.Module):
            break
        found.insert(0, block[: [i for i, s in enumerate(block) if s is target][0]])
        if isinstance(owner, cst.FunctionDef):
            target = _caller_statement(module, owner.name.value)
        elif isinstance(owner, cst.If):
            target = owner
        else:
            break
    return found


def _holding_block(module, target):
    for block, owner in _all_blocks(module):
        if any(s is target for s in block):
            return block, owner
    return None


def _caller_statement(module, name: str):
    calls = m.findall(module, m.Call(func=m.Name(name)))
    for block, _ in _all_blocks(module):
        for stmt in block:
            if isinstance(stmt, cst.SimpleStatementLine) and any(
                found is call for call in calls for found in m.findall(stmt, m.Call())
            ):
                return stmt
    return None


def _all_blocks(node):
    """(statements, the module, def or `if` holding them) of every such block, nested."""
    if isinstance(node, cst.Module):
        body = list(node.body)
    elif isinstance(node, (cst.FunctionDef, cst.If)) and isinstance(node.body, cst.IndentedBlock):
        body = list(node.body.body)
    else:
        return
    yield body, node
    for stmt in body:
        yield from _all_blocks(stmt)


def _argument_default(stmt, problem: str, function: str) -> str:
    """` (the default of `--port`)` when `stmt` is `parser.add_argument("--port", default=...)`
    and the call the problem names (its first `...`) is in that default: the argparse
    Namespace handed whole to the worker holds it, each process's own (else "")."""
    shown = problem.split("`")[1].removesuffix("(...)") if "`" in problem else ""
    for call in m.findall(stmt, m.Call(func=m.Attribute(attr=m.Name("add_argument")))):
        flag = call.args[0].value if call.args else None
        if not (shown and isinstance(flag, cst.SimpleString)):
            continue
        for arg in call.args:
            if m.matches(arg.keyword, m.Name("default")) and shown in code_of(arg.value):
                return (
                    f" (the default of `{flag.evaluated_value}` in `{function}()`: the Namespace"
                    " it returns would hold each process's own)"
                )
    return ""
