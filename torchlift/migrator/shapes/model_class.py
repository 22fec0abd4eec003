"""A class whose methods the script's loop calls to train, inlined where the script uses it.

    class Pix2PixModel:                              netG, netD = Gen(), Disc()
        def __init__(self, opt):                     optimizer_G = Adam(netG.parameters(), ...)
            self.netG, self.netD = Gen(), Disc()     optimizer_D = Adam(netD.parameters(), ...)
            self.optimizer_G = Adam(...)             for epoch in range(opt.n_epochs):
            self.optimizer_D = Adam(...)                 for data in loader:
        def set_input(self, data):                           real_A = data["A"]
            self.real_A = data["A"]          ->              fake_B = netG(real_A)
        def optimize_parameters(self):                       optimizer_D.zero_grad()
            self.fake_B = self.netG(self.real_A)             loss_D = ...
            self.optimizer_D.zero_grad()                     loss_D.backward()
            self.backward_D()                                optimizer_D.step()
            self.optimizer_D.step()                          ...
            ...

    model = Pix2PixModel(opt)
    for epoch in range(opt.n_epochs):
        for data in loader:
            model.set_input(data)
            model.optimize_parameters()

pix2pix / CycleGAN and the research code written after them keep the networks, the optimizers
and the step in a plain class the loop drives: `set_input(data)`, `optimize_parameters()`
calling `forward()`, `backward_D()` / `backward_G()` (each calling `.backward()`), and
`update_learning_rate()` once per epoch. The loop shapes read a step written in the loop; so,
as trainer_inline.py does for a class holding the loop, the class is inlined: `__init__`'s body
runs where the instance is created, each method the script calls as a statement
(`model.set_input(data)`, `losses = model.get_current_losses()`) runs where it is called, and
so does each method those call as a statement (`self.backward_D()`), `self.x` and the script's
`model.x` become the name `x`; a method that never uses `self` (`set_requires_grad(nets,
requires_grad)`) becomes a module function. Every inlined body then shares the script's scope:
the instance's attributes are names there, and a method's parameter or local that the script,
the class or another method already spells is renamed `<method>_<name>`. Parameters are
replaced by the call's arguments when those are names or literals nothing in the body rebinds,
else bound to a local first, in the order Python evaluates them; a final `return` is assigned
to the call's target. The flat script is converted by the loop shapes (several optimizers:
manual optimization) and never written itself. An instance called like a function
(`loss_scaler(loss, optimizer)`, timm's `NativeScaler` running the step in `__call__`) is a
call of its `__call__` (`calls_as_method`).

What it leaves alone, with the trainer-class codes (trainer_class.py): a class with a base,
decorators or anything but plain methods (TL189: its methods may come from code not seen); the
class not created once, by `name = Class(...)`, in a block of the script (TL171); the instance
or `self` used other than by method calls and attribute reads (`getattr(self, "net" + name)`,
passed on, an attribute set from outside) (TL172); a method returning before its end, called
inside an expression or from a nested function, calling itself, or whose value is used though
it returns none (TL173); a name of the class that would mean something else where it is
inlined (TL174). A torch module whose `forward` holds the step (MAML's `Meta.forward` with its
own optimizer) is refused at the loop (TL189, naming the method).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from ..analysis.names import RenameNames, bound_names, collect_names, own_scope_nodes
from ..rule import Rule, Unsupported
from .step_inline import _global_reads, _pure, _Replace, _tables
from .trainer_class import INSTANCE_USE, METHOD_SHAPE, NAME_CLASH, SELF_ESCAPES
from .trainer_inline import (
    _docstring,
    _methods,
    _reachable,
    _read_method,
    _rebinds_itself,
    _skip_init,
    bind_call,
    line_origin,
    run_blocks,
)
from .trainer_shared import _rebound_by_methods, _rebound_by_script, _stored_otherwise

_EXAMPLE = """
class GanModel:
    def __init__(self, lr):
        self.netG = nn.Linear(2, 2)
        self.netD = nn.Linear(2, 1)
        self.opt_G = torch.optim.SGD(self.netG.parameters(), lr=lr)
        self.opt_D = torch.optim.SGD(self.netD.parameters(), lr=lr)

    def set_input(self, batch):
        self.real = batch[0]

    def backward_D(self):
        self.fake = self.netG(torch.randn_like(self.real))
        self.loss_D = self.netD(self.fake.detach()).mean() - self.netD(self.real).mean()
        self.loss_D.backward()

    def backward_G(self):
        self.loss_G = -self.netD(self.fake).mean()
        self.loss_G.backward()

    def optimize_parameters(self):
        self.opt_D.zero_grad()
        self.backward_D()
        self.opt_D.step()
        self.opt_G.zero_grad()
        self.backward_G()
        self.opt_G.step()


points = DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=4)
gan = GanModel(0.01)
for epoch in range(2):
    for batch in points:
        gan.set_input(batch)
        gan.optimize_parameters()
