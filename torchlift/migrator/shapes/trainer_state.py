"""Attributes a trainer class's helper methods rebind, carried back by the caller.

    class Trainer:                                  def train_step(model, ..., global_step, batch):
        def train_step(self, batch):                    ...
            ...                                         global_step += 1
            self.global_step += 1          ->           return loss.item(), global_step
            return loss.item()
        def fit(self):                              for batch in loader:
            for batch in self.loader:                   loss, global_step = train_step(...)
                loss = self.train_step(batch)           if global_step % 10 == 0: ...
                if self.global_step % 10 == 0: ...

trainer_inline.py turns the class's attributes into names and its helper methods into
functions given the attributes they read. A helper that rebinds an attribute (a step
counter, `self.epochs_run` of a resumed snapshot, `self.best`) returns the new value with
its own, and every call assigns it back, right after the call: the value each later read
sees is the one the class's attribute held at that point. A helper calling one that carries
an attribute carries it too (the call rebinds its local).

That holds only where the value comes back when the attribute changes: refused (TL173)
when the call is inside an expression (`print(self.validate(), self.best)` reads the
attribute before the statement ends), assigns to more than one target or to a target reading
the attribute, sits in a function nested in a method or in a `try` (an exception caught
there would lose the value), when the attribute may have no value yet where the helper
runs (a function's parameter must have one: set it in `__init__`, or first thing in the run
method), or when the helper is decorated other than by torch's grad modes (the decorator
would see the value returned with its own).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from ..analysis.qualnames import Qualnames
from ..inputs import import_table
from ..rule import Unsupported
from .trainer_class import METHOD_SHAPE


@dataclass
class Carried:
    """helper -> the attributes its calls carry back; the helpers that also return a value."""

    attrs: dict[str, list[str]]
    valued: set[str]

    def check(self, owner: str, used, run: str | None, others: list[str], module: cst.Module) -> None:
        """Unsupported (TL173) unless every call of a carrying helper can assign the
        attributes back where the class's attribute changed (see the module docstring)."""
        for method, info in used.items():
            self._check_calls(owner, "self", [info.node.body], f"`{owner}.{method}`")
        _check_bound_first(owner, used, run, others, self.attrs)
        qualnames = Qualnames(import_table(ast.parse(module.code)))
        for helper in self.attrs:
            for decorator in used[helper].node.decorators:
                node = decorator.decorator
                called = node.func if isinstance(node, cst.Call) else node
                if not qualnames.of(called) <= _GRAD_MODES or not qualnames.of(called):
                    raise Unsupported(
                        METHOD_SHAPE,
                        f"`{owner}.{helper}` (a function once inlined) rebinds "
                        f"`self.{self.attrs[helper][0]}` and is decorated: returning the value "
                        "too, its decorator would see it (only torch's grad modes are known "
                        "not to look)",
                        decorator,
                    )

    def check_script(self, owner: str, instance: str, block) -> None:
        """The same for the script's own calls of such a method (`trainer.freeze()`)."""
        self._check_calls(owner, instance, block, "the script")

    def _check_calls(self, owner: str, receiver: str, nodes, where: str) -> None:
        finder = _CarriedCalls(receiver, self)
        for node in nodes:
            node.visit(finder)
            if finder.refused is not None:
                call, why = finder.refused
                helper = call.func.attr.value
                raise Unsupported(
                    METHOD_SHAPE,
                    f"`{owner}.{helper}` (a function once inlined) rebinds "
                    f"`self.{self.attrs[helper][0]}` and is called in {where} {why}: as a "
                    "function it could not carry the new value back there",
                    call,
                )

    def returned(self, helper: str, value: cst.BaseExpression | None) -> cst.BaseExpression:
        """What a carrying helper returns: its value (if any of its returns gives one) and
        the attributes it carries, `return logs, global_step`."""
        attrs = self.attrs[helper]
        if helper not in self.valued:
            return _names(attrs)
        value = value if value is not None else cst.Name("None")
        if isinstance(value, _LOOSE) and not value.lpar:  # `return a, b` -> `(a, b), step`
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return _tuple([value, *[cst.Name(a) for a in attrs]])

    def final_return(self, helper: str) -> cst.SimpleStatementLine:
        """The `return` a carrying helper ends with when its body can end without one."""
        return cst.SimpleStatementLine([cst.Return(self.returned(helper, None))])

    def call(self, helper: str, original, updated) -> cst.BaseSmallStatement:
        """`x = h(...)` -> `x, step = h(...)`; `h(...)` -> `step = h(...)` (or
        `step = h(...)[1]` when `h` also returns a value the statement drops)."""
        attrs = self.attrs[helper]
        if isinstance(original, cst.Expr):
            value = updated.value
            if helper in self.valued:
                index = cst.Integer("1")
                element = cst.Index(index) if len(attrs) == 1 else cst.Slice(index, None)
                value = cst.Subscript(value, [cst.SubscriptElement(element)])
            return cst.Assign([cst.AssignTarget(_names(attrs))], value)
        target = updated.targets[0].target
        if isinstance(target, cst.Tuple):
            target = target.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        target = _tuple([target, *[cst.Name(a) for a in attrs]])
        return updated.with_changes(targets=[cst.AssignTarget(target)])


