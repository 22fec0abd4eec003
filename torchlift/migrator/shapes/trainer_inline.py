"""A hand-written trainer class, inlined where the script uses it (TL170).

    class Trainer:                                   def train_epoch(model, optimizer, loader):
        def __init__(self, model, loader):               for x, y in loader: ...
            self.model = model                 ->
            self.optimizer = SGD(...)                model = Net()
        def train_epoch(self):                       loader = ...
            for x, y in self.loader: ...             optimizer = SGD(...)
        def fit(self, epochs):                       for epoch in range(2):
            for epoch in range(epochs):                  train_epoch(model, optimizer, loader)
                self.train_epoch()

    trainer = Trainer(Net(), loader)
    trainer.fit(2)

The instance's attributes are the loop's bindings: `__init__`'s body runs where the instance is
created (its parameters bound to the call's arguments, in the order Python evaluates them),
the method the script calls (`fit()`) runs where it is called, `self.x` becomes the name `x`,
and the methods they call become module functions given the attributes they read (the helper
functions the loop shapes already inline); one rebinding an attribute returns it too, and its
calls assign it back (trainer_state.py). Later reads of `trainer.x` read `x`. The result is
a flat script the loop shapes convert; it is never written itself.

When the script's own statements run the method that trains (`for epoch in range(n): loss =
eng.train(loader)`: an Engine whose `train()` is one epoch; `if config.mode == "train":
solver.train()`), no method is inlined at a call: `__init__` runs where the instance is
created and every method the script calls becomes a function, called where it was (the loop
shapes then see a function holding the batch or the epoch loop, as in a plain script).

What it leaves alone (see trainer_class.py for the codes): a class with a base, decorators,
properties or class-level code (TL133); an instance not created once and run once in the same
block (TL171); `self` or the instance used other than through attributes and method calls
(TL172); a called method rebinding an attribute where the value cannot come back right after
the call, returning early or taking `*args` (TL173);
a name of the class meaning something else where it is inlined (TL174; an attribute or a
method is renamed first where it can be, trainer_clashes.py; an attribute stored
unchanged from the script's object of the same name is that name: trainer_shared.py). Methods the script
never calls are removed with the class (the report names them).
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

from ..analysis.names import collect_names, first_binding, rename, variable_uses
from ..result import Change, Finding, MigrationResult
from ..rule import Unsupported
from ..source.find_loops import cst_contains
from .trainer_class import (
    INLINED,
    INSTANCE_USE,
    METHOD_SHAPE,
    SELF_ESCAPES,
    TRAINER_CLASS,
    NameClash,
)
from .trainer_constants import unread_constant
from .trainer_placeholders import dead_placeholders
from .trainer_shared import shared_names
from .trainer_state import (
    Carried,
    CarryBack,
    carried_state,
    ends_in_return,
    mirrored_loop_targets,
    read_outside_loops,
    set_first,
)
from .trainer_static import (
    check_member,
    is_member_reference,
    kept_members,
    member_kind,
    residual_class,
)

_SELF_ATTR = m.Attribute(value=m.Name("self"))
# what stands for the run method when the script's own loop calls the methods (_Site.method
# None): no parameters, no names, no statements to inline
_NO_RUN = cst.FunctionDef(
    cst.Name("_"),
    cst.Parameters([cst.Param(cst.Name("self"))]),
    cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])]),
)
_SUPER_INIT = m.SimpleStatementLine(
    body=[m.Expr(m.Call(func=m.Attribute(value=m.Call(func=m.Name("super")), attr=m.Name())))]
)


@dataclass
class Inlined:
    """The flat script and where each of its lines came from."""

    text: str
    origin: list[int]  # origin[line - 1]: the original line a flat line came from
    indent: list[int]  # indent[line - 1]: how much deeper that original line is indented
    class_name: str
    instance: str
    run_method: str | None  # None: the script's own loop calls the methods (functions now)
    dropped: list[str] = field(default_factory=list)  # methods never called


@dataclass
class _Method:
    node: cst.FunctionDef
    calls: list[str]  # methods it calls on self
    reads: list[str]  # attributes it reads, in order of first use
    stores: set[str]  # attributes it (re)binds


def inline_trainer_class(module: cst.Module, cls: cst.ClassDef, loops) -> Inlined:
    """The flat script, or Unsupported naming why `cls` cannot be inlined faithfully."""
    name = cls.name.value
    methods = _methods(cls, module)
    init = methods.get("__init__")
    if init is None:
        raise Unsupported(TRAINER_CLASS, f"class `{name}` has no `__init__`", cls)
    holder = _holder(methods, loops, cls)
    reaching = {n for n in methods if holder in _reachable(methods, [n], cls)}
    kept = kept_members(cls)
    site = _call_site(module, cls, methods, reaching, kept)
    run = [site.method] if site.method is not None else []
    order = _reachable(methods, ["__init__", *run, *site.others], cls)
    used = {n: _read_method(n, methods[n], cls) for n in order}
    attrs = set().union(*(info.stores for info in used.values()))
    for method, info in used.items():
        missing = [a for a in info.reads if a not in attrs and a not in methods]
        if missing:
            raise Unsupported(
                SELF_ESCAPES,
                f"`{name}.{method}` reads `self.{missing[0]}`, which no method the script runs "
                "assigns (set from outside the class?)",
                info.node,
            )
    helpers = [n for n in order if n not in ("__init__", *run)]
    for method in ("__init__", *run):
        for other in order:
            if method in used[other].calls:
                raise Unsupported(
                    METHOD_SHAPE,
                    f"`{name}.{other}` calls `self.{method}()` again",
                    used[other].node,
                )
    for method in ("__init__", *run):
        if methods[method].decorators:
            raise Unsupported(
                METHOD_SHAPE,
                f"`{name}.{method}` is decorated: its body cannot run without the decorator",
                methods[method],
            )
    # a function's parameters in the order the class sets its attributes (`model` first)
    first_set = [
        a.attr.value
        for method in ("__init__", *run)
        for a in m.findall(methods[method].body, _SELF_ATTR)
    ]
    rank = {a: first_set.index(a) for a in first_set}
    mentioned = {
        h: sorted(_attrs_needed(h, used, methods), key=lambda a: rank.get(a, len(rank)))
        for h in helpers
    }
    # its parameters: what it mentions, less what it sets before any read (only given back)
    needs = {
        h: [a for a in found if a not in set_first(used[h].node)] for h, found in mentioned.items()
    }
    # a helper rebinding an attribute returns it, and its callers assign it back
    carried = carried_state(used, helpers, rank)
    carried.check(name, used, site.method, site.others, module)
    if site.instance:
        carried.check_script(name, site.instance, site.block)
    plan = _Plan(module, cls, site, used, attrs, helpers, needs, carried)
    plan.mentioned = mentioned
    plan.check_names()
    return plan.emit(sorted(set(methods) - set(order)))


# -- the class --------------------------------------------------------------------------------


def _methods(cls: cst.ClassDef, module: cst.Module) -> dict[str, cst.FunctionDef]:
    name = cls.name.value
    if (
        cls.decorators
        or cls.keywords
        or any(
            not m.matches(base, m.Arg(value=m.Name("object"), keyword=None)) for base in cls.bases
        )
    ):
        raise Unsupported(
            TRAINER_CLASS,
            f"class `{name}` has a base class, keywords or decorators: its methods may come "
            "from or be changed by code the migrator does not see",
            cls,
        )
    found: dict[str, cst.FunctionDef] = {}
    body = list(cls.body.body)
    if body and m.matches(body[0], m.SimpleStatementLine([m.Expr(m.SimpleString())])):
        body = body[1:]  # the docstring
    for stmt in body:
        if unread_constant(module, stmt):  # `state_dict_key = "amp_scaler"`: goes with it
            continue
        if not isinstance(stmt, cst.FunctionDef) or stmt.asynchronous:
            raise Unsupported(
                TRAINER_CLASS,
                f"class `{name}` holds code other than methods (class attributes read or "
                "not constant, nested classes): not inlined",
                stmt,
            )
        if member_kind(stmt) is not None:  # kept in a class of its own: trainer_static.py
            check_member(cls, stmt)
            continue
        decorators = {_decorator_name(d) for d in stmt.decorators}
        if "property" in decorators:
            raise Unsupported(
                TRAINER_CLASS,
                f"`{name}.{stmt.name.value}` is a property (an attribute computed from `self` "
                "where it is read): not inlined",
                stmt,
            )
        if decorators & {"staticmethod", "classmethod"}:
            raise Unsupported(
                TRAINER_CLASS,
                f"`{name}.{stmt.name.value}` is a static or class method with other decorators: "
                "what they change is not seen",
                stmt,
            )
        params = stmt.params
        first = params.params[0].name.value if params.params else None
        if first != "self" or params.posonly_params:
            raise Unsupported(
                TRAINER_CLASS,
                f"`{name}.{stmt.name.value}` is not a plain method taking `self` first",
                stmt,
            )
        found[stmt.name.value] = stmt
    return found


def _decorator_name(decorator: cst.Decorator) -> str:
    node = decorator.decorator
    node = node.func if isinstance(node, cst.Call) else node
    return node.attr.value if isinstance(node, cst.Attribute) else getattr(node, "value", "")


def _holder(methods: dict[str, cst.FunctionDef], loops, cls: cst.ClassDef) -> str:
    for method_name, method in methods.items():
        inner = {id(n) for n in m.findall(method, m.For() | m.While())}
        if any(id(loop) in inner for loop in loops):
            return method_name
    for stmt in cls.body.body:  # a static method kept in the class (trainer_static.py)
        inner = {id(n) for n in m.findall(stmt, m.For() | m.While())}
        if isinstance(stmt, cst.FunctionDef) and any(id(loop) in inner for loop in loops):
            raise Unsupported(
                TRAINER_CLASS,
                f"the training loop is in `{cls.name.value}.{stmt.name.value}`, a "
                f"{member_kind(stmt)}: a function of its own, not a trainer's method",
                stmt,
            )
    raise AssertionError("a trainer class is only inlined for a loop it holds")


def _reachable(methods, roots: list[str], cls: cst.ClassDef) -> list[str]:
    """The methods run from `roots` through `self.m(...)`, roots first, then in class order."""
    seen: list[str] = []
    stack = list(reversed(roots))
    while stack:
        method = stack.pop()
        if method in seen:
            continue
        seen.append(method)
        for call in m.findall(
            methods[method],
            m.Call(func=m.Attribute(value=m.Name("self"), attr=m.Name())),
        ):
            called = call.func.attr.value
            if called in methods and called not in seen:
                stack.append(called)
    order = list(methods)
    return roots + sorted((s for s in seen if s not in roots), key=order.index)


def _read_method(name: str, node: cst.FunctionDef, cls: cst.ClassDef) -> _Method:
    owner = f"{cls.name.value}.{name}"
    params = node.params
    if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) and not isinstance(
        params.star_arg, cst.ParamStar
    ):
        raise Unsupported(METHOD_SHAPE, f"`{owner}` takes `*{params.star_arg.name.value}`", node)
    if params.star_kwarg is not None:
        raise Unsupported(METHOD_SHAPE, f"`{owner}` takes `**{params.star_kwarg.name.value}`", node)
    for param in [*params.params[1:], *params.kwonly_params]:
        if param.default is not None and not _literal(param.default):
            raise Unsupported(
                METHOD_SHAPE,
                f"`{owner}`'s default for `{param.name.value}` is not a literal (Python "
                "evaluated it once, when the class was defined)",
                node,
            )
    if m.findall(node.body, m.Global() | m.Nonlocal() | m.Yield()):
        raise Unsupported(METHOD_SHAPE, f"`{owner}` uses `global`, `nonlocal` or `yield`", node)
    uses = m.findall(node.body, m.Name("self"))
    attribute_values = {
        id(a.value): a for a in m.findall(node.body, m.Attribute(value=m.Name("self")))
    }
    escaped = [u for u in uses if id(u) not in attribute_values]
    if escaped:
        raise Unsupported(
            SELF_ESCAPES,
            f"`{owner}` uses `self` itself (passes, returns or stores it), not only its attributes",
            node,
        )
    method_names = {s.name.value for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    method_calls = [
        c
        for c in m.findall(node.body, m.Call(func=_SELF_ATTR))
        if c.func.attr.value in method_names
    ]
    calls = [c.func.attr.value for c in method_calls]
    callees = {id(c.func) for c in method_calls}
    reads: list[str] = []
    stores = _stored_attrs(node, owner)
    for attribute in m.findall(node.body, _SELF_ATTR):
        attr = attribute.attr.value
        if attr in method_names and id(attribute) not in callees:
            raise Unsupported(
                SELF_ESCAPES,
                f"`{owner}` uses the method `self.{attr}` without calling it",
                node,
            )
        if attr not in method_names and attr not in reads:
            reads.append(attr)
    for nested in m.findall(node.body, m.FunctionDef() | m.ClassDef()):
        if _stored_attrs(nested, owner):
            raise Unsupported(
                SELF_ESCAPES,
                f"a function defined in `{owner}` sets attributes of `self`",
                nested,
            )
    # `super().__init__()` of a class without a base does nothing; any other `super()` has
    # no meaning outside the class
    supers = [s for s in node.body.body if m.matches(s, _SUPER_INIT)] if name == "__init__" else []
    if len(m.findall(node.body, m.Call(func=m.Name("super")))) != len(supers):
        raise Unsupported(TRAINER_CLASS, f"`{owner}` uses `super()`", node)
    return _Method(node, calls, reads, stores)


def _stored_attrs(node: cst.CSTNode, owner: str) -> set[str]:
    if m.findall(node, m.Del(target=m.Attribute(value=m.Name("self")))):
        raise Unsupported(SELF_ESCAPES, f"`{owner}` deletes an attribute of `self`", node)
    return rebound_attrs(node)


def rebound_attrs(node: cst.CSTNode) -> set[str]:
    """The attributes `node` rebinds: `self.x = ...`, `self.x += ...`, `for self.x in ...`,
    also as an element of a tuple target. `self.x[k] = v` and `self.x.y = v` change the object
    `self.x` names, and `s[self.x[k]] = v` reads it: `self.x` still names the same object."""
    targets = [t.target for t in m.findall(node, m.AssignTarget())]
    targets += [t.target for t in m.findall(node, m.AugAssign() | m.AnnAssign())]
    targets += [f.target for f in m.findall(node, m.For() | m.CompFor())]
    targets += [w.asname.name for w in m.findall(node, m.WithItem()) if w.asname is not None]
    found: set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, (cst.Tuple, cst.List)):
            targets += [e.value for e in target.elements]
        elif isinstance(target, cst.StarredElement):
            targets.append(target.value)
        elif m.matches(target, _SELF_ATTR):
            found.add(target.attr.value)
    return found


def _attrs_needed(helper: str, used: dict[str, _Method], methods) -> list[str]:
    """The attributes `helper` reads, with those of the helpers it calls (its parameters)."""
    found: list[str] = []
    stack, seen = [helper], set()
    while stack:
        current = stack.pop(0)
        if current in seen:
            continue
        seen.add(current)
        found += [a for a in used[current].reads if a not in found]
        stack += [c for c in used[current].calls if c in methods]
    return found


def _literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary)):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("None", "True", "False")
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Minus) and _literal(node.expression)
    if isinstance(node, cst.Tuple):
        return all(_literal(e.value) for e in node.elements)
    return False


# -- where the script uses it -----------------------------------------------------------------


@dataclass
class _Site:
    block: list  # the statements of the block holding the instance
    owner: cst.CSTNode  # the module, or the function / `if` holding the block
    created: cst.SimpleStatementLine
    call: cst.Call
    instance: str
    run: cst.SimpleStatementLine | None  # None: the script's own loop calls the methods
    method: str | None  # the method inlined at `run`; None: each method a function
    target: str | None  # `x = trainer.fit()`
    others: list[str]  # methods the script calls besides (`trainer.test()`): functions
    loops: tuple = ()  # the `for` loops between the owner's block and `block`, outermost first


def _call_site(
    module: cst.Module, cls: cst.ClassDef, methods, reaching: set[str], kept: set[str]
) -> _Site:
    name = cls.name.value
    # `Trainer.get_default_config()`: a kept member (trainer_static.py), not a use
    members = {
        id(a.value)
        for a in m.findall(module, m.Attribute(value=m.Name(name)))
        if is_member_reference(a, name, kept)
    }
    refs = [
        n for n in m.findall(module, m.Name(name)) if n is not cls.name and id(n) not in members
    ]
    creations = []
    for block, owner, loops in run_blocks(module):
        for stmt in block:
            if m.matches(
                stmt,
                m.SimpleStatementLine(
                    [m.Assign([m.AssignTarget(m.Name())], m.Call(func=m.Name(name)))]
                ),
            ):
                creations.append((block, owner, stmt, loops))
    if not refs:
        raise Unsupported(
            INSTANCE_USE,
            f"class `{name}` is never used in this file (a script importing it runs it): "
            "there is no call site to inline it at; migrate the script that creates it after "
            "moving the class there",
            cls,
        )
    chained = _chained_run(module, name, reaching) if len(refs) == 1 and not creations else None
    if chained is not None:  # `Trainer(...).fit()`: created and run by one statement
        block, owner, stmt, target, loops = chained
        run_call = stmt.body[0].value
        if any(a.star for a in [*run_call.args, *run_call.func.value.args]):
            raise Unsupported(INSTANCE_USE, f"`{name}(...)` is called with `*` arguments", stmt)
        method = run_call.func.attr.value
        site = _Site(block, owner, stmt, run_call.func.value, "", stmt, method, target, [], loops)
        _check_used_in_loop(module, site)
        return site
    if len(refs) != 1 or len(creations) != 1:
        # the line to look at: a second creation, else a use that is not one
        other = next(
            (r for r in refs if not any(cst_contains(c[2], r) for c in creations)), None
        )
        if len(creations) > 1 and other is None:
            raise Unsupported(
                INSTANCE_USE,
                f"class `{name}` is created {len(creations)} times (here the second): each "
                "instance would need the class inlined at its own place, which is not done "
                "(only one instance per class is inlined)",
                creations[1][2],
            )
        raise Unsupported(
            INSTANCE_USE,
            f"class `{name}` is not used exactly once, as `name = {name}(...)` in a block of "
            "the script (module level, a function, `if __name__`, a `for` loop in them)",
            creations[1][2] if len(creations) > 1 else other if other is not None else cls,
        )
    block, owner, created, loops = creations[0]
    assign = created.body[0]
    instance = assign.targets[0].target.value
    call = assign.value
    if any(a.star for a in call.args):
        raise Unsupported(INSTANCE_USE, f"`{name}(...)` is called with `*` arguments", created)
    runs = []
    for stmt in block[block.index(created) + 1 :]:
        called = m.Name(m.MatchIfTrue(lambda value: value in reaching))
        pattern = m.Call(func=m.Attribute(value=m.Name(instance), attr=called))
        if m.matches(stmt, m.SimpleStatementLine([m.Expr(pattern)])):
            runs.append((stmt, stmt.body[0].value, None))
        elif m.matches(
            stmt, m.SimpleStatementLine([m.Assign([m.AssignTarget(m.Name())], pattern)])
        ):
            runs.append((stmt, stmt.body[0].value, stmt.body[0].targets[0].target.value))
    calls = [
        call
        for call in m.findall(owner, m.Call(func=m.Attribute(value=m.Name(instance))))
        if call.func.attr.value in methods
    ]
    training = [c for c in calls if c.func.attr.value in reaching]
    if len(training) > 1:
        raise Unsupported(
            INSTANCE_USE,
            f"`{instance}` is trained by {len(training)} calls (here the second, "
            f"`{instance}.{training[1].func.attr.value}(...)`): a later call goes on training "
            "with the same optimizer and its state (moments, learning rates set between the "
            "calls), where each Lightning `fit` builds its optimizer anew in "
            "`configure_optimizers`",
            training[1],
        )
    in_statement = _called_in_statement(block, created, training) if not runs else None
    if in_statement is not None:  # `for epoch in ...: eng.train(loader)`: each a function
        others = []
        for use in calls:
            if any(a.star for a in use.args):
                raise Unsupported(
                    INSTANCE_USE, f"`{instance}.{use.func.attr.value}(...)` is not a plain call", use
                )
            if use.func.attr.value not in others:
                others.append(use.func.attr.value)
        site = _Site(block, owner, created, call, instance, None, None, None, others, loops)
        _check_used_in_loop(module, site)
        _check_instance_uses(module, site, cls, methods)
        return site
    if len(runs) != 1 or len(training) != 1:
        passed = _passed_on(block[block.index(created) + 1 :], instance) if not training else None
        raise Unsupported(
            INSTANCE_USE,
            f"`{instance}` is not run by exactly one call of the method that trains, after "
            f"`{instance} = {name}(...)` in the same block (as a statement, or in a loop or "
            "an `if` there)"
            + (f"; here `{instance}` itself is passed on: which method runs is not seen"
               if passed is not None else ""),
            passed if passed is not None else created,
        )
    run, run_call, target = runs[0]
    method = run_call.func.attr.value
    others = []
    for use in calls:
        if use.func.attr.value == "__init__" or any(a.star for a in use.args):
            raise Unsupported(
                INSTANCE_USE,
                f"`{instance}.{use.func.attr.value}(...)` is not a plain call",
                run,
            )
        if use is not run_call and use.func.attr.value not in others:
            others.append(use.func.attr.value)
    site = _Site(block, owner, created, call, instance, run, method, target, others, loops)
    _check_used_in_loop(module, site)
    _check_instance_uses(module, site, cls, methods)
    return site


def _called_in_statement(block: list, created, training: list[cst.Call]) -> cst.Call | None:
    """The one call of the method that trains when it lies in a loop or an `if` of the block
    after the creation (`for epoch in range(n): loss = eng.train(loader)`, `if config.mode ==
    "train": solver.train()`), outside any function, lambda or class defined there: the
    method is run by the script's own statement. Inlined as a function called there (given the
    attributes it reads), it runs when, and as often, as the method did, with the same objects
    (the optimizer and its state); the `if` stays, decided or not. The loop shapes then treat
    it like any function holding the batch loop called per epoch, or the epoch loop."""
    if len(training) != 1:
        return None
    (call,) = training
    for stmt in block[block.index(created) + 1 :]:
        if not isinstance(stmt, (cst.For, cst.While, cst.If)) or not cst_contains(stmt, call):
            continue
        scopes = m.findall(stmt, m.FunctionDef() | m.Lambda() | m.ClassDef())
        if any(cst_contains(scope, call) for scope in scopes):
            return None
        return call
    return None


def _passed_on(stmts: list, instance: str):
    """The first statement using the instance itself, not `instance.x` (`getattr(solver,
    config.mode)()`, `run(solver)`), or None."""
    for stmt in stmts:
        values = {id(a.value) for a in m.findall(stmt, m.Attribute(value=m.Name(instance)))}
        if any(id(use) not in values for use in variable_uses(stmt, instance)):
            return stmt
    return None


def _chained_run(module: cst.Module, name: str, reaching: set[str]):
    """(block, owner, statement, target, loops) of `[x =] Trainer(...).fit(...)`, or None."""
    called = m.Name(m.MatchIfTrue(lambda value: value in reaching))
    pattern = m.Call(func=m.Attribute(value=m.Call(func=m.Name(name)), attr=called))
    for block, owner, loops in run_blocks(module):
        for stmt in block:
            if m.matches(stmt, m.SimpleStatementLine([m.Expr(pattern)])):
                return block, owner, stmt, None, loops
            if m.matches(
                stmt,
                m.SimpleStatementLine([m.Assign([m.AssignTarget(m.Name())], pattern)]),
            ):
                return block, owner, stmt, stmt.body[0].targets[0].target.value, loops
    return None


def instance_blocks(module: cst.Module):
    """(statements, owner) of the blocks an instance may be created in."""
    yield list(module.body), module
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) or (
            isinstance(stmt, cst.If) and m.matches(stmt.test, m.Comparison(left=m.Name("__name__")))
        ):
            if isinstance(stmt.body, cst.IndentedBlock):
                yield list(stmt.body.body), stmt


def run_blocks(module: cst.Module):
    """(statements, owner, loops) of the blocks an instance may be created in: those of
    `instance_blocks`, and the bodies of the `for` loops in them (a run per iteration: `for ii
    in range(args.itr): exp = Exp(args); exp.train(setting)`), `loops` the `for` statements
    from the owner's block down to that body, outermost first."""
    for block, owner in instance_blocks(module):
        pending = [(block, ())]
        while pending:
            current, loops = pending.pop(0)
            yield current, owner, loops
            for stmt in current:
                if (
                    isinstance(stmt, cst.For)
                    and stmt.asynchronous is None
                    and isinstance(stmt.body, cst.IndentedBlock)
                ):
                    pending.append((list(stmt.body.body), (*loops, stmt)))