"""

INLINED_MODEL = Rule(
    "TL188",
    "a class whose methods the loop calls to train was inlined where the script uses it",
    """A plain class holding the networks, the optimizers and the step (pix2pix's
    `model.set_input(data); model.optimize_parameters()`) is inlined: `__init__` runs where the
    instance is created, each method the script or another method calls as a statement runs
    where it is called, `self.x` and `model.x` become the name `x`, a method that never uses
    `self` becomes a module function. The flat script is then converted like any other: with
    several optimizers, by manual optimization keeping each zero_grad/backward/step in the
    script's order. Methods nothing calls are removed with the class; the report names
    them.""",
    """Nothing to do; review the diff. Keep the class (and write its LightningModule by hand)
    if other modules import it.""",
    _EXAMPLE,
    converts=True,
)

DRIVEN_STEP = Rule(
    "TL189",
    "the training step is in a method of an object the loop calls, which is not inlined",
    """A loop training through an object's method (`model.optimize_parameters()`, or a torch
    module called as `maml(x_spt, y_spt, x_qry, y_qry)` whose `forward` calls `backward()` and
    its own optimizer's `step()`) is converted by inlining the object's class where the script
    creates it. A class with a base class (its methods may come from code not seen), class
    decorators, or code other than plain methods, and a torch module whose `forward` steps an
    optimizer it owns (the LightningModule must own the optimizers: `configure_optimizers`),
    are not inlined. The message names the method holding the step.""",
    """Write the step in the loop (`maml.meta_optim.zero_grad(); loss_q = maml(...);
    loss_q.backward(); maml.meta_optim.step()`), or make the class plain (no base class) so
    that it can be inlined.""",
    """
class Meta(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 2)
        self.meta_optim = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def forward(self, x, y):
        loss = criterion(self.net(x), y)
        self.meta_optim.zero_grad()
        loss.backward()
        self.meta_optim.step()
        return loss.item()


maml = Meta()
for epoch in range(2):
    for x, y in loader:
        print(maml(x, y))
""",
)

RULES = (INLINED_MODEL, DRIVEN_STEP)

# `loss.backward()`, not a method of the class named so (`self.backward()`)
_BACKWARD = m.Call(
    func=m.Attribute(
        value=m.MatchIfTrue(lambda v: not m.matches(v, m.Name("self"))), attr=m.Name("backward")
    )
)
_SELF_ATTR = m.Attribute(m.Name("self"), m.Name())
_ATTRIBUTE_HOOKS = {"__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__new__"}
_BY_NAME = m.Call(
    func=m.Name("getattr") | m.Name("setattr") | m.Name("hasattr") | m.Name("delattr"),
    args=[m.Arg(m.Name("self")), m.ZeroOrMore()],
)
_NESTED = m.FunctionDef() | m.Lambda() | m.ClassDef()


@dataclass
class InlinedModel:
    """The flat script, where each of its lines came from, and what the change log says."""

    text: str
    origin: list[int]
    indent: list[int]
    message: str


@dataclass
class _Site:
    """Where the script creates the instance (trainer_shared.py reads these fields)."""

    block: list
    owner: cst.CSTNode  # the module, or the function / `if __name__` holding the block
    created: cst.SimpleStatementLine
    call: cst.Call
    instance: str


@dataclass
class _Method:
    node: cst.FunctionDef
    stores: set[str]
    names: dict[str, str] = field(default_factory=dict)  # its parameters and locals, renamed
    writes: set[str] = field(default_factory=set)  # names its inlined body binds, callees too


def refuse_called_module(found) -> Unsupported:
    """TL189 for a torch module the loop calls whose `forward` holds the step (MAML)."""
    owner = found.cls.name
    stepped = _own_optimizers(found.cls)
    why = (
        f"a torch module stepping its own optimizer (`self.{stepped[0]}`) in `forward` is not "
        "converted: the LightningModule must own the optimizers"
        if stepped
        else "a torch module calling backward() in `forward` is not converted"
    )
    return Unsupported(
        DRIVEN_STEP,
        f"the training step (`.backward()`) is in `{owner}.{found.method}` (line "
        f"{found.defined}), which the loop at line {found.loop[0]} runs by calling "
        f"`{found.instance}(...)`: {why}; call backward() and the optimizer's step() in the loop",
    )


def _own_optimizers(cls: ast.ClassDef) -> list[str]:
    """The attributes `self.<name>.step()` is called on in the class's methods."""
    found = []
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "step"
            and isinstance(node.func.value, ast.Attribute)
            and isinstance(node.func.value.value, ast.Name)
            and node.func.value.value.id == "self"
            and node.func.value.attr not in found
        ):
            found.append(node.func.value.attr)
    return found


def inline_model_class(module: cst.Module, cls: cst.ClassDef, path: str) -> InlinedModel:
    """The flat script with `cls` inlined where the script creates and drives it, or
    Unsupported naming why that would not run the same code."""
    return _Inliner(module, cls, path).run()


def calls_as_method(module: cst.Module, cls: cst.ClassDef) -> tuple[cst.Module, cst.ClassDef]:
    """For a class defining `__call__`, the module with each call of an instance written as
    the method call (see `_CallsAsMethod`), and the class in it; else both as given. Only
    expressions change: every statement keeps its line."""
    if not any(m.matches(s, m.FunctionDef(name=m.Name("__call__"))) for s in cls.body.body):
        return module, cls
    module = module.visit(_CallsAsMethod(cls.name.value))
    return module, next(s for s in module.body if m.matches(s, m.ClassDef(name=cls.name)))


