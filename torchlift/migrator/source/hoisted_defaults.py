"""Defaults of a module-level helper bound to module names right before its `def`.

    def run_epoch(data_iter, model, ..., train_state=TrainState()):
        -> run_epoch_train_state = TrainState()


           def run_epoch(data_iter, model, ..., train_state=run_epoch_train_state):

Python evaluates a function's defaults once, when the `def` statement runs, in the scope
around it: the Annotated Transformer's `train_state=TrainState()` is one object every call
that omits it shares, and `factor=scale` is the value `scale` had then. A helper inlined into
the caller's loop (patterns/helpers.py) can only read the default again where the call was --
another object, or the caller's own `scale` -- unless the default has a name of its own. The
statement right before the `def` evaluates it at the same moment, in the same scope, and binds
a name nothing else in the file uses; the `def` and the inlined call both read that name, so
they share the very object the script's calls shared. Defaults are hoisted in the order Python
evaluates them (positional ones, then keyword-only ones), each non-constant one up to the last
that must be, so none is evaluated before one it followed.

Only for a module-level `def` without decorators (Python evaluates the decorators first, then
the defaults: built before the `def`, a default would run before them). Made on the tree the
patterns read, for the defaults a refused plan names (the loops are then planned again), like
source/tuple_bindings.py's splits. Emitting puts a `def` back as written (`restore`) when
nothing but its defaults reads the names any more (the loop calling it was not converted).
"""

from __future__ import annotations

import ast
import dataclasses

import libcst as cst

from ..analysis.definition_defaults import constant
from ..analysis.names import file_identifiers, reads_among
from ..result import Change


@dataclasses.dataclass(frozen=True)
class Hoist:
    original: cst.FunctionDef  # the def as written
    bindings: tuple[cst.SimpleStatementLine, ...]  # `<helper>_<param> = <default>`, in order
    definition: cst.FunctionDef  # the def reading them
    params: tuple[str, ...]  # the parameter each binding stands for

    @property
    def names(self) -> set[str]:
        """The module names the bindings make."""
        return {b.body[0].targets[0].target.value for b in self.bindings}


def defaulted(func: cst.FunctionDef) -> list[cst.Param]:
    """The parameters with a default, in the order Python evaluates the defaults."""
    params = func.params
    return [p for p in (*params.posonly_params, *params.params, *params.kwonly_params) if p.default]


def why_not_hoisted(func: cst.FunctionDef) -> str | None:
    """Why the defaults of `func` (a module-level def) cannot be evaluated before it."""
    if func.decorators:
        return "its decorators are evaluated before its defaults"
    return None


def hoist_defaults(
    module: cst.Module, lines, blamed: list[cst.CSTNode], done: list[Hoist] = ()
) -> tuple[cst.Module, list[Hoist]]:
    """`module` with the defaults among `blamed` hoisted (see the module docstring), and the
    hoists made. `lines` (a LineIndex of `module`) learns the new statements' lines: the
    bindings and the rebuilt def are told at the def's. `done`: the hoists made before (a
    default they bound is not bound again)."""
    bound_before = {name for hoist in done for name in hoist.names}
    blamed_ids = {id(node) for node in blamed}
    taken: set[str] | None = None
    hoists: list[Hoist] = []
    body = []
    for stmt in module.body:
        if not isinstance(stmt, cst.FunctionDef) or why_not_hoisted(stmt) is not None:
            body.append(stmt)
            continue
        params = defaulted(stmt)
        wanted = [k for k, p in enumerate(params) if id(p.default) in blamed_ids]
        if not wanted:
            body.append(stmt)
            continue
        if taken is None:
            taken = file_identifiers(module.code, "<hoist>")
        moved = [
            p
            for p in params[: wanted[-1] + 1]
            if not constant(p.default)
            and not (isinstance(p.default, cst.Name) and p.default.value in bound_before)
        ]
        names = {}
        for param in moved:
            names[param.name.value] = _fresh(f"{stmt.name.value}_{param.name.value}", taken)
            taken.add(names[param.name.value])
        # a def an earlier hoist made: its new bindings follow that hoist's, with no line between
        follows = any(body and body[-1] is hoist.bindings[-1] for hoist in done)
        hoist = _hoisted(stmt, moved, names, follows)
        for new in (*hoist.bindings, hoist.definition):
            lines.alias(new, stmt)
        hoists.append(hoist)
        body += [*hoist.bindings, hoist.definition]
    if not hoists:
        return module, hoists
    new_module = module.with_changes(body=body)
    lines.rebase(new_module)
    return new_module, hoists