def _check_used_in_loop(module: cst.Module, site: _Site) -> None:
    """An instance created in a loop is one per iteration: its attributes, names once
    inlined, would be those of the last iteration's instance after the loop, which the
    script's reads there (`exp.model` after `for ii in ...:`) are not rewritten to. Every
    use of it must be in the loop's body, the block holding it."""
    if not site.loops or not site.instance:
        return
    inside = {id(n) for stmt in site.block for n in variable_uses(stmt, site.instance)}
    for use in variable_uses(module, site.instance):
        if id(use) not in inside:
            raise Unsupported(
                INSTANCE_USE,
                f"`{site.instance}`, created in a loop (one per iteration), is used outside "
                "that loop's body: inlined, which iteration's attributes it reads is not kept",
                site.created,
            )


def _check_instance_uses(module, site: _Site, cls, methods) -> None:
    """The instance is only run once and its attributes read: no other use in its scope, and
    no function of that scope reading it as a free name."""
    instance = site.instance
    allowed = {id(site.created.body[0].targets[0].target)}
    if site.run is not None:
        allowed.add(id(site.run.body[0].value.func.value))
    allowed |= {
        id(call.func.value)
        for call in m.findall(site.owner, m.Call(func=m.Attribute(value=m.Name(instance))))
        if call.func.attr.value in site.others
    }
    stores = {
        id(t.value)
        for target in m.findall(site.owner, m.AssignTarget() | m.AugAssign() | m.Del())
        for t in [getattr(target, "target", None)]
        if m.matches(t, m.Attribute(value=m.Name(instance)))
    }
    reads = {
        id(a.value)
        for a in m.findall(site.owner, m.Attribute(value=m.Name(instance)))
        if a.attr.value not in methods and id(a.value) not in stores
    }
    run = f"`{instance}.{site.method}()`" if site.method else "calls of its methods"
    escapes = (
        SELF_ESCAPES,
        (
            f"`{instance}` is used other than by {run} and reads of its "
            "attributes (passed on, another method called or an attribute set from outside)"
        ),
    )
    index = site.block.index(site.created)
    for position, stmt in enumerate(site.block):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            if instance in collect_names(stmt).reads:  # reads the instance as a free name
                raise Unsupported(*escapes, stmt)
            continue
        for use in variable_uses(stmt, instance):  # not `config.trainer`
            if position < index:
                raise Unsupported(
                    SELF_ESCAPES,
                    f"`{instance}` is used before `{instance} = ...`",
                    stmt,
                )
            if id(use) not in allowed and id(use) not in reads:
                raise Unsupported(*escapes, stmt)