class _CallsAsMethod(cst.CSTTransformer):
    """`scaler(loss, optimizer)` -> `scaler.__call__(loss, optimizer)` for an instance of a
    plain class defining `__call__` (timm's `NativeScaler`, running backward, clipping and
    the step): the method call the inliner reads like any other. The instance is a name bound
    once to `Class(...)` (the inliner checks the rest)."""

    def __init__(self, owner: str) -> None:
        super().__init__()
        self.owner = owner
        self.instances: set[str] = set()

    def visit_Module(self, node) -> None:
        creation = m.Assign([m.AssignTarget(m.Name())], m.Call(func=m.Name(self.owner)))
        self.instances = {a.targets[0].target.value for a in m.findall(node, creation)}

    def leave_Call(self, original, updated):
        if m.matches(updated.func, m.Name()) and updated.func.value in self.instances:
            method = cst.Attribute(value=updated.func, attr=cst.Name("__call__"))
            return updated.with_changes(func=method)
        return updated


class _Inliner:
    def __init__(self, module: cst.Module, cls: cst.ClassDef, path: str) -> None:
        self.module, self.cls, self.path = module, cls, path
        self.owner_name = cls.name.value
        binders = [s for s in module.body if self.owner_name in bound_names(s)]
        if len(binders) != 1:  # which class the instance is made of is not this one for sure
            raise Unsupported(
                INSTANCE_USE,
                f"`{self.owner_name}` is bound more than once at module level",
                binders[-1],
            )
        hooks = [
            s
            for s in cls.body.body
            if isinstance(s, cst.FunctionDef) and s.name.value in _ATTRIBUTE_HOOKS
        ]
        if hooks:  # they run on every `self.x`: inlined, `x` would not call them
            raise Unsupported(
                DRIVEN_STEP,
                f"class `{self.owner_name}` defines `{hooks[0].name.value}`, which runs on its "
                "attribute reads or writes: inlined, its attributes are plain names",
                hooks[0],
            )
        bases = [module.code_for_node(b.value) for b in cls.bases]
        if bases and bases != ["object"]:
            raise Unsupported(
                DRIVEN_STEP,
                f"class `{self.owner_name}` inherits from `{'`, `'.join(bases)}`: what it "
                "inherits (methods, the base's `__init__`) is not inlined, only a plain class is",
                cls,
            )
        try:
            self.methods = _methods(cls, module)
        except Unsupported as why:  # decorators, class-level code
            raise Unsupported(DRIVEN_STEP, why.reason, why.node) from None
        self.pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []

    # -- reading -------------------------------------------------------------------------
    def run(self) -> InlinedModel:
        self.site = self._site()
        called = self._script_calls()
        roots = (["__init__"] if "__init__" in self.methods else []) + called
        order = _reachable(self.methods, roots, self.cls)
        self.by_name = _NamedReads(self.methods, set(self.script_reads)).found
        for name in order:
            for call in m.findall(self.methods[name].body, _BY_NAME):
                if id(call) in self.by_name:
                    continue
                raise Unsupported(
                    SELF_ESCAPES,
                    f"`{self.owner_name}.{name}` reads or sets attributes by a name built at run "
                    f"time (`{self.module.code_for_node(call)}`): inlined, the attributes are "
                    "names of the script, which no string can reach (a `for` over a list of "
                    "names `__init__` sets and nothing changes would)",
                    call,
                )
        # read with each `getattr(self, "net" + name)` as the attributes it may read
        views = {n: _with_named_reads(self.methods[n], self.by_name) for n in order}
        self.used = {n: _read_method(n, views[n], self.cls) for n in order}
        self.static = {
            n
            for n in order
            if n != "__init__" and not m.findall(self.methods[n].body, m.Name("self"))
        }
        self.inlined = [n for n in order if n not in self.static]
        self.attrs = set().union(*(self.used[n].stores for n in self.inlined))
        for name in self.inlined:
            missing = [
                a for a in self.used[name].reads if a not in self.attrs and a not in self.methods
            ]
            if missing:
                raise Unsupported(
                    SELF_ESCAPES,
                    f"`{self.owner_name}.{name}` reads `self.{missing[0]}`, which no method the "
                    "script runs assigns (set from outside the class?)",
                    self.methods[name],
                )
            self._check_shape(name)
        unset = sorted(set(self.script_reads) - self.attrs)
        if unset:
            raise Unsupported(
                SELF_ESCAPES,
                f"the script reads `{self.site.instance}.{unset[0]}`, which no method it runs "
                "assigns",
                self.script_reads[unset[0]],
            )
        if "__init__" not in self.methods and self.site.call.args:
            raise Unsupported(
                INSTANCE_USE,
                f"`{self.owner_name}(...)` is given arguments but the class has no `__init__`",
                self.site.created,
            )
        self.info = {n: _Method(self.methods[n], self.used[n].stores) for n in self.inlined}
        self._check_calls()
        self.shared = self._shared_attrs()
        self._names()
        return self._emit(sorted(set(self.methods) - set(order)))

    def _site(self) -> _Site:
        name = self.owner_name
        creations = []
        for block, owner, loops in run_blocks(self.module):
            for stmt in block:
                if m.matches(
                    stmt,
                    m.SimpleStatementLine(
                        [m.Assign([m.AssignTarget(m.Name())], m.Call(func=m.Name(name)))]
                    ),
                ):
                    creations.append((block, owner, stmt))
        refs = _variables(self.module, name)
        if len(creations) != 1 or len(refs) != 1:
            other = creations[1][2] if len(creations) > 1 else self.cls
            raise Unsupported(
                INSTANCE_USE,
                f"class `{name}` is not used exactly once, as `name = {name}(...)` in a block of "
                "the script (module level, a function, `if __name__`, a `for` loop in them)",
                other,
            )
        block, owner, created = creations[0]
        assign = created.body[0]
        call = assign.value
        if any(a.star for a in call.args):
            raise Unsupported(INSTANCE_USE, f"`{name}(...)` is called with `*` arguments", created)
        return _Site(block, owner, created, call, assign.targets[0].target.value)

    def _script_calls(self) -> list[str]:
        """The methods the script calls on the instance, in order; Unsupported (TL172) for any
        other use of it: only `instance.m(...)` and reads of `instance.x`, after its creation,
        in the block creating it."""
        site, instance = self.site, self.site.instance
        after = site.block[site.block.index(site.created) + 1 :]
        allowed = {id(site.created.body[0].targets[0].target)}
        called: list[str] = []
        self.script_reads: dict[str, cst.CSTNode] = {}  # attribute -> a statement reading it
        for stmt in after:
            for nested in m.findall(stmt, _NESTED):
                if instance in collect_names(nested).reads:
                    raise Unsupported(
                        SELF_ESCAPES,
                        f"`{instance}` is read by a function or class defined in the script: "
                        "inlined, which of its attributes it reads is not kept",
                        stmt,
                    )
            funcs = {
                id(c.func) for c in m.findall(stmt, m.Call(func=m.Attribute(m.Name(instance))))
            }
            for attribute in m.findall(stmt, m.Attribute(value=m.Name(instance))):
                attr = attribute.attr.value
                if attr in self.methods:
                    if id(attribute) not in funcs:
                        raise Unsupported(
                            SELF_ESCAPES,
                            f"`{instance}.{attr}` is used without being called (the bound method "
                            "handed on): inlined, there is no method to hand",
                            stmt,
                        )
                    if attr not in called:
                        called.append(attr)
                else:
                    self.script_reads.setdefault(attr, stmt)
                allowed.add(id(attribute.value))
        for target in m.findall(self.module, m.AssignTarget() | m.AugAssign() | m.Del()):
            node = getattr(target, "target", None)
            if m.matches(node, m.Attribute(value=m.Name(instance))):
                raise Unsupported(
                    SELF_ESCAPES,
                    f"the script sets or deletes `{instance}.{node.attr.value}`: inlined, the "
                    "class's own code would not see it",
                    target,
                )
        owner = site.owner if isinstance(site.owner, cst.FunctionDef) else self.module
        for use in _variables(owner, instance):  # the variable of the owner's scope
            if id(use) not in allowed and not self._own_local(use):
                raise Unsupported(
                    SELF_ESCAPES,
                    f"`{instance}` is used other than by calls of its methods and reads of its "
                    "attributes after it is created (passed on, returned, called)",
                    self._statement_of(use),
                )
        return called

    def _own_local(self, use: cst.Name) -> bool:
        """`use` is in a function of its own (not the one creating the instance) that binds
        the name for itself: another variable, spelled alike."""
        holders = [
            f
            for f in m.findall(self.module, m.FunctionDef())
            if f is not self.site.owner and any(n is use for n in m.findall(f, m.Name(use.value)))
        ]
        if not holders:
            return False
        inner = min(holders, key=lambda f: len(m.findall(f, m.Name())))
        params = {p.name.value for p in [*inner.params.params, *inner.params.kwonly_params]}
        declared = {
            n.value
            for g in m.findall(inner.body, m.Global() | m.Nonlocal())
            for n in [item.name for item in g.names]
        }
        return use.value in (collect_names(inner.body).writes | params) - declared

    def _statement_of(self, node: cst.CSTNode) -> cst.CSTNode:
        for stmt in self.site.block:
            if any(n is node for n in m.findall(stmt, m.Name(node.value))):
                return stmt
        return self.site.created

    def _check_shape(self, name: str) -> None:
        """An inlined method returns only at its end, calls no method of its own inside an
        expression or a nested function, and takes no `*args` (trainer_inline checked)."""
        node = self.methods[name]
        owner = f"`{self.owner_name}.{name}`"
        body = [s for s in node.body.body if not _docstring(s)]
        nested = m.findall(node.body, _NESTED)
        returns = [
            r for r in m.findall(node.body, m.Return()) if not any(_holds(n, r) for n in nested)
        ]
        final = bool(body) and m.matches(body[-1], m.SimpleStatementLine([m.Return()]))
        if len(returns) > int(final):
            raise Unsupported(METHOD_SHAPE, f"{owner} returns before its end", node)
        if name == "__init__" and returns:
            raise Unsupported(METHOD_SHAPE, f"{owner} returns", node)
        if node.decorators:
            raise Unsupported(
                METHOD_SHAPE,
                f"{owner} is decorated: inlined where it is called, its body would run without "
                "the decorator",
                node,
            )
        own = collect_names(node.body).writes | {p.name.value for p in _params(node)}
        for inner in m.findall(node.body, m.FunctionDef() | m.Lambda()):
            captured = collect_names(inner).reads & own
            if captured:
                raise Unsupported(
                    METHOD_SHAPE,
                    f"{owner} defines a function reading its `{sorted(captured)[0]}`: inlined, "
                    "it would read the script's name when it runs, not this call's value",
                    inner,
                )

    def _check_calls(self) -> None:
        """Every call of an inlined method is a statement of its own (`self.m(...)` or
        `x = self.m(...)`), outside nested functions; no method reaches itself."""
        for name in self.inlined:
            node = self.methods[name]
            sites = {id(c) for c in _statement_calls(node.body, "self", set(self.inlined))}
            for call in m.findall(node.body, m.Call(func=m.Attribute(m.Name("self"), m.Name()))):
                callee = call.func.attr.value
                if callee in self.inlined and id(call) not in sites:
                    raise Unsupported(
                        METHOD_SHAPE,
                        f"`{self.owner_name}.{name}` calls `self.{callee}()` inside an expression "
                        f"or a nested function: `{callee}` sets attributes, so it is inlined "
                        "where it is called, which must be a statement of its own",
                        call,
                    )
        site = self.site
        after = site.block[site.block.index(site.created) + 1 :]
        sites = {
            id(c)
            for stmt in after
            for c in _statement_calls(stmt, site.instance, set(self.inlined))
        }
        for stmt in after:
            for call in m.findall(stmt, m.Call(func=m.Attribute(m.Name(site.instance), m.Name()))):
                callee = call.func.attr.value
                if callee in self.inlined and id(call) not in sites:
                    raise Unsupported(
                        METHOD_SHAPE,
                        f"`{site.instance}.{callee}()` is called inside an expression: "
                        f"`{self.owner_name}.{callee}` uses `self`, so it is inlined where it is "
                        f"called, which must be a statement of its own (`x = {site.instance}."
                        f"{callee}(...)`)",
                        stmt,
                    )
        for name in self.inlined:  # no method reaches itself through statement calls
            stack, seen = [(name, [name])], set()
            while stack:
                current, path = stack.pop()
                for callee in _callees(self.methods[current], set(self.inlined)):
                    if callee == name:
                        raise Unsupported(
                            METHOD_SHAPE,
                            f"`{self.owner_name}.{name}` calls itself "
                            f"({' -> '.join([*path, callee])}): it cannot be inlined",
                            self.methods[name],
                        )
                    if callee not in seen:
                        seen.add(callee)
                        stack.append((callee, [*path, callee]))

    # -- names ---------------------------------------------------------------------------
    def _shared_attrs(self) -> set[str]:
        """Attributes `__init__` stores unchanged from a parameter given the script's name of
        the attribute (`self.opt = opt` given `opt`): inlined, both are that one object."""
        shared: set[str] = set()
        if "__init__" not in self.inlined:
            return shared
        init = self.methods["__init__"]
        args = bind_call(
            init, self.site.call, f"{self.owner_name}()", self.site.created, INSTANCE_USE, 1
        )
        init_use = collect_names(init.body)
        for attr in sorted(self.used["__init__"].stores):
            params = [p for p, v in args if m.matches(v, m.Name(attr))]
            if not params:
                continue
            why = _stored_otherwise(self.module, init, attr, params, init_use)
            why = why or _rebound_by_methods(self.cls, attr, self.used)
            why = why or _rebound_by_script(self.module, self.site, attr, "the script")
            if why is None:
                shared.add(attr)
        return shared

    def _names(self) -> None:
        """Each inlined method's parameters and locals: kept, or renamed `<method>_<name>` when
        the script, the attributes, a global the class reads or another method spells it."""
        tables = _tables(self.module, self.path)
        owner = self.site.owner
        scope = tables.top if not isinstance(owner, cst.FunctionDef) else tables.scope(owner)
        if scope is None:
            raise Unsupported(
                NAME_CLASH, f"`{owner.name.value}()` is defined twice", self.site.created
            )
        taken = set(scope.get_identifiers()) - {self.site.instance}
        taken |= tables.global_uses() if scope is tables.top else _global_reads(scope)
        globals_read: set[str] = set()
        for name in self.inlined:
            node = self.methods[name]
            own = collect_names(node.body)
            params = {p.name.value for p in _params(node)}
            globals_read |= own.reads - own.writes - params - {"self"}
        for name in self.static:
            globals_read.add(name)
        module_names = set(tables.top.get_identifiers()) - {self.owner_name}
        for name in self.inlined_order(self.static):  # a module function once inlined
            if name in module_names | taken | self.attrs:
                self._clash(name, "a method become a module function and a name of the script")
        clash = (self.attrs - self.shared) & taken
        if clash:
            self._clash(sorted(clash)[0], "an attribute of the class and a name of the script")
        if scope is not tables.top:  # the function's own names would hide the globals read
            bound = {s.get_name() for s in scope.get_symbols() if s.is_local()}
            hidden = (globals_read - set(self.methods)) & bound - self.attrs
            if hidden:
                self._clash(sorted(hidden)[0], "a global the class reads, bound by the function")
        hidden = (globals_read - self.static) & self.attrs
        if hidden:
            self._clash(sorted(hidden)[0], "a global the class reads and an attribute")
        reserved = taken | self.attrs | globals_read | set(self.methods)
        for name in self.inlined:
            info = self.info[name]
            node = self.methods[name]
            own = [p.name.value for p in _params(node)]
            own += sorted(collect_names(node.body).writes - set(own))
            prefix = "init" if name == "__init__" else name.strip("_")
            for local in own:
                if local in reserved:
                    renamed = f"{prefix}_{local}"
                    if renamed in reserved or renamed in collect_names(self.module).all():
                        self._clash(local, f"a local of `{name}`, and `{renamed}` is taken too")
                    info.names[local] = renamed
                    reserved.add(renamed)
                else:
                    info.names[local] = local
                    reserved.add(local)
        for name in self.inlined:
            self._writes(name)

    def _writes(self, name: str) -> set[str]:
        """The names `name`'s inlined body binds, with those of the methods it inlines (no
        method reaches itself: _check_calls)."""
        info = self.info[name]
        if not info.writes:
            # a shared attribute's store, `self.opt = opt` given `opt`, is `opt = opt`: dropped
            info.writes = set(info.names.values()) | (info.stores - self.shared)
            for callee in _callees(self.methods[name], set(self.inlined)):
                info.writes |= self._writes(callee)
        return info.writes

    def _clash(self, name: str, why: str) -> None:
        raise Unsupported(
            NAME_CLASH,
            f"inlining class `{self.owner_name}` would give `{name}` two meanings ({why}): "
            "rename one of them",
            self.site.created,
        )

    # -- the flat script -----------------------------------------------------------------
    def _emit(self, dropped: list[str]) -> InlinedModel:
        site = self.site
        created = (
            self._expand("__init__", site.call, None, site.created)
            if "__init__" in self.inlined
            else []
        )
        created = _lead(created, site.created, self.pairs)
        rewrite = _Rewrite(self, site.instance)
        replaced: dict[int, list | None] = {id(site.created): created or []}
        index = site.block.index(site.created)
        for stmt in site.block[index + 1 :]:
            new = stmt.visit(rewrite)
            if isinstance(new, cst.FlattenSentinel):  # a call of an inlined method
                replaced[id(stmt)] = list(new.nodes)
            elif new is not stmt:
                self.pairs.append((new, stmt))
                replaced[id(stmt)] = [new]
        functions = [self._function(n) for n in self.inlined_order(self.static)]
        functions = _lead(functions, self.cls, self.pairs)
        replaced[id(self.cls)] = functions
        flat = self.module.visit(_Replace(replaced, self.pairs))
        origin, indent = line_origin(self.module, flat, self.pairs)
        steps = [n for n in self.inlined if m.findall(self.methods[n].body, _BACKWARD)]
        message = (
            f"class `{self.owner_name}` inlined: `__init__` runs where `{site.instance}` was "
            f"created, the methods the script calls where it calls them (the step: "
            f"{', '.join(f'`{s}`' for s in steps)}), `self.x` and `{site.instance}.x` are the "
            "name `x`"
        )
        if self.static:
            shown = ", ".join(f"`{n}`" for n in self.inlined_order(self.static))
            message += f"; methods not using `self` became functions: {shown}"
        if dropped:
            shown = ", ".join(f"`{self.owner_name}.{n}`" for n in dropped)
            message += f"; never called, removed with the class: {shown}"
        return InlinedModel(flat.code, origin, indent, message)

    def inlined_order(self, names: set[str]) -> list[str]:
        return [n for n in self.methods if n in names]

    def _function(self, name: str) -> cst.FunctionDef:
        """A method that never uses `self`, as a module function."""
        node = self.methods[name]
        new = node.with_changes(
            params=node.params.with_changes(params=node.params.params[1:]),
            leading_lines=[cst.EmptyLine(), cst.EmptyLine()],
        )
        self.pairs.append((new, node))
        return new

    def _expand(self, name: str, call: cst.Call, target, at) -> list:
        """The statements running `name`'s body for `call` (already in the script's names),
        its final `return` assigned to `target` (None: the call was a statement)."""
        node, info = self.methods[name], self.info[name]
        owner = f"{self.owner_name}.{name}"
        args = bind_call(node, call, owner, at, INSTANCE_USE, skip=1)
        rebound = collect_names(node.body).writes
        mapping: dict[str, cst.BaseExpression] = {
            local: cst.Name(new) for local, new in info.names.items() if local != new
        }
        bindings = []
        for param, value in args:
            if (
                _substitutable(value)
                and param not in rebound
                and not (isinstance(value, cst.Name) and value.value in info.writes)
            ) or _parameters_once(node, param, value, rebound, info.writes):
                mapping[param] = value
            else:
                renamed = cst.Name(info.names[param])
                mapping[param] = renamed
                stmt = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(renamed)], value)])
                self.pairs.append((stmt, at))
                bindings.append(stmt)
        body = (
            [s for s in node.body.body if not _skip_init(s)]
            if name == "__init__"
            else [s for s in node.body.body if not _docstring(s)]
        )
        final = None
        if body and m.matches(body[-1], m.SimpleStatementLine([m.Return()])):
            final, body = body[-1], body[:-1]
        if target is not None and (final is None or final.body[0].value is None):
            raise Unsupported(
                METHOD_SHAPE,
                f"the value of `{owner}` is used, but it returns none",
                at,
            )
        out = list(bindings)
        for stmt in body:
            new = stmt.visit(_Rewrite(self, "self", mapping, own_scope_nodes(stmt)))
            if isinstance(new, cst.FlattenSentinel):
                out += list(new.nodes)
                continue
            if _rebinds_itself(new):
                continue
            self.pairs.append((new, stmt))
            out.append(new)
        if final is not None and final.body[0].value is not None:
            returned = final.body[0].value
            value = returned.visit(_Rewrite(self, "self", mapping, own_scope_nodes(returned)))
            if target is not None:
                small = cst.Assign([cst.AssignTarget(target)], value)
            elif not _pure(value):
                small = cst.Expr(value)
            else:
                small = None
            if small is not None:
                stmt = final.with_changes(body=[small])
                self.pairs.append((stmt, final))
                out.append(stmt)
        return out