def carried_state(used, helpers: list[str], rank) -> Carried:
    """The attributes each helper's calls must carry back (those it, or a helper it calls,
    rebinds), in the order the class first sets them."""
    carried = {h: set(used[h].stores) for h in helpers}
    changed = True
    while changed:  # a caller carries what its callees carry
        changed = False
        for helper in helpers:
            for callee in used[helper].calls:
                if callee in carried and not carried[callee] <= carried[helper]:
                    carried[helper] |= carried[callee]
                    changed = True
    attrs = {
        h: sorted(found, key=lambda a: (rank.get(a, len(rank)), a))
        for h, found in carried.items()
        if found
    }
    return Carried(attrs, {h for h in attrs if _returns_value(used[h].node)})


def ends_in_return(node: cst.FunctionDef) -> bool:
    """Whether the function's last statement returns or raises (nothing to append)."""
    last = node.body.body[-1]
    return m.matches(last, m.SimpleStatementLine([m.Return() | m.Raise()]))


def _check_bound_first(owner: str, used, run: str | None, others: list[str], carried) -> None:
    """Each carried attribute has a value whenever a helper carrying it may run (it is passed
    to the function): set by a statement of `__init__` itself (not under an `if`), before
    the first statement calling a method when `__init__` reaches the helper; or, for a helper
    only the run method reaches, by one of its own statements before its first call."""
    init_first = _bound_before_calls(used["__init__"].node, stop=True)
    init_all = _bound_before_calls(used["__init__"].node, stop=False)
    run_first = _bound_before_calls(used[run].node, stop=True) if run is not None else set()
    from_init = _reached(used, "__init__")
    from_script = set().union(*(_reached(used, o) | {o} for o in others))
    for helper, attrs in carried.items():
        if helper in from_init:
            bound, where = init_first, "`__init__` before it calls a method"
        elif helper in from_script:
            bound, where = init_all, "`__init__`"
        else:
            bound, where = (
                init_all | run_first,
                f"`__init__`, or by `{run}` before it calls a method",
            )
        missing = [a for a in attrs if a not in bound | set_first(used[helper].node)]
        if missing:
            raise Unsupported(
                METHOD_SHAPE,
                f"`{owner}.{helper}` (a function once inlined) rebinds `self.{missing[0]}`, "
                f"which is not set for sure by {where}: the function would be given a name "
                "without a value",
                used[helper].node,
            )