# -- the flat script --------------------------------------------------------------------------


class _Plan:
    def __init__(self, module, cls, site: _Site, used, attrs, helpers, needs, carried) -> None:
        self.module, self.cls, self.site = module, cls, site
        self.used, self.attrs, self.helpers, self.needs = used, attrs, helpers, needs
        self.mentioned = needs  # every attribute a helper spells (its parameters: `needs`)
        self.carried: Carried = carried
        # attributes a method other than `__init__` rebinds: never the script's own name
        self.rebound = set().union(*(i.stores for n, i in used.items() if n != "__init__"))
        self.init = used["__init__"].node
        self.init_args = _bind(self.init, site.call, cls, site.created)
        if site.method is None:  # no method inlined at a call: an empty one stands for it
            self.run, self.run_args = _NO_RUN, []
        else:
            self.run = used[site.method].node
            self.run_args = _bind(self.run, site.run.body[0].value, cls, site.run)
        # id of a statement of the flat script -> (it, the statement it came from); both kept
        # alive so that no id is reused by another node
        self.origin: dict[int, tuple[cst.CSTNode, cst.CSTNode]] = {}
        self.alias: dict[str, cst.Name] = {}  # parameter -> the call-site name it receives
        self.flat: dict[str, str] = {}  # attribute -> its own name (trainer_state.py)
        self.mirrored: set[str] = set()  # attributes sharing the loop variable's name
        self.held: set[str] = set()  # run locals bound to their attribute (_attribute_locals)
        # static and class methods, kept in the class (trainer_static.py): `self.k` -> `Cls.k`
        self.members = (cls.name.value, kept_members(cls))

    # names ----------------------------------------------------------------------------
    def check_names(self) -> None:
        """Once inlined, `self.x`, the parameters and the locals of `__init__` and of the run
        method share one namespace with the code around the call: refuse (TL174) any name
        that would then mean two things."""
        site = self.site
        init_use, run_use = collect_names(self.init.body), collect_names(self.run.body)
        init_params = {p for p, _ in self.init_args}
        run_params = {p for p, _ in self.run_args}
        attrs = self.attrs
        init_locals, run_locals = init_use.writes, run_use.writes
        init_globals = init_use.reads - init_params - init_locals - {"self"}
        run_globals = run_use.reads - run_params - run_locals - {"self"}
        self.alias = self._aliases(attrs)
        # `self.D = discriminator` given the caller's `D`: one object, spelled alike
        same = shared_names(self.module, self.cls, self.init_args, self.used, site)
        self.alias.update({param: cst.Name(attr) for attr, param in same.params.items()})
        introduced = (attrs | init_params | init_locals | run_params | run_locals) - set(self.alias)
        self._clash(
            attrs & init_locals, "`self.{name}` and a local `{name}` of `__init__`", self.init.body
        )
        # `for epoch in ...: self.epoch = epoch`: one name for both (trainer_state.py), or
        # the attribute renamed where it is read apart from the loop variable
        self.flat = self._renamed_attrs(run_params)
        introduced |= set(self.flat.values())
        # `model, config = self.model, self.config`: a local naming what the attribute holds
        held = self.held = _attribute_locals(self.run, attrs - run_params, self.rebound)
        run = f"`{site.method}()`"
        self._clash(
            attrs & (run_params | run_locals - self.mirrored - set(self.flat) - held),
            f"`self.{{name}}` and a local `{{name}}` of {run}",
            self.run.body,
        )
        self._clash(
            run_params & (init_params | init_locals),
            f"a parameter of {run} and a parameter or local of `__init__`",
        )
        self._clash(
            init_globals & introduced,
            "a global read by `__init__` and an attribute, parameter or local of the class",
        )
        skip = {id(site.created), id(site.run), id(self.cls), id(site.owner)}
        others = [s for s in site.block if id(s) not in skip]
        others += _around_loops(site, skip)
        module_level = not isinstance(site.owner, cst.FunctionDef)
        if module_level and site.owner is not self.module:  # `if __name__`: module scope
            others += [s for s in self.module.body if id(s) not in skip]
        use = collect_names(*others) if others else None
        bound_here = (use.writes if use else set()) | {p.name.value for p in _params(site.owner)}
        taken = (use.all() if use else set()) | bound_here
        shared = self._shared(init_params) | set(same.params)
        self._clash(
            run_globals & (introduced - (shared if module_level else set())),
            f"a global read by {run} and an attribute, parameter or local of the class",
        )
        clashes = introduced & taken - shared
        if site.target is not None and self._returns_attr(site.target):
            clashes.discard(site.target)
        for name in sorted(clashes & set(same.refused)):
            why, at = same.refused[name]
            raise self._name_clash(
                f"inlining class `{self.cls.name.value}` would give `{name}` two meanings "
                f"({why}): rename one of them",
                at,
                name,
            )
        self._clash(clashes, "a name the script uses where the class is inlined")
        if self.members[1]:
            kept_name = introduced & {self.members[0]}
            self._clash(kept_name, "the class's name, kept for its static methods")
        if not module_level:
            self._clash((init_globals | run_globals) & bound_here, "a name the function binds")
        module_names = collect_names(*[s for s in self.module.body if s is not self.cls]).all()
        for helper in self.helpers:
            node = self.used[helper].node
            own = collect_names(node.body)
            params = {p.name.value for p in [*node.params.params[1:], *node.params.kwonly_params]}
            inner = (own.writes | params | (own.reads - {"self"})) & set(self.mentioned[helper])
            self._clash(inner, f"a name in `{helper}` besides its attribute", node.body)
            if module_level:
                frees = own.reads - own.writes - params - {"self"}
                self._clash(
                    frees & introduced,
                    f"a global read by `{helper}()` and an attribute, parameter or local of"
                    " the class",
                )
            if helper in module_names | taken | introduced | init_globals | run_globals:
                self._clash(
                    {helper},
                    f"the method `{helper}()`, a function once inlined, and a name of the "
                    "script or of the class",
                    self.run.body,  # a local of the run method, when it is one
                )
        self._check_param_attrs(init_params)
        self._check_init_order()

    def _renamed_attrs(self, run_params: set[str]) -> dict[str, str]:
        """Attributes set from the run method's loop variable of the same name that code
        reads apart from that loop (`self.save()` after it, `trainer.epoch` in the script):
        a name of their own there, `trainer_epoch`, which the loop shapes carry back like any
        value the loop leaves behind. The others share the loop variable's name (mirrored)."""
        by_helpers = set().union(*(self.used[h].stores for h in self.helpers))
        found = mirrored_loop_targets(self.run, self.attrs - run_params, by_helpers)
        site, flat = self.site, {}
        prefix = site.instance or self.cls.name.value.lower()
        taken = collect_names(self.module).all() | self.attrs | set(self.used)
        for attr, loops in found.items():
            helpers = {h for h in self.helpers if attr in self.needs[h]}
            script = m.Attribute(m.Name(site.instance), m.Name(attr)) if site.instance else None
            outside = read_outside_loops(self.run, attr, loops, helpers)
            outside |= any(attr in self.needs.get(o, []) for o in site.others)
            outside |= script is not None and bool(m.findall(site.owner, script))
            fresh = f"{prefix}_{attr}"
            if outside and fresh not in taken:
                flat[attr] = fresh
        self.mirrored = set(found) - set(flat)
        return flat

    def _clash(self, names: set[str], why: str, binder: cst.CSTNode | None = None) -> None:
        """Refuse the first of `names`; `why` says which two things it would name (`{name}`
        stands for it); `binder`, when given, is searched for the statement binding it, the
        line named (else the creation of the instance)."""
        if names:
            clash = sorted(names)[0]
            at = first_binding(binder, clash) if binder is not None else None
            raise self._name_clash(
                f"inlining class `{self.cls.name.value}` would give `{clash}` two meanings "
                f"({why.format(name=clash)}): rename one of them",
                at or self.site.created,
                clash,
            )

    def _name_clash(self, reason: str, at, name: str) -> NameClash:
        """TL174 for `name`, telling trainer_clashes.py where the script binds the instance."""
        site = self.site
        binding = site.created.body[0].targets[0].target if site.instance else None
        return NameClash(reason, at, name, site.instance, binding)

    def _check_param_attrs(self, init_params: set[str]) -> None:
        """`self.p = f(p)` then a read of the parameter `p`: inlined, it would read f(p)."""
        for param in init_params & self.attrs:
            changed = False
            for stmt in self.init.body.body:
                if changed and param in collect_names(stmt).reads:
                    self._clash({param}, "the parameter, read after `self.p = ...` changed it")
                for assign in m.findall(stmt, m.Assign() | m.AugAssign() | m.AnnAssign()):
                    targets = getattr(assign, "targets", None) or [assign]
                    for target in targets:
                        if m.matches(target.target, m.Attribute(m.Name("self"), m.Name(param))):
                            changed |= not _same_object(assign, param)

    def _shared(self, init_params: set[str]) -> set[str]:
        """Parameters given a call-site name spelled the same (`Trainer(model, ...)`) that
        the class keeps as they are (`self.model = model`, or a module's `.to(device)`, in
        place): the class and the script then name the same object."""
        shared = set()
        after = self.site.block[self.site.block.index(self.site.created) + 1 :]
        rebound = collect_names(*after).writes if after else set()
        init_writes = collect_names(self.init.body).writes | rebound
        run_writes = collect_names(self.run.body).writes - self.held
        run_stores = self.rebound
        for param, value in self.run_args:
            if (
                isinstance(value, cst.Name)
                and value.value == param
                and param not in run_writes | rebound
            ):
                shared.add(param)
        for param, value in self.init_args:
            if not (isinstance(value, cst.Name) and value.value == param):
                continue
            if param in init_writes or param in run_stores or param in run_writes:
                continue
            kept = True
            for assign in m.findall(self.init.body, m.Assign() | m.AugAssign() | m.AnnAssign()):
                for target in getattr(assign, "targets", None) or [assign]:
                    if m.matches(target.target, m.Attribute(m.Name("self"), m.Name(param))):
                        kept &= _same_object(assign, param)
            if kept or self._rebound_unread(param, after):
                shared.add(param)
        return shared

    def _rebound_unread(self, param: str, after: list) -> bool:
        """`Trainer(model, ...)` whose `__init__` rebinds `self.model = DDP(model)`: inlined,
        the function's own `model` then names the wrapper. That changes nothing when the
        function never reads `model` again after creating the instance (the tutorial series'
        `main`): the class's meaning is the only one left. Only for a function's local, with
        no nested function or lambda of the function reading it (they could run later)."""
        owner, site = self.site.owner, self.site
        if not isinstance(owner, cst.FunctionDef):
            return False
        before = site.block[: site.block.index(site.created)]
        local = {p.name.value for p in _params(owner)} | (
            collect_names(*before).writes if before else set()
        )
        if param not in local:  # a global: rebound in the function, earlier reads would fail
            return False
        if param in collect_names(*after).reads if after else False:
            return False
        nested = m.findall(owner.body, m.FunctionDef() | m.Lambda() | m.ClassDef())
        return not any(m.findall(n, m.Name(param)) for n in nested if not n.deep_equals(self.cls))

    def _aliases(self, attrs: set[str]) -> dict[str, cst.Name]:
        """Parameters given another call-site name (`Trainer(net)` for `model`) that the
        class never rebinds, kept only as `self.model = model`: inlined, they are that name
        (`net`), with no `model = net` copy. The name must keep its value from the creation to
        the end of the block, and mean nothing else in the class."""
        site = self.site
        after = site.block[site.block.index(site.created) + 1 :]
        rebound = collect_names(*after).writes if after else set()
        init_use, run_use = collect_names(self.init.body), collect_names(self.run.body)
        inner = init_use.all() | run_use.all() | attrs
        inner |= {p for p, _ in self.init_args + self.run_args}
        run_stores = self.rebound
        found: dict[str, cst.Name] = {}
        for args, writes in (
            (self.init_args, init_use.writes),
            (self.run_args, run_use.writes),
        ):
            for param, value in args:
                if not isinstance(value, cst.Name) or value.value == param:
                    continue
                name = value.value
                if name in inner or name in rebound or param in writes or param in run_stores:
                    continue
                # two parameters given one name (`Trainer(model, loader, loader)`) are one
                # object: both become that name
                if name in ("self", "None", "True", "False"):
                    continue
                stores = [
                    assign
                    for assign in m.findall(
                        self.init.body, m.Assign() | m.AugAssign() | m.AnnAssign()
                    )
                    for target in getattr(assign, "targets", None) or [assign]
                    if m.matches(target.target, m.Attribute(m.Name("self"), m.Name(param)))
                ]
                if all(m.matches(a, m.Assign(value=m.Name(param))) for a in stores):
                    found[param] = cst.Name(name)
        return found

    def _returns_attr(self, name: str) -> bool:
        last = self.run.body.body[-1]
        return m.matches(
            last,
            m.SimpleStatementLine([m.Return(m.Attribute(m.Name("self"), m.Name(name)))]),
        )

    def _check_init_order(self) -> None:
        """Bindings run one after the other: an argument must not read a name that an
        earlier binding has just rebound."""
        bound: set[str] = set()
        for param, value in self.init_args + self.run_args:
            if isinstance(value, cst.Name) and value.value == param:
                continue
            reads = collect_names(value).reads
            if reads & bound:
                self._clash(reads & bound, "an argument reading a parameter bound before it")
            bound.add(param)

    # code -----------------------------------------------------------------------------
    def emit(self, dropped: list[str]) -> Inlined:
        site = self.site
        rewrite = _SelfToNames(self.needs, self.carried, flat=self.flat, members=self.members)
        renamed = {a: cst.Name(name) for a, name in self.flat.items()}
        renamed.update({k: _member(self.members[0], k) for k in self.members[1]})
        reads = _InstanceReads(site.instance, {**renamed, **self.alias}, self.needs, self.carried)
        created = self._bindings(self.init_args, site.created)
        dead = {id(s) for s in self._placeholders()}
        created += [
            self._keep(s, rewrite)
            for s in self.init.body.body
            if not _skip_init(s) and id(s) not in dead
        ]
        created = [s for s in created if not _rebinds_itself(s)]
        ran = []
        if site.run is not None:
            ran = self._bindings(self.run_args, site.run)
            ran += [s for s in self._run_body(rewrite) if not _rebinds_itself(s)]
        if site.created is site.run:  # `Trainer(...).fit()`
            created, ran = created + ran, []
        self._lead(created, site.created)
        self._lead(ran, site.run)
        functions = [self._function(h) for h in self.helpers]
        residual = residual_class(self.cls)
        if residual is not None:  # the static and class methods stay where the class was
            self.origin[id(residual)] = (residual, self.cls)
            functions = [residual, *functions]
        self._lead(functions, self.cls)  # the class's blank lines above its first
        block = []
        for stmt in site.block:
            if stmt is site.created:
                block += created
            elif stmt is site.run:
                block += ran
            elif stmt is self.cls:
                block += functions
            else:
                block.append(self._keep(stmt, reads, alias=False))
        block = self._in_loops(block, functions)
        if site.owner is self.module:
            body = block
        else:
            body = []
            for stmt in self.module.body:
                if stmt is self.cls:
                    body += functions
                elif stmt is site.owner:
                    new = stmt.with_changes(body=stmt.body.with_changes(body=block))
                    self.origin[id(new)] = (new, stmt)
                    body.append(new)
                else:
                    body.append(self._keep(stmt, None))
        flat = self.module.with_changes(body=body)
        return Inlined(
            flat.code,
            *self._origin(flat),
            self.cls.name.value,
            site.instance,
            site.method,
            dropped,
        )

    def _placeholders(self) -> list:
        """`self.optimizer = None` statements of `__init__` nothing reads before the run
        method binds the attribute again (trainer_placeholders.py)."""
        site = self.site
        if site.run is None:  # every method a function: no run method rebinds them
            return []
        between = site.block[site.block.index(site.created) + 1 : site.block.index(site.run)]
        read = m.Attribute(value=m.Name(site.instance)) if site.instance else None
        before = {a.attr.value for s in between for a in m.findall(s, read)} if read else set()
        others = {a for o in site.others for a in self.needs.get(o, [])}
        return dead_placeholders(self.init, self.run, before, others)

    def _in_loops(self, block: list, functions: list) -> list:
        """The owner's block when the instance's block is a loop's body (innermost first:
        each loop given its new body, then placed in the block holding it)."""
        loops = self.site.loops
        if not loops:
            return block
        holders = [_owner_block(self.site), *[list(loop.body.body) for loop in loops[:-1]]]
        for holder, loop in reversed(list(zip(holders, loops))):
            new = loop.with_changes(body=loop.body.with_changes(body=block))
            self.origin[id(new)] = (new, loop)
            block = []
            for stmt in holder:
                if stmt is loop:
                    block.append(new)
                elif stmt is self.cls:
                    block += functions
                else:
                    block.append(self._keep(stmt, None))
        return block

    def _lead(self, stmts: list, replaced) -> None:
        """The first of `stmts` takes the comments and blank lines above `replaced`."""
        if stmts:
            first = stmts[0]
            stmts[0] = first.with_changes(leading_lines=replaced.leading_lines)
            self.origin[id(stmts[0])] = (stmts[0], self.origin.pop(id(first))[1])

    def _keep(self, stmt, rewrite, alias: bool = True):
        new = stmt.visit(rewrite) if rewrite is not None else stmt
        if alias and rewrite is not None:
            new = rename(new, self.alias)
        self.origin[id(new)] = (new, stmt)
        return new

    def _bindings(self, args, at) -> list:
        found = []
        for param, value in args:
            if param in self.alias or isinstance(value, cst.Name) and value.value == param:
                continue
            stmt = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(param))], value)])
            self.origin[id(stmt)] = (stmt, at)
            found.append(stmt)
        return found

    def _run_body(self, rewrite) -> list:
        stmts = [s for s in self.run.body.body if not _docstring(s)]
        returns = m.findall(self.run.body, m.Return())
        last = stmts[-1] if stmts else None
        final = m.matches(last, m.SimpleStatementLine([m.Return()]))
        if len(returns) > int(final):
            raise Unsupported(
                METHOD_SHAPE,
                f"`{self.cls.name.value}.{self.site.method}` returns before its end",
                self.run,
            )
        if not final:
            if self.site.target is not None:
                raise Unsupported(
                    METHOD_SHAPE,
                    f"`{self.site.target} = {self.site.instance}.{self.site.method}()` keeps "
                    "what a method without `return` gives",
                    self.site.run,
                )
            return [self._keep(s, rewrite) for s in stmts]
        kept = [self._keep(s, rewrite) for s in stmts[:-1]]
        value = last.body[0].value
        value = rename(value.visit(rewrite), self.alias) if value is not None else None
        target = self.site.target
        if target is None:
            if value is not None and not isinstance(value, (cst.Name, cst.Attribute)):
                kept.append(self._keep(last.with_changes(body=[cst.Expr(value)]), None))
            return kept
        if isinstance(value, cst.Name) and value.value == target:
            return kept
        stmt = last.with_changes(
            body=[cst.Assign([cst.AssignTarget(cst.Name(target))], value or cst.Name("None"))]
        )
        self.origin[id(stmt)] = (stmt, last)
        return kept + [stmt]

    def _function(self, helper: str) -> cst.FunctionDef:
        node = self.used[helper].node
        params = [cst.Param(cst.Name(a)) for a in self.needs[helper]]
        params += list(node.params.params[1:])
        rewrite = _SelfToNames(self.needs, self.carried, helper, members=self.members)
        body = [self._keep(s, rewrite, alias=False) for s in node.body.body]
        if helper in self.carried.attrs and not ends_in_return(node):
            final = self.carried.final_return(helper)
            self.origin[id(final)] = (final, node.body.body[-1])
            body.append(final)
        comments = [line for line in node.leading_lines if line.comment is not None]
        new = node.with_changes(
            params=node.params.with_changes(params=params),
            body=node.body.with_changes(body=body),
            leading_lines=[cst.EmptyLine(), cst.EmptyLine(), *comments],
        )
        self.origin[id(new)] = (new, node)
        return new

    def _origin(self, flat: cst.Module) -> tuple[list[int], list[int]]:
        return line_origin(self.module, flat, self.origin.values())


