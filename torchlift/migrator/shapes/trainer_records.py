"""A function given the trainer only to read its attributes: given those attributes (TL157).

    def eval_split(trainer, split):                 def eval_split(device, split):
        x = x.to(trainer.device)            ->          x = x.to(device)
        ...                                             ...

    eval_split(trainer, "test")                     eval_split(trainer.device, "test")
    (in the class: eval_split(self, "train"))       (in the class: eval_split(self.device, "train"))

minGPT's scripts hand the trainer to their evaluation function, which reads `trainer.device`
and nothing else of it. Once the class is inlined (trainer_inline.py) the trainer is no object
any more, only its attributes, so the function is given those it reads, read where it is
called. That is the same value: the function cannot change the trainer (it only reads
attributes of it: no store, no method call, never passes it on), nor can anything it calls
(the trainer reaches them only through it), and each attribute it reads is set for sure once
the trainer exists (by a statement of `__init__`, or by every branch of an `if` there), so
reading it early never fails where the function would not have read it.

Every use of the function must be such a call (the trainer, or `self` in the class's methods,
as the same positional argument); the parameter is replaced by parameters named after the
attributes, which must mean nothing else in the function. Otherwise TL172 names why. The
result is never written itself: the class is inlined next.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

from ..analysis.names import collect_names, only_module_binding
from ..rule import Rule, Unsupported
from .trainer_class import SELF_ESCAPES
from .trainer_inline import line_origin, run_blocks
from .trainer_static import kept_members

RECORD_READS = Rule(
    "TL157",
    "a function given the trainer instance only to read its attributes was given those instead",
    """A function of the script called with the trainer (`eval_split(trainer, "test")`, or
    `self` in the class) that only reads attributes of it (`trainer.device`) is given those
    attributes, read where it is called; each is set for sure by `__init__`, and the function
    cannot change the trainer meanwhile. Then the class is inlined (TL170).""",
    "Nothing to do; review the diff.",
    """
class Runner:
    def __init__(self, net, data):
        self.net = net
        self.data = data
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
        self.scale = 2.0

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.data:
                self.opt.zero_grad()
                loss = criterion(self.net(x), y) * self.scale
                loss.backward()
                self.opt.step()
            report(self, epoch)


def report(runner, epoch):
    print(epoch, runner.net.weight.norm().item() * runner.scale)


