"""Tuple bindings read as one plain binding per name.

    G_AB, G_BA = generator().to(device), generator().to(device)
        -> G_AB = generator().to(device)
           G_BA = generator().to(device)

Every pattern reads a model, optimizer or device binding as one `name = value` statement
(analysis/statements.py `single_assign`, `LoopContext.binding`) and removes, strips or
rewrites that statement as a whole. A tuple assignment of a tuple display to as many distinct
plain names, none starred, is one such binding per name, provided no element observes a
binding made before it: Python evaluates every element before binding any name, the split
statements bind each name before the next element runs. So an element must not read a name
an earlier target binds, nor call a function or class of the file mentioning one (a global it
might read), nor call `eval` / `locals()` and kin. (`Q, P = Q.cuda(), P.cuda()` splits: each
element reads only its own name, bound after it runs in both forms.)

The split is made on the tree the patterns read, for the tuple assignments a refused plan
names (the loops are then planned again), in the module body and the bodies of functions and
`if` / `with` blocks -- never inside a loop, a `try` (an element raising would leave the
earlier names bound where the tuple bound none) or a class body. Emitting puts a group back as
it was written when no member was changed (`rejoin`): the output splits a tuple binding only
where the conversion changes one element.
"""

from __future__ import annotations

import dataclasses

import libcst as cst
import libcst.matchers as m

from ..analysis.function_reads import names_reading
from ..analysis.names import collect_names, mentions
from .code_text import code_of
from .find_loops import cst_contains

_INTROSPECTION = frozenset({"eval", "exec", "locals", "globals", "vars"})


@dataclasses.dataclass(frozen=True)
class Split:
    original: cst.SimpleStatementLine  # the tuple assignment as written
    members: tuple[cst.SimpleStatementLine, ...]  # one `name = value` per name, in order


def tuple_targets(stmt) -> tuple[list[str], list[cst.BaseExpression]] | None:
    """(names, values) of `a, b = x, y`: one target, a tuple of distinct plain names, a tuple
    display of as many elements, nothing starred; else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target, value = small.targets[0].target, small.value
    if not isinstance(target, cst.Tuple) or not isinstance(value, cst.Tuple):
        return None
    if len(target.elements) != len(value.elements) or len(target.elements) < 2:
        return None
    elements = [*target.elements, *value.elements]
    if any(isinstance(e, cst.StarredElement) for e in elements):
        return None
    if not all(isinstance(e.value, cst.Name) for e in target.elements):
        return None
    names = [e.value.value for e in target.elements]
    if len(set(names)) != len(names):
        return None
    return names, [e.value for e in value.elements]


class _Observers:
    """Names of the file's functions and classes whose code mentions one of some names (or
    calls one that does): calling them might read the binding. Computed once per file, on
    demand (a walk of the whole tree)."""

    def __init__(self, module: cst.Module) -> None:
        self._module = module
        self._defs = None

    def of(self, names: set[str]) -> set[str]:
        if self._defs is None:
            self._defs = (
                m.findall(self._module, m.FunctionDef()),
                m.findall(self._module, m.ClassDef()),
            )
        functions, classes = self._defs
        reading = names_reading(functions, names)
        return reading | {
            c.name.value
            for c in classes
            if {n.value for n in m.findall(c.body, m.Name())} & (names | reading)
        }


def _called(node) -> set[str]:
    """The names a call in `node` is made through: `f(...)` and the method of `x.f(...)`."""
    found = set()
    for call in m.findall(node, m.Call()):
        if isinstance(call.func, cst.Name):
            found.add(call.func.value)
        elif isinstance(call.func, cst.Attribute):
            found.add(call.func.attr.value)
    return found


def splits_faithfully(names, values, observers: _Observers) -> bool:
    """Whether binding each name right after its own element leaves every element's value
    as it was: no element observes a name an earlier target binds."""
    return _observed(names, values, observers) is None


def _observed(names, values, observers: _Observers) -> str | None:
    """Why one assignment per name could change an element's value, or None."""
    code = cst.Module(body=[]).code_for_node
    for k, value in enumerate(values[1:], start=1):
        earlier = set(names[:k])
        read = sorted(collect_names(value).reads & earlier)
        called = _called(value)
        through = sorted(called & (_INTROSPECTION | observers.of(earlier)))
        if read or through:
            how = f"reads `{read[0]}`" if read else f"calls `{through[0]}()`, which may read it"
            return (
                f"in the tuple assignment, `{code(value)}` (bound to `{names[k]}`) {how}; "
                f"Python evaluates it before binding `{'`, `'.join(names[:k])}`: one "
                "assignment per name would change what it reads"
            )
    return None


def why_not_split(stmt, module: cst.Module) -> str | None:
    """Why the tuple assignment `stmt` binding names one by one was left whole (see the
    module docstring), for a refusal to say; None for any other statement."""
    found = tuple_targets(stmt)
    if found is not None:
        return _observed(*found, _Observers(module))
    starred = m.findall(stmt, m.AssignTarget(target=m.Tuple() | m.List()))
    if starred and m.findall(starred[0].target, m.StarredElement()):
        return (
            "a starred target in the tuple assignment binds a list of what the other "
            "targets leave, not one element per name"
        )
    return None