def line_origin(module: cst.Module, flat: cst.Module, pairs) -> tuple[list[int], list[int]]:
    """For each line of `flat`, the line of `module` it came from, and the difference of
    indentation between the two. `pairs`: (statement of `flat`, statement of `module` it came
    from); a statement keeps its line count when its names change (`self.x` -> `x`), and
    generated statements are paired with the statement they replace."""
    original = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    placed = MetadataWrapper(flat, unsafe_skip_copy=True).resolve(PositionProvider)
    lines = flat.code.count("\n") + 1
    origin = [0] * lines
    indent = [0] * lines
    spans = []
    for node, source in pairs:
        if node in placed and source in original:
            spans.append((placed[node], original[source]))
    spans.sort(key=lambda s: -(s[0].end.line - s[0].start.line))  # inner spans last
    for out, src in spans:
        size = out.end.line - out.start.line
        same = size == src.end.line - src.start.line
        for k in range(size + 1):
            origin[out.start.line - 1 + k] = src.start.line + (k if same else 0)
            indent[out.start.line - 1 + k] = src.start.column - out.start.column
    following = origin[-1] or 1
    for index in reversed(range(lines)):  # blank lines and decorators: the next statement
        origin[index] = origin[index] or following
        following = origin[index]
    return origin, indent