class _Rewrite(RenameNames):
    """In code of the class (`receiver` "self") or of the script (the instance's name):
    the method's names renamed (`mapping`, by Python's scopes: `own`), `receiver.x` -> `x`,
    `receiver.f(...)` -> `f(...)` for a method become a function, and a statement calling an
    inlined method -> that method's body (its value to the target)."""

    def __init__(self, inliner: _Inliner, receiver: str, mapping=None, own=None) -> None:
        super().__init__(mapping or {}, own)
        self.inliner, self.receiver = inliner, receiver

    def _method_of(self, node) -> str | None:
        if m.matches(node, m.Attribute(m.Name(self.receiver), m.Name())):
            if node.attr.value in self.inliner.methods:
                return node.attr.value
        return None

    def leave_Attribute(self, original, updated):
        if m.matches(updated, m.Attribute(m.Name(self.receiver), m.Name())):
            if updated.attr.value not in self.inliner.methods:
                return cst.Name(updated.attr.value)
        return updated

    def leave_Call(self, original, updated):
        lookup = self.inliner.by_name.get(id(original))
        if lookup is not None:  # `getattr(self, "loss_" + name)` over constant names
            return lookup.visit(self)
        method = self._method_of(original.func)
        if method in self.inliner.static:
            return updated.with_changes(func=cst.Name(method))
        return updated

    def leave_SimpleStatementLine(self, original, updated):
        calls = _statement_calls(original, self.receiver, set(self.inliner.inlined))
        if not calls:
            return updated
        small = updated.body[0]
        target = small.targets[0].target if isinstance(small, cst.Assign) else None
        call = small.value
        name = self._method_of(calls[0].func)
        expanded = self.inliner._expand(name, call, target, original)
        if not expanded:  # a method with nothing to run
            expanded = [cst.SimpleStatementLine([cst.Pass()])]
            self.inliner.pairs.append((expanded[0], original))
        return cst.FlattenSentinel(_lead(expanded, original, self.inliner.pairs))


