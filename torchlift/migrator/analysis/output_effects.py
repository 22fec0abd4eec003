"""Which statements only write outside the program: prints, saved files, made directories.

Under DDP every process runs the hooks; a statement whose only effect is output (a `print`,
`torch.save(state, path)`, `if not os.path.isdir(d): os.mkdir(d)`, a call of the script's
`progress_bar(...)` that prints) can run on one of them and leave every process's state as it
was. `output_only(ctx, stmt)` answers that for one statement: it binds no name, changes no
object, and every call it makes is an output call, a call that only reads (`len`, `.item()`,
`os.path.isdir`, `net.state_dict()`), or a call of a function of the script made only of such
statements and local bindings. Anything else (a method changing its receiver, a call of an
unknown function, a walrus) is not output only.

Iterating what may be a DataLoader (`len(list(loader))`, `sum(1 for _ in loader)`) draws from
torch's generator (analysis/loader_iteration.py): it changes something.

Not followed: what formatting runs (`f"{obj}"` calls `__str__`, read-only by convention), and
properties or `__getitem__` an attribute or a subscript may run.
"""

from __future__ import annotations

from functools import lru_cache

import libcst as cst
import libcst.matchers as m

from .confined_effects import READ_METHODS, SAFE_CALLS, file_classes
from .function_reads import module_functions
from .loader_iteration import loader_iterations
from .qualnames import TQDM

# calls whose effect is output only: the console, files, directories
OUTPUT_CALLS = frozenset(
    {
        "builtins.print",
        "torch.save",
        "torch.serialization.save",
        "os.mkdir",
        "os.makedirs",
        "shutil.copy",
        "shutil.copy2",
        "shutil.copyfile",
        "json.dump",
        "pickle.dump",
        "numpy.save",
        "numpy.savetxt",
        "numpy.savez",
        "numpy.savez_compressed",
    }
)
# lines on the console besides `print`: they keep their order with the prints (one terminal)
_STREAM_WRITES = frozenset({"sys.stdout.write", "sys.stderr.write"})
_LOG_LEVELS = frozenset("debug info warning warn error exception critical log".split())
# calls that only read (nothing printed, nothing changed)
_READ_CALLS = (
    (SAFE_CALLS - {"builtins.print"})
    | {"builtins.vars"}  # an object's attributes as a dict (`print(vars(args))`)
    | {f"os.path.{name}" for name in ("isdir", "isfile", "exists", "join", "dirname", "basename")}
    | {f"math.{name}" for name in "cos sin exp log sqrt floor ceil".split()}
    # new tensors / arrays made of what they are given (`torch.save(torch.tensor(losses), p)`)
    | {f"torch.{name}" for name in "tensor as_tensor stack cat".split()}
    | {f"numpy.{name}" for name in "array asarray stack concatenate mean std".split()}
)
# methods that only read their receiver, whatever it is (`state_dict` copies references)
# (a scheduler's `get_last_lr()` returns the rates its last step set)
_READ_METHODS = READ_METHODS | {
    "state_dict",
    "cpu",
    "tolist",
    "mean",
    "sum",
    "argmax",
    "get_last_lr",
}
# a file opened in a `with` block: what may be called on it
_FILE_WRITES = frozenset({"write", "writelines", "flush"})


def console_call(ctx, call: cst.Call) -> bool:
    """`call` writes a line to the console: `print`, `sys.stdout.write`, a bar's
    `tqdm.write`, `logging.info(...)`, or a level method of a `logging.getLogger(...)` logger
    the file binds (`logger.info(...)`)."""
    for name in ctx.call_qualnames(call):
        owner, _, attr = name.rpartition(".")
        if name == "builtins.print" or name in _STREAM_WRITES:
            return True
        if (owner in TQDM and attr == "write") or (owner == "logging" and attr in _LOG_LEVELS):
            return True
    return (
        m.matches(call.func, m.Attribute(value=m.Name(), attr=m.Name()))
        and call.func.attr.value in _LOG_LEVELS
        and call.func.value.value in _loggers(ctx.module, ctx.names)
    )


@lru_cache(maxsize=8)
def _loggers(module: cst.Module, names) -> frozenset[str]:
    """The names the file binds to `logging.getLogger(...)` (anywhere: one logger per name
    by convention)."""
    return frozenset(
        target.target.value
        for assign in m.findall(module, m.Assign(value=m.Call()))
        if "logging.getLogger" in names.of_call(assign.value)
        for target in assign.targets
        if isinstance(target.target, cst.Name)
    )


def pure_expression(ctx, expr) -> bool:
    """Evaluating `expr` changes nothing and prints nothing (its calls only read)."""
    return _Outputs(ctx).pure(expr)


def pure_binding(ctx, stmt) -> bool:
    """`stmt` is a line of plain-name bindings of values whose evaluation changes nothing."""
    outputs = _Outputs(ctx)
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        outputs.binding(small) for small in stmt.body
    )


def output_only(ctx, stmt) -> bool:
    """`stmt` (a statement of a hook) only writes outside the program (see the docstring)."""
    return _Outputs(ctx).statement(stmt, frozenset())