def _same_object(assign, param: str) -> bool:
    """`self.p = p`, or `self.p = p.to(...)` (a module moves in place and returns itself), or
    `self.p = self.p.to(...)` (minGPT's: what `self.p` held, moved in place)."""
    if not isinstance(assign, cst.Assign):
        return False
    held = m.Name(param) | m.Attribute(m.Name("self"), m.Name(param))
    return m.matches(
        assign.value,
        m.Name(param) | m.Call(func=m.Attribute(held, m.Name("to") | m.Name("cuda"))),
    )


def _around_loops(site: _Site, skip: set[int]) -> list[cst.CSTNode]:
    """What shares the scope with a block in loops (`for ii in ...:`): each loop's target and
    iterable, and the other statements of the blocks holding the loops."""
    if not site.loops:
        return []
    found: list[cst.CSTNode] = []
    holders = [_owner_block(site), *[list(loop.body.body) for loop in site.loops[:-1]]]
    for holder, loop in zip(holders, site.loops):
        found += [s for s in holder if s is not loop and id(s) not in skip]
        found += [loop.target, loop.iter]
    return found


def _owner_block(site: _Site) -> list:
    owner = site.owner
    return list(owner.body) if isinstance(owner, cst.Module) else list(owner.body.body)


def _params(owner) -> list[cst.Param]:
    if isinstance(owner, cst.FunctionDef):
        p = owner.params
        return [*p.posonly_params, *p.params, *p.kwonly_params]
    return []