def _statement_calls(node: cst.CSTNode, receiver: str, methods: set[str]) -> list[cst.Call]:
    """The calls `receiver.m(...)` of `methods` that are a whole statement, `receiver.m(...)`
    or `target = receiver.m(...)` (one target), in `node` outside nested functions."""
    call = m.Call(func=m.Attribute(m.Name(receiver), m.Name(m.MatchIfTrue(lambda n: n in methods))))
    pattern = m.SimpleStatementLine([m.Expr(call) | m.Assign([m.AssignTarget()], call)])
    if isinstance(node, cst.SimpleStatementLine):
        return [node.body[0].value] if m.matches(node, pattern) else []
    nested = m.findall(node, _NESTED)
    return [
        stmt.body[0].value
        for stmt in m.findall(node, pattern)
        if not any(_holds(n, stmt) for n in nested)
    ]


class _NamedReads:
    """`getattr(self, "net" + name)` in `for name in self.model_names:`, where `__init__` sets
    `self.model_names` once to a list of strings nothing else touches (pix2pix's BaseModel):
    the attribute read is one of a known few, so the call is the lookup
    `{"G": self.netG, "D": self.netD}[name]` (every one of them is read: they must all be set
    wherever the loop runs, as they are after `__init__` and the step). `found`: id of each
    such call -> its lookup."""

    def __init__(self, methods: dict[str, cst.FunctionDef], script_reads: set[str]) -> None:
        self.methods, self.found = methods, {}
        lists = {a: v for a, v in self._constant_lists().items() if a not in script_reads}
        for method in methods.values():
            loops = [
                f
                for f in m.findall(method.body, m.For(target=m.Name(), iter=_SELF_ATTR))
                if f.iter.attr.value in lists and f.target.value not in collect_names(f.body).writes
            ]
            for loop in loops:
                variable = loop.target.value
                names = lists[loop.iter.attr.value]
                for call in m.findall(loop.body, _BY_NAME):
                    prefix = _prefix(call, variable)
                    if prefix is None or not m.matches(call.func, m.Name("getattr")):
                        continue
                    elements = [  # keyed by the list's own strings, as the script quotes them
                        cst.DictElement(
                            string, cst.Attribute(cst.Name("self"), cst.Name(prefix + name))
                        )
                        for name, string in names
                    ]
                    key = call.args[1].value
                    key = key if isinstance(key, cst.Name) else key.right  # the loop's name,
                    # the node itself: renamed with the method's locals where it is inlined
                    self.found[id(call)] = cst.Subscript(
                        cst.Dict(elements), [cst.SubscriptElement(cst.Index(key))]
                    )

    def _constant_lists(self) -> dict[str, list[tuple[str, cst.SimpleString]]]:
        """Attributes `__init__` sets by a statement of its own to a list or tuple of
        identifier strings (-> each string's value and node), that every method uses only as
        the iterable of a `for`."""
        init = self.methods.get("__init__")
        if init is None:
            return {}
        found = {}
        for stmt in init.body.body:
            if not m.matches(
                stmt,
                m.SimpleStatementLine(
                    [m.Assign([m.AssignTarget(_SELF_ATTR)], m.List() | m.Tuple())]
                ),
            ):
                continue
            assign = stmt.body[0]
            values = [
                (e.value.evaluated_value, e.value.with_changes(lpar=[], rpar=[]))
                for e in assign.value.elements
                if isinstance(e, cst.Element) and isinstance(e.value, cst.SimpleString)
            ]
            if len(values) == len(assign.value.elements) and all(
                isinstance(v, str) and v.isidentifier() for v, _ in values
            ):
                found[assign.targets[0].target.attr.value] = values
        for attr in list(found):
            uses = [
                a
                for method in self.methods.values()
                for a in m.findall(method.body, m.Attribute(m.Name("self"), m.Name(attr)))
            ]
            iterated = {
                id(f.iter)
                for method in self.methods.values()
                for f in m.findall(
                    method.body, m.For(iter=m.Attribute(m.Name("self"), m.Name(attr)))
                )
            }
            stores = [
                t
                for method in self.methods.values()
                for t in m.findall(
                    method.body, m.AssignTarget(m.Attribute(m.Name("self"), m.Name(attr)))
                )
            ]
            iterated |= {id(t.target) for t in stores}
            if len(stores) != 1 or any(id(u) not in iterated for u in uses):
                del found[attr]
        return found