class _Outputs:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.functions = module_functions(ctx.module)
        self.classes = file_classes(ctx.module)
        self.kinds: dict[str, str | None] = {}  # function name -> "pure" / "output" / None

    # -- statements ------------------------------------------------------------------------
    def statement(self, stmt, files: frozenset) -> bool:
        if isinstance(stmt, cst.SimpleStatementLine):
            return all(self._small(small, files) for small in stmt.body)
        if isinstance(stmt, cst.If):
            branches = [stmt.body.body]
            orelse = stmt.orelse
            while orelse is not None:
                if isinstance(orelse, cst.If):
                    if not self.pure(orelse.test):
                        return False
                    branches.append(orelse.body.body)
                    orelse = orelse.orelse
                else:
                    branches.append(orelse.body.body)
                    orelse = None
            return self.pure(stmt.test) and all(
                self.statement(s, files) for branch in branches for s in branch
            )
        if isinstance(stmt, cst.With):
            opened = self._opened_files(stmt)
            return opened is not None and all(
                self.statement(s, files | opened) for s in stmt.body.body
            )
        return False

    def _small(self, small, files: frozenset) -> bool:
        if not m.matches(small, m.Expr(m.Call())):
            return False
        call = small.value
        if not self.pure_args(call):
            return False
        if self.ctx.call_qualnames(call) & OUTPUT_CALLS or console_call(self.ctx, call):
            return True
        if m.matches(call.func, m.Attribute(value=m.Name(), attr=m.Name())):
            return call.func.value.value in files and call.func.attr.value in _FILE_WRITES
        return isinstance(call.func, cst.Name) and self.kind(call.func.value) == "output"

    def _opened_files(self, stmt: cst.With) -> frozenset | None:
        """The names `with open(...) as f` binds, when every item is such an `open`."""
        names = set()
        for item in stmt.items:
            call = item.item
            if not (
                isinstance(call, cst.Call)
                and "builtins.open" in self.ctx.call_qualnames(call)
                and self.pure_args(call)
                and item.asname is not None
                and isinstance(item.asname.name, cst.Name)
            ):
                return None
            names.add(item.asname.name.value)
        return frozenset(names)

    # -- expressions -----------------------------------------------------------------------
    def pure_args(self, call: cst.Call) -> bool:
        return all(self.pure(arg.value) for arg in call.args)

    def pure(self, expr) -> bool:
        """Evaluating `expr` changes nothing and prints nothing."""
        if m.findall(expr, m.NamedExpr() | m.Yield() | m.Await()):
            return False
        if loader_iterations(self.ctx, expr):  # a loader's iterator draws a seed
            return False
        return all(self._reading_call(call) for call in m.findall(expr, m.Call()))

    def _reading_call(self, call: cst.Call) -> bool:
        if self.ctx.call_qualnames(call) & _READ_CALLS:
            return True
        func = call.func
        if isinstance(func, cst.Attribute):
            attr = func.attr.value
            return attr in _READ_METHODS and not any(
                isinstance(item, cst.FunctionDef) and item.name.value == attr
                for cls in self.classes.values()
                for item in cls.body.body
            )
        return isinstance(func, cst.Name) and self.kind(func.value) == "pure"

    # -- functions of the script -----------------------------------------------------------
    def kind(self, name: str) -> str | None:
        """`pure` for a function of the script that only computes, `output` for one that
        also writes out (and changes nothing else), None otherwise (or not the script's)."""
        if name in self.kinds:
            return self.kinds[name]
        function = self.functions.get(name)
        self.kinds[name] = None  # recursion: not followed
        if function is None or function.decorators or function.asynchronous is not None:
            return None
        body = function.body.body if isinstance(function.body, cst.IndentedBlock) else []
        for stmt in body:
            if not (self.statement(stmt, frozenset()) or self._local_step(stmt)):
                return None
        writes = any(  # an output statement anywhere in it (a `with open(...)` block too)
            self.statement(stmt, frozenset())
            for stmt in m.findall(function.body, m.SimpleStatementLine() | m.With())
        )
        self.kinds[name] = "output" if writes else "pure"
        return self.kinds[name]

    def _local_step(self, stmt) -> bool:
        """A statement of a function that binds locals, returns, or branches, purely."""
        if isinstance(stmt, cst.If):
            blocks = [stmt.body.body]
            orelse = stmt.orelse
            while orelse is not None:
                blocks.append(orelse.body.body)
                if isinstance(orelse, cst.If):
                    if not self.pure(orelse.test):
                        return False
                    orelse = orelse.orelse
                else:
                    orelse = None
            return self.pure(stmt.test) and all(
                self.statement(s, frozenset()) or self._local_step(s)
                for block in blocks
                for s in block
            )
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if isinstance(small, (cst.Pass, cst.Expr)) and (
                isinstance(small, cst.Pass) or m.matches(small.value, m.SimpleString())
            ):
                continue
            if isinstance(small, cst.Return):
                if small.value is not None and not self.pure(small.value):
                    return False
                continue
            if isinstance(small, cst.Assert):  # raises or not: changes nothing
                if not self.pure(small.test) or small.msg and not self.pure(small.msg):
                    return False
                continue
            if not self.binding(small):
                return False
        return True

    def binding(self, small) -> bool:
        """`name = <pure value>` (or `+=`, an annotation, tuples of names): binds names,
        changes nothing."""
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
            targets = [small.target]
        else:
            return False
        if small.value is None or not self.pure(small.value):
            return False
        if loader_iterations(self.ctx, small):  # `a, b = value` iterates it
            return False
        return all(_plain_names(t) for t in targets)


def _plain_names(target) -> bool:
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(_plain_names(e.value) for e in target.elements)
    return isinstance(target, cst.Name)