def _bind(method: cst.FunctionDef, call: cst.Call, cls, at) -> list[tuple[str, cst.BaseExpression]]:
    owner = f"{cls.name.value}.{method.name.value}"
    return bind_call(method, call, owner, at, INSTANCE_USE, skip=1)


def bind_call(
    function: cst.FunctionDef, call: cst.Call, owner: str, at, rule, skip: int = 0
) -> list[tuple[str, cst.BaseExpression]]:
    """(parameter, argument or default) in the order Python evaluates them: the call's
    arguments first, then the defaults of the others. `skip`: leading parameters the call
    does not pass (`self`); Unsupported (`rule`) for a call Python would reject."""
    positional = list(function.params.params[skip:])
    keyword = {p.name.value: p for p in [*positional, *function.params.kwonly_params]}
    given: list[tuple[str, cst.BaseExpression]] = []
    for index, arg in enumerate(call.args):
        if arg.keyword is None:
            if index >= len(positional):
                raise Unsupported(rule, f"too many arguments for `{owner}`", at)
            given.append((positional[index].name.value, arg.value))
        else:
            if arg.keyword.value not in keyword:
                raise Unsupported(rule, f"`{owner}` has no `{arg.keyword.value}`", at)
            given.append((arg.keyword.value, arg.value))
    names = [p for p, _ in given]
    if len(set(names)) != len(names):
        raise Unsupported(rule, f"`{owner}` is given a parameter twice", at)
    for param_name, param in keyword.items():
        if param_name in names:
            continue
        if param.default is None:
            raise Unsupported(rule, f"`{owner}` is not given `{param_name}`", at)
        given.append((param_name, param.default))
    return given