def _prefix(call: cst.Call, variable: str) -> str | None:
    """ "net" of `getattr(self, "net" + name)` (`""` of `getattr(self, name)`), or None."""
    if len(call.args) != 2 or any(a.keyword is not None or a.star for a in call.args):
        return None
    key = call.args[1].value
    if m.matches(key, m.Name(variable)):
        return ""
    if m.matches(key, m.BinaryOperation(m.SimpleString(), m.Add(), m.Name(variable))):
        prefix = key.left.evaluated_value
        return prefix if isinstance(prefix, str) else None
    return None


def _with_named_reads(node: cst.FunctionDef, found: dict) -> cst.FunctionDef:
    """`node` with each `getattr` call of `found` replaced by its lookup (for reading what
    the method reads; the inlined code is made from the method itself)."""

    class Replace(cst.CSTTransformer):
        def leave_Call(self, original, updated):
            return found.get(id(original), updated)

    return node.visit(Replace()) if any(id(c) in found for c in m.findall(node, m.Call())) else node


def _variables(module: cst.Module, name: str) -> list[cst.Name]:
    """The Name nodes spelling the variable `name`: not an attribute's or a keyword's name,
    nor the name a `def`, `class` or parameter declares."""
    spelled = {id(a.attr) for a in m.findall(module, m.Attribute(attr=m.Name(name)))}
    spelled |= {id(a.keyword) for a in m.findall(module, m.Arg(keyword=m.Name(name)))}
    spelled |= {id(p.name) for p in m.findall(module, m.Param(name=m.Name(name)))}
    spelled |= {
        id(d.name)
        for d in m.findall(module, m.FunctionDef(name=m.Name(name)) | m.ClassDef(name=m.Name(name)))
    }
    return [n for n in m.findall(module, m.Name(name)) if id(n) not in spelled]