def _fresh(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def _hoisted(
    func: cst.FunctionDef, moved: list[cst.Param], names: dict[str, str], follows: bool
) -> Hoist:
    """The bindings before `func` and `func` reading them. The first binding takes the blank
    lines above the def (none when it `follows` bindings made before); the def is set apart
    by two blank lines, its comments kept above it."""
    above = list(func.leading_lines)
    blank = _blank_lines_above(func)
    bindings = []
    for k, param in enumerate(moved):
        assign = cst.Assign([cst.AssignTarget(cst.Name(names[param.name.value]))], param.default)
        line = cst.SimpleStatementLine([assign])
        if k == 0 and not follows:
            line = line.with_changes(leading_lines=above[:blank])
        bindings.append(line)

    def renamed(group):
        return [
            p.with_changes(default=cst.Name(names[p.name.value])) if p.name.value in names else p
            for p in group
        ]

    params = func.params.with_changes(
        posonly_params=renamed(func.params.posonly_params),
        params=renamed(func.params.params),
        kwonly_params=renamed(func.params.kwonly_params),
    )
    definition = func.with_changes(
        params=params, leading_lines=[cst.EmptyLine(), cst.EmptyLine(), *above[blank:]]
    )
    return Hoist(func, tuple(bindings), definition, tuple(p.name.value for p in moved))


def restore(module: cst.Module, hoists: list[Hoist]) -> cst.Module:
    """`module` (converted) with every hoist whose names nothing but its def reads written
    back as the def it was: its bindings standing right before it (the first may have gained
    lines above it, from a statement removed before it), the def unchanged. The last hoist
    first: a later one may have hoisted another default of the def an earlier one made."""
    body = list(module.body)
    for hoist in reversed(hoists):
        at = next((k for k, s in enumerate(body) if s is hoist.definition), None)
        start = None if at is None else at - len(hoist.bindings)
        if start is None or start < 0:
            continue
        if [_bare(s) for s in body[start:at]] != [_bare(s) for s in hoist.bindings]:
            continue
        if reads_among(hoist.names, *body[:start], *body[at + 1 :]):
            continue
        above = [*body[start].leading_lines, *_comments_above(hoist.original)]
        body[start : at + 1] = [hoist.original.with_changes(leading_lines=above)]
    return module.with_changes(body=body)


def _blank_lines_above(func: cst.FunctionDef) -> int:
    """How many of the lines above `func` come before its first comment."""
    above = func.leading_lines
    blank = 0
    while blank < len(above) and above[blank].comment is None:
        blank += 1
    return blank


def _comments_above(func: cst.FunctionDef) -> list[cst.EmptyLine]:
    return list(func.leading_lines[_blank_lines_above(func) :])


def _bare(stmt) -> str:
    return cst.Module(body=[stmt.with_changes(leading_lines=[])]).code


def hoist_changes(source: ast.Module, output: ast.Module, hoists: list[Hoist], code: str):
    """The change log's lines for the hoists the output kept (`code`: the helper rule's): the
    default as written -> its binding before the def, and -> the def's default naming it."""
    changes = []
    for hoist in hoists:
        func = hoist.original.name.value
        for param, binding in zip(hoist.params, hoist.bindings):
            name = binding.body[0].targets[0].target.value
            written = _default(source, func, param)
            bound = next(
                (
                    s
                    for s in output.body
                    if isinstance(s, ast.Assign) and [ast.unparse(t) for t in s.targets] == [name]
                ),
                None,
            )
            if written is None or bound is None:
                continue  # put back as written (restore), or never in the source
            what = (
                f"the default `{param}={ast.unparse(written)}` of `{func}`, evaluated once when "
                f"the def runs, is bound to `{name}` right before it"
            )
            source_lines = (written.lineno, written.end_lineno)
            changes.append(Change(code, source_lines, (bound.lineno, bound.end_lineno), what))
            default = _default(output, func, param)
            if default is not None:
                changes.append(
                    Change(
                        code,
                        source_lines,
                        (default.lineno, default.end_lineno),
                        f"{what}: the def and the inlined call read that one object",
                    )
                )
    return changes


def _default(tree: ast.Module, func: str, param: str) -> ast.expr | None:
    """The default of `param` of the module-level `def func` in `tree`."""
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == func:
            args = stmt.args
            positional = [*args.posonlyargs, *args.args]
            pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
            pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
            return next((d for a, d in pairs if a.arg == param), None)
    return None