def set_first(method: cst.FunctionDef) -> set[str]:
    """Attributes the method sets before anything could read them: by its first statements
    (plain assignments, none calling a method or attribute of `self`, which could read them),
    each before any mention of it. Inlined as a function, it needs no value of them (not a
    parameter), only gives them back: StarGAN's `build_model()`, called by `__init__` to set
    `self.G` / `self.D` and their optimizers."""
    read: set[str] = set()
    first: set[str] = set()
    for stmt in method.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            break  # a branch, a loop, a `with`: what follows may run or not, stop reading
        if m.findall(stmt, m.Call(func=m.Attribute(value=m.Name("self")))):
            break
        for small in stmt.body:
            if isinstance(small, cst.Assign):
                targets = [t.target for t in small.targets]
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                targets = [small.target]
            elif isinstance(small, (cst.AugAssign, cst.Expr)):
                targets = []  # `self.n += 1` reads `self.n`
            else:
                return first  # a `return`, `del`, `global`...: stop there
            stores = {id(a) for t in targets for a in _set_attr_nodes(t)}
            mentioned = m.findall(small, m.Attribute(m.Name("self"), m.Name()))
            read |= {a.attr.value for a in mentioned if id(a) not in stores}
            first |= {a.attr.value for t in targets for a in _set_attr_nodes(t)} - read
    return first


def _set_attr_nodes(target: cst.BaseExpression) -> list[cst.Attribute]:
    """The `self.x` nodes an assignment target sets (see `_set_attrs`)."""
    if m.matches(target, m.Attribute(m.Name("self"), m.Name())):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [a for e in target.elements for a in _set_attr_nodes(e.value)]
    if isinstance(target, cst.StarredElement):
        return _set_attr_nodes(target.value)
    return []


def _reached(used, method: str) -> set[str]:
    """The methods `method` calls, directly or through others."""
    found: set[str] = set()
    stack = list(used[method].calls)
    while stack:
        current = stack.pop()
        if current in used and current not in found:
            found.add(current)
            stack += used[current].calls
    return found


def _bound_before_calls(method: cst.FunctionDef, stop: bool) -> set[str]:
    """Attributes the method's own statements (not under an `if` or a loop) set, up to its
    first statement calling anything on `self` when `stop`."""
    bound: set[str] = set()
    for stmt in method.body.body:
        if stop and m.findall(stmt, m.Call(func=m.Attribute(value=m.Name("self")))):
            break
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            targets = [t.target for t in getattr(small, "targets", [])]
            if isinstance(small, cst.AnnAssign) and small.value is not None:
                targets.append(small.target)
            for target in targets:
                bound |= _set_attrs(target)
    return bound


def _set_attrs(target: cst.BaseExpression) -> set[str]:
    """`self.x` set by an assignment target (also inside `a, self.x = ...`), never an
    attribute the target only reads (`self.hist[self.k] = ...` sets neither)."""
    if m.matches(target, m.Attribute(m.Name("self"), m.Name())):
        return {target.attr.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(_set_attrs(e.value) for e in target.elements))
    if isinstance(target, cst.StarredElement):
        return _set_attrs(target.value)
    return set()