def _members(stmt: cst.SimpleStatementLine, names, values) -> tuple:
    """One statement per name: the first keeps the lines above, the last the comment after."""
    members = []
    for k, (name, value) in enumerate(zip(names, values)):
        assign = cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=value)
        member = cst.SimpleStatementLine(body=[assign])
        if k == 0:
            member = member.with_changes(leading_lines=stmt.leading_lines)
        if k == len(names) - 1:
            member = member.with_changes(trailing_whitespace=stmt.trailing_whitespace)
        members.append(member)
    return tuple(members)


def split_tuple_bindings(
    module: cst.Module, lines, blamed: list[cst.CSTNode]
) -> tuple[cst.Module, list[Split]]:
    """`module` with the faithful tuple bindings a refusal named split (see the module
    docstring): each one among `blamed`, inside one (`if cuda: Q, P = Q.cuda(), P.cuda()`) or
    holding one, or binding a name one spells (`opt_d.step()`: `opt_d` not understood); and
    the splits made. Only those: a tuple binding the conversion reads as a
    whole (`total, correct = 0, 0` moved into a hook) stays as it is. `lines` (a LineIndex of
    `module`) learns the new statements' lines: each member, and every block rebuilt around
    one, is told at the line of what it replaces."""
    observers = _Observers(module)
    splits: list[Split] = []
    spelled = set().union(*(mentions(node) for node in blamed))

    def named(stmt, names) -> bool:
        return bool(spelled & set(names)) or any(
            node is stmt or cst_contains(stmt, node) or cst_contains(node, stmt) for node in blamed
        )

    def body(stmts) -> list:
        out = []
        for stmt in stmts:
            found = tuple_targets(stmt)
            if found is not None and named(stmt, found[0]) and splits_faithfully(*found, observers):
                members = _members(stmt, *found)
                for member in members:
                    lines.alias(member, stmt)
                    lines.alias(member.body[0], stmt.body[0])
                splits.append(Split(stmt, members))
                out.extend(members)
                continue
            out.append(block(stmt))
        return out

    def block(stmt):
        return _rebuilt(stmt, body, (cst.FunctionDef, cst.If, cst.Else, cst.With), lines.alias)

    new_body = body(module.body)
    if not splits:
        return module, splits
    new_module = module.with_changes(body=new_body)
    lines.rebase(new_module)
    return new_module, splits


def rejoin(module: cst.Module, splits: list[Split]) -> cst.Module:
    """`module` (converted) with every split whose members all stand unchanged, one after
    the other in one block, written back as the tuple assignment it was. The first member may
    have gained blank lines or comments above it (a statement removed before it leaves them)."""
    if not splits:
        return module
    firsts = {}
    for split in splits:
        key = code_of(split.members[0].with_changes(leading_lines=[]))
        firsts.setdefault(key, []).append(split)

    def join(stmts) -> list:
        out, k = [], 0
        while k < len(stmts):
            stmt = stmts[k]
            split = _matching(stmts, k, firsts)
            if split is not None:
                out.append(split.original.with_changes(leading_lines=stmt.leading_lines))
                k += len(split.members)
                continue
            out.append(walk(stmt))
            k += 1
        return out

    def walk(stmt):
        return _rebuilt(stmt, join, (cst.BaseCompoundStatement, cst.Else))

    return module.with_changes(body=join(list(module.body)))


def _rebuilt(stmt, bodies, kinds, made=lambda new, old: None):
    """`stmt` (when one of `kinds`) with `bodies` applied to the statements of its indented
    block and of its `elif` / `else` branches; the very node where nothing changed. `made(new,
    old)` is told of each node rebuilt."""
    if not isinstance(stmt, kinds):
        return stmt
    changes = {}
    inner = stmt.body
    if isinstance(inner, cst.IndentedBlock):
        new = bodies(inner.body)
        if len(new) != len(inner.body) or any(a is not b for a, b in zip(new, inner.body)):
            changes["body"] = inner.with_changes(body=new)
    orelse = getattr(stmt, "orelse", None)
    if orelse is not None:
        new_else = _rebuilt(orelse, bodies, kinds, made)
        if new_else is not orelse:
            changes["orelse"] = new_else
    if not changes:
        return stmt
    new_stmt = stmt.with_changes(**changes)
    made(new_stmt, stmt)
    return new_stmt


def _matching(stmts, k: int, firsts) -> Split | None:
    """The split whose members stand at `stmts[k:]`: the first by its code, the others the
    very nodes the split made (a copy of them in generated code is no match)."""
    stmt = stmts[k]
    if not isinstance(stmt, cst.SimpleStatementLine):
        return None
    for split in firsts.get(code_of(stmt.with_changes(leading_lines=[])), ()):
        rest = split.members[1:]
        if len(stmts) - k - 1 >= len(rest) and all(
            a is b for a, b in zip(stmts[k + 1 : k + 1 + len(rest)], rest)
        ):
            return split
    return None