def bind_first(
    args: list[tuple[str, cst.BaseExpression]], targets: dict[str, cst.BaseExpression]
) -> list[cst.SimpleStatementLine]:
    """`target = argument` for each parameter of `targets`, in the order of `args` (bind_call's:
    the order Python evaluates them). The argument is the caller's code: never renamed."""
    return [
        cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(targets[param])], value)])
        for param, value in args
        if param in targets
    ]


def _rebinds_itself(stmt) -> bool:
    """`x = x`: what `self.x = x` of `__init__` becomes, or `model, config = model, config`
    what the run method's `model, config = self.model, self.config` does (nothing to run)."""
    pairs = _name_pairs(stmt)
    return bool(pairs) and all(target == value for target, value in pairs)


def _name_pairs(stmt) -> list[tuple[str, str]]:
    """(target, value) of `a = b` or `a, c = b, d` between plain names, else []."""
    if not m.matches(stmt, m.SimpleStatementLine([m.Assign([m.AssignTarget()])])):
        return []
    assign = stmt.body[0]
    target, value = assign.targets[0].target, assign.value
    if isinstance(target, cst.Name) and isinstance(value, cst.Name):
        return [(target.value, value.value)]
    if not (isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple)):
        return []
    if len(target.elements) != len(value.elements):
        return []
    pairs = list(zip(target.elements, value.elements))
    if not all(isinstance(t.value, cst.Name) and isinstance(v.value, cst.Name) for t, v in pairs):
        return []
    return [(t.value.value, v.value.value) for t, v in pairs]