class _CarriedCalls(cst.CSTVisitor):
    """The first call `<receiver>.h(...)` of a carrying helper that cannot assign back:
    `refused` = (call, why). Allowed: `receiver.h(...)` as a statement, or `x = receiver.h(...)`
    with one target not reading the carried attributes (and `h` returning a value: else
    `x = None` would be lost), in the method's own scope, outside any `try`."""

    def __init__(self, receiver: str, carried: Carried) -> None:
        self.receiver, self.carried, self.valued = receiver, carried.attrs, carried.valued
        self.statement_calls: set[int] = set()
        self.assign_refused: dict[int, str] = {}  # id of a call -> why its assignment cannot
        self.nested = self.tries = 0
        self.refused: tuple[cst.Call, str] | None = None

    def visit_FunctionDef(self, node) -> None:
        self.nested += 1

    def leave_FunctionDef(self, original_node) -> None:
        self.nested -= 1

    def visit_Try(self, node) -> None:
        self.tries += 1

    def leave_Try(self, original_node) -> None:
        self.tries -= 1

    def visit_TryStar(self, node) -> None:
        self.tries += 1

    def leave_TryStar(self, original_node) -> None:
        self.tries -= 1

    def visit_Expr(self, node: cst.Expr) -> None:
        self.statement_calls.add(id(node.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self._carrying(node.value):
            return
        helper = node.value.func.attr.value
        read = [
            a.attr.value
            for t in node.targets
            for a in m.findall(t.target, m.Attribute(m.Name(self.receiver), m.Name()))
            if a.attr.value in self.carried[helper]
        ]
        if len(node.targets) > 1:
            self.assign_refused[id(node.value)] = "with its value assigned to several targets"
        elif read:
            self.assign_refused[id(node.value)] = (
                f"with its value assigned to a target naming `{self.receiver}.{read[0]}`, "
                "which the call rebinds"
            )
        elif helper not in self.valued:
            self.assign_refused[id(node.value)] = "with its value assigned, though it returns none"
        else:
            self.statement_calls.add(id(node.value))

    def visit_Call(self, node: cst.Call) -> None:
        if self.refused is not None or not self._carrying(node):
            return
        if id(node) in self.assign_refused:
            why = self.assign_refused[id(node)]
        elif id(node) not in self.statement_calls:
            why = "inside an expression (its reads of the attribute would see the old value)"
        elif self.nested:
            why = "from a function nested in it"
        elif self.tries:
            why = "inside a `try` (an exception caught there would lose the value)"
        else:
            return
        self.refused = (node, why)

    def _carrying(self, node) -> bool:
        return m.matches(
            node, m.Call(func=m.Attribute(value=m.Name(self.receiver), attr=m.Name()))
        ) and (node.func.attr.value in self.carried)


# decorators that only set torch's grad mode around the call, whatever it returns
_GRAD_MODES = frozenset({"torch.no_grad", "torch.inference_mode", "torch.enable_grad"})

# values that would bind looser than the tuple they become an element of
_LOOSE = (cst.Tuple, cst.Lambda, cst.IfExp, cst.NamedExpr, cst.Yield)


def _names(attrs: list[str]) -> cst.BaseExpression:
    return cst.Name(attrs[0]) if len(attrs) == 1 else _tuple([cst.Name(a) for a in attrs])


def _tuple(values: list[cst.BaseExpression]) -> cst.Tuple:
    return cst.Tuple([cst.Element(v) for v in values], lpar=[], rpar=[])


def _returns_value(node: cst.FunctionDef) -> bool:
    """Whether a `return` of the function itself (not of a nested one) gives a value."""
    finder = _OwnReturns()
    node.body.visit(finder)
    return any(r.value is not None for r in finder.found)


class _OwnReturns(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Return] = []

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        self.found.append(node)


class CarryBack(cst.CSTTransformer):
    """Base of the transformers inlining the class: a statement calling a carrying helper on
    `receiver` assigns back what it carries; in the body of `returning` (a carrying helper),
    each of its own `return`s gives the carried attributes too."""

    def __init__(self, receiver: str, carried: Carried, returning: str | None = None) -> None:
        super().__init__()
        self.receiver, self.carried, self.returning = receiver, carried, returning
        self.nested = 0

    def _helper(self, node) -> str | None:
        call = m.Call(func=m.Attribute(value=m.Name(self.receiver), attr=m.Name()))
        if m.matches(node, call) and node.func.attr.value in self.carried.attrs:
            return node.func.attr.value
        return None

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr):
        helper = self._helper(original.value)
        return self.carried.call(helper, original, updated) if helper else updated

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        helper = self._helper(original.value)
        return self.carried.call(helper, original, updated) if helper else updated

    def visit_FunctionDef(self, node) -> None:
        self.nested += 1

    def leave_FunctionDef(self, original, updated):
        self.nested -= 1
        return updated

    def leave_Return(self, original: cst.Return, updated: cst.Return):
        if self.returning not in self.carried.attrs or self.nested:
            return updated
        value = self.carried.returned(self.returning, updated.value)
        # a bare `return` is parsed with no space after the keyword: given a value, it needs one
        return updated.with_changes(value=value, whitespace_after_return=cst.SimpleWhitespace(" "))


def mirrored_loop_targets(run: cst.FunctionDef, attrs: set[str], rebound_elsewhere) -> dict:
    """Attributes the run method only ever sets to its own loop variable of the same name,
    first thing in that loop's body:

        for epoch in range(self.args.epochs):
            self.epoch = epoch

    Inlined, the attribute and the loop variable may be one name: they differ only between
    the loop's header and that first statement, where nothing runs. The loop variable must
    be bound by nothing else, the attribute set by nothing else after `__init__` (not by a
    helper: `rebound_elsewhere`). name -> its loops."""
    found = {}
    own_loops = [loop for loop in _own(run.body, cst.For) if isinstance(loop.target, cst.Name)]
    for name in {loop.target.value for loop in own_loops} & (attrs - rebound_elsewhere):
        loops = [loop for loop in own_loops if loop.target.value == name]
        copy = m.SimpleStatementLine(
            [m.Assign([m.AssignTarget(m.Attribute(m.Name("self"), m.Name(name)))], m.Name(name))]
        )
        if not all(loop.body.body and m.matches(loop.body.body[0], copy) for loop in loops):
            continue
        if _binds(run.body, name) == len(loops) and _sets_attr(run.body, name) == len(loops):
            found[name] = loops
    return found


def read_outside_loops(run: cst.FunctionDef, attr: str, loops, helpers: set[str]) -> bool:
    """Whether the run method reads `self.<attr>`, or calls a helper given it (`helpers`),
    outside the loops copying the loop variable into it (before or after them): there the
    attribute and the loop variable are not the same value (after the loop, code reading the
    epoch counter reads a value the Trainer owns)."""
    wanted = m.Attribute(m.Name("self"), m.Name(attr)) | m.Call(
        func=m.Attribute(m.Name("self"), m.Name(m.MatchIfTrue(lambda name: name in helpers)))
    )
    inside = {id(n) for loop in loops for n in m.findall(loop.body, wanted)}
    return any(id(n) not in inside for n in m.findall(run.body, wanted))


def _own(node: cst.CSTNode, kind, own_only: bool = True) -> list:
    """The nodes of `kind` in `node` (`own_only`: not those of a nested function or class)."""

    class Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list = []

        def on_visit(self, visited) -> bool:
            if isinstance(visited, kind):
                self.found.append(visited)
            nested = isinstance(visited, (cst.FunctionDef, cst.ClassDef, cst.Lambda))
            return not (own_only and nested)

    finder = Finder()
    node.visit(finder)
    return finder.found


_BINDERS = (
    cst.AssignTarget,
    cst.AugAssign,
    cst.AnnAssign,
    cst.For,
    cst.CompFor,
    cst.NamedExpr,
    cst.WithItem,
    cst.ExceptHandler,
    cst.ImportAlias,
    cst.FunctionDef,
    cst.ClassDef,
)


def _binds(node: cst.CSTNode, name: str) -> int:
    """How many statements or clauses may bind `name` in `node` (at any depth; counting
    more than Python would only refuses more)."""
    return _count_targets(node, m.Name(name))


def _binder_target(binder) -> cst.CSTNode | None:
    if isinstance(binder, (cst.FunctionDef, cst.ClassDef)):
        return binder.name
    if isinstance(binder, cst.WithItem):
        return binder.asname
    if isinstance(binder, cst.ExceptHandler):
        return binder.name
    if isinstance(binder, cst.ImportAlias):
        return binder.asname or binder.name
    return binder.target


def _sets_attr(node: cst.CSTNode, attr: str) -> int:
    """How many assignments in `node` set `self.<attr>` (any target form)."""
    return _count_targets(node, m.Attribute(m.Name("self"), m.Name(attr)))


def _count_targets(node: cst.CSTNode, wanted) -> int:
    count = 0
    for binder in _own(node, _BINDERS, own_only=False):
        target = _binder_target(binder)
        if target is None:
            continue
        attr_names = {id(a.attr) for a in m.findall(target, m.Attribute())}  # `x.epoch`
        if any(id(found) not in attr_names for found in m.findall(target, wanted)):
            count += 1
    return count