runner = Runner(model, loader)
runner.fit(2)
report(runner, 2)
""",
    converts=True,
)

RULES = (RECORD_READS,)


def pass_attributes(module: cst.Module, cls: cst.ClassDef):
    """(text, origin, indent, at, message) of the script with each function given the
    instance reading only its attributes given those; None when no module function is
    called with it; Unsupported (TL172) for such a function that does more with it."""
    owner = cls.name.value
    creations = [
        (stmt, scope)
        for block, scope, loops in run_blocks(module)
        for stmt in block
        if not loops
        and m.matches(
            stmt,
            m.SimpleStatementLine(
                [m.Assign([m.AssignTarget(m.Name())], m.Call(func=m.Name(owner)))]
            ),
        )
    ]
    if len(creations) != 1 or not isinstance(creations[0][1], (cst.Module, cst.If)):
        return None  # trainer_inline.py tells why it is not used once at module level
    created = creations[0][0]
    instance = created.body[0].targets[0].target.value
    methods = [s for s in cls.body.body if isinstance(s, cst.FunctionDef)]
    # calls in a function (its own `trainer`, or the module's read freely) are other uses
    nested = {
        id(c)
        for d in m.findall(module, m.FunctionDef() | m.ClassDef() | m.Lambda())
        for c in m.findall(d, m.Call())
    }
    calls = []  # (call, position of the instance among its arguments, that argument)
    for scope, receiver in [(module, instance)] + [(meth, "self") for meth in methods]:
        for call in m.findall(scope, m.Call(func=m.Name())):
            if scope is module and id(call) in nested:
                continue
            for k, arg in enumerate(call.args):
                if m.matches(arg.value, m.Name(receiver)):
                    calls.append((call, k, arg))
    functions: dict[str, tuple[cst.FunctionDef, int]] = {}
    for call, k, arg in calls:
        name = call.func.value
        function = only_module_binding(module, name)
        if not isinstance(function, cst.FunctionDef):
            continue  # a builtin, a local: trainer_inline.py refuses it where it runs (TL172)
        if arg.keyword is not None or any(a.star for a in call.args[: k + 1]):
            _refuse(f"`{name}(...)` is given the trainer by keyword or after `*` arguments", call)
        if functions.setdefault(name, (function, k)) != (function, k):
            _refuse(f"`{name}(...)` is given the trainer as different arguments", call)
    if not functions:
        return None
    attributes = {name: _reads(module, cls, f, k) for name, (f, k) in functions.items()}
    given = {id(call): (call.func.value, k) for call, k, _ in calls if call.func.value in functions}
    for name, (function, _) in functions.items():
        uses = [
            n
            for n in m.findall(module, m.Name(name))
            if n is not function.name and not any(n is call.func for call, _, _ in calls)
        ]
        if uses:
            _refuse(f"`{name}` is given the trainer and used otherwise than called", function)
    pairs: list = []
    flat = module.visit(_Rewrite(functions, attributes, given, pairs))
    origin, indent = line_origin(module, flat, pairs)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    first = min(
        (positions[f].start for f, _ in functions.values()), key=lambda p: (p.line, p.column)
    )
    told = ", ".join(
        f"`{name}()` reads {', '.join(f'`.{a}`' for a in attributes[name])}" for name in functions
    )
    message = f"functions given `{instance}` only to read its attributes are given those: {told}"
    return flat.code, origin, indent, (first.line, first.column), message


def _refuse(why: str, node) -> None:
    raise Unsupported(SELF_ESCAPES, why, node)


def _reads(module, cls: cst.ClassDef, function: cst.FunctionDef, k: int) -> list[str]:
    """The attributes `function` reads of its parameter `k`, checked to be all it does with
    it, in the order of first use."""
    name = function.name.value
    params = function.params
    positional = [*params.posonly_params, *params.params]
    if function.decorators or function.asynchronous or k >= len(positional):
        _refuse(f"`{name}()` is decorated, async, or takes the trainer in `*args`", function)
    param = positional[k].name.value
    if positional[k].default is not None:
        _refuse(f"`{name}()` has a default for `{param}`, the trainer", function)
    own = collect_names(function.body)
    if param in own.writes or m.findall(
        function.body, m.FunctionDef() | m.Lambda() | m.ClassDef() | m.Global() | m.Nonlocal()
    ):
        _refuse(
            f"`{name}()` rebinds its parameter `{param}`, or defines a nested function or "
            "class, or declares `global`",
            function,
        )
    reads = [
        a
        for a in m.findall(function.body, m.Attribute(value=m.Name(param)))
        if isinstance(a.value, cst.Name)
    ]
    read_ids = {id(a.value) for a in reads}
    if any(id(n) not in read_ids for n in m.findall(function.body, m.Name(param))):
        _refuse(
            f"`{name}()` uses `{param}` (the trainer) other than to read its attributes", function
        )
    stored = {
        id(t.target)
        for t in m.findall(function.body, m.AssignTarget() | m.AugAssign() | m.AnnAssign())
    }
    stored |= {id(d.target) for d in m.findall(function.body, m.Del())}
    called = {id(c.func) for c in m.findall(function.body, m.Call())}
    methods = {s.name.value for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    sure = _set_for_sure(_init(cls))
    found: list[str] = []
    for attribute in reads:
        attr = attribute.attr.value
        if id(attribute) in stored or id(attribute) in called or attr in methods:
            _refuse(
                f"`{name}()` sets, deletes or calls `{param}.{attr}` (the trainer's): not only "
                "a read",
                function,
            )
        if attr not in sure:
            _refuse(
                f"`{name}()` reads `{param}.{attr}`, which `__init__` does not set for sure: "
                "read where the function is called, it might not exist yet",
                function,
            )
        if attr not in found:
            found.append(attr)
    others = {p.name.value for p in [*positional, *params.kwonly_params]} - {param}
    if params.star_arg is not None and isinstance(params.star_arg, cst.Param):
        others.add(params.star_arg.name.value)
    if params.star_kwarg is not None:
        others.add(params.star_kwarg.name.value)
    meets = sorted(set(found) & (own.all() | others | kept_members(cls)))
    if meets:
        _refuse(
            f"`{name}()` reads `{param}.{meets[0]}` and also uses the name `{meets[0]}`: given "
            "the attribute as a parameter of that name, they would meet",
            function,
        )
    return found


def _init(cls: cst.ClassDef) -> list:
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            return list(stmt.body.body)
    return []


def _set_for_sure(statements: list) -> set[str]:
    """Attributes of `self` the statements set on every path: by a statement of their own,
    or by every branch of an `if` / `elif` / `else`."""
    found: set[str] = set()
    for stmt in statements:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                targets = [t.target for t in getattr(small, "targets", [])]
                if isinstance(small, cst.AnnAssign):
                    targets.append(small.target)
                for target in targets:
                    for element in [target, *m.findall(target, m.Attribute())]:
                        if m.matches(element, m.Attribute(m.Name("self"), m.Name())):
                            found.add(element.attr.value)
        elif isinstance(stmt, cst.If):
            found |= _branches(stmt)
    return found


def _branches(stmt: cst.If) -> set[str]:
    body = _set_for_sure(list(stmt.body.body))
    orelse = stmt.orelse
    if orelse is None:
        return set()
    other = (
        _branches(orelse) if isinstance(orelse, cst.If) else _set_for_sure(list(orelse.body.body))
    )
    return body & other


class _Rewrite(cst.CSTTransformer):
    """The functions' parameter replaced by the attributes, `param.attr` by `attr`; the calls
    given `receiver.attr, ...` in the parameter's place. Every statement paired with the one it
    came from (for line_origin)."""

    def __init__(self, functions, attributes, given, pairs: list) -> None:
        super().__init__()
        self.functions, self.attributes, self.given, self.pairs = (
            functions,
            attributes,
            given,
            pairs,
        )
        self.inside: list[tuple[str, str]] = []  # (function, its parameter) being rewritten

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if isinstance(original, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self.pairs.append((result, original))
        return result

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        name = node.name.value
        if name in self.functions and self.functions[name][0] is node:
            function, k = self.functions[name]
            positional = [*node.params.posonly_params, *node.params.params]
            self.inside.append((name, positional[k].name.value))

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef):
        name = original.name.value
        if not (name in self.functions and self.functions[name][0] is original):
            return updated
        self.inside.pop()
        k = self.functions[name][1]
        params = updated.params
        posonly = len(params.posonly_params)
        group = "posonly_params" if k < posonly else "params"
        index = k if k < posonly else k - posonly
        current = list(getattr(params, group))
        new = [cst.Param(cst.Name(a)) for a in self.attributes[name]]
        current[index : index + 1] = new
        return updated.with_changes(params=params.with_changes(**{group: current}))

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        if self.inside and m.matches(updated, m.Attribute(m.Name(self.inside[-1][1]), m.Name())):
            return cst.Name(updated.attr.value)
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        found = self.given.get(id(original))
        if found is None:
            return updated
        name, k = found
        receiver = original.args[k].value
        args = list(updated.args)
        args[k : k + 1] = [
            cst.Arg(cst.Attribute(receiver, cst.Name(a))) for a in self.attributes[name]
        ]
        return updated.with_changes(args=args)