def _callees(node: cst.FunctionDef, methods: set[str]) -> list[str]:
    return [c.func.attr.value for c in _statement_calls(node.body, "self", methods)]


def _holds(container: cst.CSTNode, node: cst.CSTNode) -> bool:
    return container is not node and any(n is node for n in m.findall(container, type(node)))


def _params(node: cst.FunctionDef) -> list[cst.Param]:
    p = node.params
    return [*p.params[1:], *p.kwonly_params]


def _substitutable(value: cst.BaseExpression) -> bool:
    """A name or a literal: reading it where the parameter was read reads the same value,
    while nothing rebinds the name."""
    if isinstance(value, cst.Name):
        return True
    if isinstance(value, cst.UnaryOperation):
        return isinstance(value.operator, cst.Minus) and _substitutable(value.expression)
    return isinstance(value, (cst.Integer, cst.Float, cst.SimpleString))


def _parameters_once(node: cst.FunctionDef, param: str, value, rebound, writes) -> bool:
    """`value` is `model.parameters()` (timm's `loss_scaler(loss, optimizer,
    parameters=model.parameters())`) and the method reads `param` once, outside any loop or
    comprehension, rebinding neither: the generator made where it is read yields the same
    tensors (clipping reads it as the model's parameters)."""
    if not m.matches(
        value,
        m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("parameters")), args=[]),
    ):
        return False
    if param in rebound or value.func.value.value in rebound | writes:
        return False
    uses = m.findall(node.body, m.Name(param))
    repeated = m.findall(node.body, m.For() | m.While() | _NESTED | m.ListComp() | m.GeneratorExp())
    return len(uses) == 1 and not any(m.findall(r, m.Name(param)) for r in repeated)


def _lead(stmts: list, replaced, pairs) -> list:
    """The first of `stmts` takes the comments and blank lines above `replaced`, and the
    comment ending its line (`model.forward()  # G(A)`) on a line of its own."""
    if not stmts:
        return stmts
    first = stmts[0]
    lines = [*replaced.leading_lines]
    trailing = getattr(replaced, "trailing_whitespace", None)
    if trailing is not None and trailing.comment is not None:
        lines.append(cst.EmptyLine(comment=trailing.comment))
    new = first.with_changes(leading_lines=[*lines, *first.leading_lines])
    for index, (node, source) in enumerate(pairs):
        if node is first:
            pairs[index] = (new, source)
    return [new, *stmts[1:]]