def _attribute_locals(run: cst.FunctionDef, attrs: set[str], rebound: set[str]) -> set[str]:
    """Locals of the run method bound once, by a statement of its own body, to the attribute
    of the same name (`model, config = self.model, self.config`) that no method but
    `__init__` rebinds: the local and the attribute hold one object from there on, and code
    before it cannot read the local (Python raises), so inlined both are the one name."""
    found = set()
    statements = list(run.body.body)
    for stmt in statements:
        if not m.matches(stmt, m.SimpleStatementLine([m.Assign([m.AssignTarget()])])):
            continue
        assign = stmt.body[0]
        target, value = assign.targets[0].target, assign.value
        if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple):
            if len(target.elements) != len(value.elements):
                continue
            pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
        else:
            pairs = [(target, value)]
        for t, v in pairs:
            if not (
                isinstance(t, cst.Name)
                and m.matches(v, m.Attribute(m.Name("self"), m.Name(t.value)))
                and t.value in attrs - rebound
            ):
                continue
            others = [o for o in statements if o is not stmt]
            targets = [p[0] for p in pairs]
            if t.value not in collect_names(*others).writes if others else True:
                if sum(isinstance(x, cst.Name) and x.value == t.value for x in targets) == 1:
                    found.add(t.value)
    return found


def _member(owner: str, name: str) -> cst.Attribute:
    """`Trainer.get_default_config`: a static or class method of the class kept for them."""
    return cst.Attribute(cst.Name(owner), cst.Name(name))


def _docstring(stmt) -> bool:
    return m.matches(stmt, m.SimpleStatementLine([m.Expr(m.SimpleString())]))


def _skip_init(stmt) -> bool:
    """`super().__init__()` of a class without a base, and the docstring: nothing to run."""
    return _docstring(stmt) or m.matches(stmt, _SUPER_INIT)


class _SelfToNames(CarryBack):
    """`self.x` -> `x`, `self.helper(a)` -> `helper(<attributes it reads>, a)` (and
    `step = helper(...)` when it rebinds `self.step`, see trainer_state.py)."""

    def __init__(
        self, needs: dict[str, list[str]], carried, returning=None, flat=None, members=("", set())
    ) -> None:
        super().__init__("self", carried, returning)
        self.needs, self.flat, self.members = needs, flat or {}, members

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if m.matches(original.func, _SELF_ATTR) and original.func.attr.value in self.needs:
            helper = original.func.attr.value
            given = [cst.Arg(cst.Name(self.flat.get(a, a))) for a in self.needs[helper]]
            return updated.with_changes(func=cst.Name(helper), args=given + list(updated.args))
        return updated

    def leave_Attribute(self, original, updated) -> cst.BaseExpression:
        if m.matches(updated, _SELF_ATTR):
            if updated.attr.value in self.members[1]:  # a static method, kept in the class
                return _member(self.members[0], updated.attr.value)
            return cst.Name(self.flat.get(updated.attr.value, updated.attr.value))
        return updated


class _InstanceReads(CarryBack):
    """The script's reads of `trainer.x` -> `x`, its calls `trainer.test()` -> `test(<attributes>)`."""

    def __init__(self, instance: str, alias: dict[str, cst.Name], needs, carried) -> None:
        super().__init__(instance, carried)
        self.instance, self.alias, self.needs = instance, alias, needs  # alias: also renamed

    # a scope binding the instance's name for itself (`def show(runner):`, `lambda runner:`,
    # `[runner.x for runner in runs]`) reads its own object there: left as it is
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        super().visit_FunctionDef(node)
        params = node.params
        names = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]}
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names.add(star.name.value)
        return self.instance not in names | collect_names(node.body).writes

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        params = node.params
        names = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]}
        return self.instance not in names

    def _comprehension(self, node) -> bool:
        targets = [f.target for f in m.findall(node, m.CompFor())]
        return self.instance not in {n.value for t in targets for n in m.findall(t, m.Name())}

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        method = m.Attribute(value=m.Name(self.instance))
        if m.matches(original.func, method) and original.func.attr.value in self.needs:
            function = original.func.attr.value
            given = [cst.Arg(self.alias.get(a, cst.Name(a))) for a in self.needs[function]]
            return updated.with_changes(func=cst.Name(function), args=given + list(updated.args))
        return updated

    def leave_Attribute(self, original, updated) -> cst.BaseExpression:
        if m.matches(updated, m.Attribute(value=m.Name(self.instance))):
            return self.alias.get(updated.attr.value, cst.Name(updated.attr.value))
        return updated


# -- the result, in the script's own lines ----------------------------------------------------


def remap(result: MigrationResult, inlined: Inlined, text: str, class_at: tuple[int, int]):
    """`result` (the flat script's) told in the lines of the script itself: findings and the
    change log's source lines through `inlined.origin`, and every written line no change of
    the flat conversion explains (the class's code placed at the call) explained by TL170.
    """
    dropped = ", ".join(f"`{inlined.class_name}.{name}`" for name in inlined.dropped)
    instance = inlined.instance or f"{inlined.class_name}(...)"
    ran = (
        f"`{inlined.run_method}()` where it was called"
        if inlined.run_method is not None
        else "the methods the script calls are functions given the attributes they read"
    )
    message = (
        f"trainer class `{inlined.class_name}` inlined: `__init__` runs where "
        f"`{instance}` was created, {ran}"
        + (f"; never called, removed with the class: {dropped}" if dropped else "")
    )
    return remap_lines(
        result, inlined.origin, inlined.indent, text, class_at, INLINED.code, message
    )


def remap_lines(
    result: MigrationResult,
    origin: list[int],
    indent: list[int],
    text: str,
    at: tuple[int, int],
    code: str,
    message: str,
) -> MigrationResult:
    """`result`, the conversion of a script generated from `text` by inlining code, told in
    the lines of `text`: findings and the change log's source lines through `origin` (and
    `indent`, see line_origin), and every written line no change of the conversion explains
    (the inlined code) explained by the inlining (`code`, `message`, reported at `at`).
    """

    def line(number: int) -> int:
        return origin[min(max(number, 1), len(origin)) - 1]

    def column(number: int, col: int) -> int:
        return col + indent[min(max(number, 1), len(origin)) - 1]

    findings = [
        dataclasses.replace(f, line=line(f.line), column=column(f.line, f.column))
        for f in result.findings
    ]
    if not result.changed:
        return MigrationResult(result.path, text, text, findings)
    findings.insert(0, Finding(result.path, at[0], at[1], code, message))
    changes = []
    for change in result.changes:
        source = change.source_lines
        if source is not None:
            mapped = [line(n) for n in range(source[0], source[1] + 1)]
            source = (min(mapped), max(mapped))
        changes.append(dataclasses.replace(change, source_lines=source))
    covered = {
        n
        for c in changes
        if c.output_lines
        for n in range(c.output_lines[0], c.output_lines[1] + 1)
    }
    matcher = difflib.SequenceMatcher(
        None, text.splitlines(), result.output.splitlines(), autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag not in ("replace", "insert"):
            continue
        run: list[int] = []
        for n in [*range(j1 + 1, j2 + 1), None]:
            if n is not None and n not in covered:
                run.append(n)
                continue
            if run:
                source = (i1 + 1, max(i1 + 1, i2)) if i2 > i1 else (at[0], at[0])
                changes.append(Change(code, source, (run[0], run[-1]), message))
                run = []
    changes.sort(key=lambda c: (c.source_lines or c.output_lines)[0])
    return MigrationResult(result.path, text, result.output, findings, changes=changes)
