"""A torch module that trains itself: the method holding the loop becomes a module function.

    class Net(nn.Module):                        class Net(nn.Module):
        def forward(self, x): ...                    def forward(self, x): ...
        def fit(self, loader, epochs=5):
            opt = Adam(self.parameters())   ->   def fit(model, loader, epochs=5):
            for epoch in range(epochs):              opt = Adam(model.parameters())
                for x, y in loader:                  for epoch in range(epochs):
                    ... self(x) ...                      for x, y in loader: ... model(x) ...

    model = Net()                                model = Net()
    model.fit(loader, epochs=3)                  fit(model, loader, epochs=3)

`model.fit(loader, epochs=3)` runs `Net.fit(model, loader, epochs=3)`: the method is a function
whose first parameter is the instance. Moved out of the class, `self` renamed to the instance's
name, it is a training function called once with the model, which the loop shapes convert
(helpers.py); the flat script is never written itself. The LightningModule then holds the model
and the function builds the Trainer; the model keeps every other method (`predict`).

Only when that is all the method is (TL198 otherwise): a plain method (no decorator, `self`
first, no `super()`, `__class__` or private `self.__x` names, which mean something only inside
the class), no other method calling it, the method's name used nowhere else in the file, and
one call `name.method(...)` (a statement, or `x = name.method(...)`) after `name = Class(...)`
in the same block, the name rebound by nothing between.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names, mentions, rename
from ..result import MigrationResult
from ..rule import Rule, Unsupported
from ..source.code_text import code_of
from ..source.find_loops import cst_contains
from .trainer_inline import instance_blocks, line_origin, remap_lines

HOISTED = Rule(
    "TL198",
    "a torch module's own training method became a function taking the model",
    """A model class whose method holds the training loop (`model.fit(loader)`, Keras or
    scikit-learn style) trains itself: the LightningModule would have to hold the module that
    owns its loop. `model.fit(...)` is `Net.fit(model, ...)`, so the method moves out of the
    class as a function of that instance (`self` -> the instance's name) and the call becomes
    `fit(model, ...)`; then the loop converts like a training function's. Refused with this
    code when the method is not plain (decorated, `super()`, `__class__`, private
    `self.__x` names), is called by another method or more than once, its name is used
    elsewhere in the file, or the instance is not created by `name = Class(...)` in the
    block that calls it.""",
    """Nothing to do when converted; review the diff (other modules calling `Net.fit` would
    call the function instead). When refused, move the loop into a function taking the
    model.""",
    """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

    def fit(self, data, epochs):
        opt = torch.optim.SGD(self.parameters(), lr=0.1)
        for epoch in range(epochs):
            for x, y in data:
                opt.zero_grad()
                loss = criterion(self(x), y)
                loss.backward()
                opt.step()


net = Net()
net.fit(loader, 2)
""",
    converts=True,
)


@dataclass
class Hoisted:
    """The flat script, where its lines came from, and what the change log says of it."""

    text: str
    origin: list[int]  # origin[line - 1]: the original line a flat line came from
    indent: list[int]
    message: str


def is_torch_module(cls: cst.ClassDef) -> bool:
    """`nn.Module`, `torch.nn.Linear`, ... as a class's base is usually spelled."""
    bases = [code_of(base.value) for base in cls.bases]
    return any(b == "Module" or b.startswith(("nn.", "torch.nn.")) for b in bases)


def hoist_training_method(module: cst.Module, cls: cst.ClassDef, loops) -> Hoisted:
    """The script with the method of `cls` holding `loops` moved out as a function of the
    instance, or Unsupported (TL198) naming why that would not run the same code."""
    owner = cls.name.value
    methods = [s for s in cls.body.body if isinstance(s, cst.FunctionDef)]
    holders = [f for f in methods if any(cst_contains(f, loop) for loop in loops)]
    if len(holders) != 1:
        raise Unsupported(
            HOISTED, f"training loops in {len(holders)} methods of `{owner}`: not moved out", cls
        )
    method = holders[0]
    name = method.name.value
    where = f"`{owner}.{name}`"
    _check_plain(method, where)
    for other in methods:
        if other is not method and m.findall(
            other, m.Attribute(value=m.Name("self"), attr=m.Name(name))
        ):
            raise Unsupported(
                HOISTED,
                f"{where} is used by `{owner}.{other.name.value}` too: not moved out",
                other,
            )
    holder, run, call = _call_site(module, cls, method)
    instance = call.func.value.value
    if instance in mentions(method) or name in _other_uses(module, method):
        clash = instance if instance in mentions(method) else name
        raise Unsupported(
            HOISTED,
            f"`{clash}` already means something else where {where} would become a function "
            f"of `{instance}`",
            method,
        )
    function = _as_function(method, instance)
    new_call = call.with_changes(
        func=cst.Name(name), args=[cst.Arg(cst.Name(instance)), *call.args]
    )
    new_run = run.with_changes(body=[_replace_call(run.body[0], new_call)])
    new_class = cls.with_changes(
        body=cls.body.with_changes(body=[s for s in cls.body.body if s is not method])
    )
    pairs = [(new_class, cls), (function, method), (new_run, run)]
    pairs += [(s, s) for s in new_class.body.body]
    pairs += list(zip(function.body.body, method.body.body))
    new_owner = holder
    if holder is not module:  # the call is in a function or `if __name__ == "__main__":`
        inner = [new_run if s is run else s for s in holder.body.body]
        new_owner = holder.with_changes(body=holder.body.with_changes(body=inner))
        pairs += [(new_owner, holder), *[(s, s) for s in inner if s is not new_run]]
    body = []
    for stmt in module.body:
        if stmt is cls:
            body += [new_class, function]
        elif stmt is run:
            body.append(new_run)
        elif stmt is holder:
            body.append(new_owner)
        else:
            body.append(stmt)
            pairs.append((stmt, stmt))
    flat = module.with_changes(body=body)
    origin, indent = line_origin(module, flat, pairs)
    message = (
        f"{where} (the loop of a model training itself) moved out of the class as "
        f"`{name}({instance}, ...)`, the call `{instance}.{name}(...)` now `{name}({instance}, ...)`"
    )
    return Hoisted(flat.code, origin, indent, message)


def remap_hoisted(result: MigrationResult, hoisted: Hoisted, text: str, at) -> MigrationResult:
    return remap_lines(
        result, hoisted.origin, hoisted.indent, text, at, HOISTED.code, hoisted.message
    )


def _check_plain(method: cst.FunctionDef, where: str) -> None:
    params = method.params
    first = params.params[0].name.value if params.params else None
    if method.decorators or method.asynchronous or first != "self" or params.posonly_params:
        raise Unsupported(HOISTED, f"{where} is not a plain method taking `self` first", method)
    if m.findall(method, m.Call(func=m.Name("super")) | m.Name("__class__")):
        raise Unsupported(
            HOISTED, f"{where} calls `super()` or reads `__class__`: it needs its class", method
        )
    private = [
        n.value
        for n in m.findall(method, m.Name())
        if n.value.startswith("__") and not n.value.endswith("__")
    ]
    if private:
        raise Unsupported(
            HOISTED,
            f"{where} uses `{private[0]}`, a private name Python spells differently inside the "
            "class",
            method,
        )


def _call_site(module: cst.Module, cls: cst.ClassDef, method: cst.FunctionDef):
    """(module or statement holding the block, statement running the method, its call), or
    Unsupported."""
    owner, name = cls.name.value, method.name.value
    uses = [
        a for a in m.findall(module, m.Attribute(attr=m.Name(name))) if not cst_contains(cls, a)
    ]
    refusal = (
        f"`{owner}.{name}` is not run by one call `name.{name}(...)` after `name = {owner}(...)` "
        "in the same block"
    )
    if len(uses) != 1:
        raise Unsupported(HOISTED, refusal, method)
    for block, holder in instance_blocks(module):
        for index, stmt in enumerate(block):
            call = _running_call(stmt, uses[0])
            if call is None:
                continue
            instance = call.func.value.value
            if not _created(block[:index], instance, owner) or any(a.star for a in call.args):
                raise Unsupported(HOISTED, refusal, stmt)
            return holder, stmt, call
    raise Unsupported(HOISTED, refusal, method)


def _running_call(stmt, attribute: cst.Attribute) -> cst.Call | None:
    """The call `name.method(...)` of `attribute` when `stmt` is that call or `x = ` it."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Expr):
        value = small.value
    elif m.matches(small, m.Assign([m.AssignTarget(m.Name())])):
        value = small.value
    else:
        return None
    if m.matches(value, m.Call(func=m.Attribute(value=m.Name()))) and value.func is attribute:
        return value
    return None


def _created(before: list, instance: str, owner: str) -> bool:
    """Whether the last statement of `before` binding `instance` is `instance = Owner(...)`
    (maybe `.to(...)`/`.cuda()` after)."""
    created = m.Call(func=m.Name(owner)) | m.Call(
        func=m.Attribute(value=m.Call(func=m.Name(owner)), attr=m.Name("to") | m.Name("cuda"))
    )
    for stmt in reversed(before):
        if instance not in collect_names(stmt).writes:
            continue
        if m.matches(stmt, m.SimpleStatementLine([m.Assign([m.AssignTarget(m.Name())], created)])):
            return True
        return False
    return False


def _replace_call(small, call: cst.Call):
    """`small` (`f(...)` or `x = f(...)`) calling `call` instead."""
    return small.with_changes(value=call)


def _other_uses(module: cst.Module, method: cst.FunctionDef) -> set[str]:
    """The names the file spells outside attribute names, keywords and `method`'s own name."""
    skip = {id(method.name)}
    skip |= {id(a.attr) for a in m.findall(module, m.Attribute())}
    skip |= {id(a.keyword) for a in m.findall(module, m.Arg()) if a.keyword is not None}
    return {n.value for n in m.findall(module, m.Name()) if id(n) not in skip}


def _as_function(method: cst.FunctionDef, instance: str) -> cst.FunctionDef:
    params = method.params
    first = params.params[0].with_changes(name=cst.Name(instance))
    body = rename(method.body, {"self": cst.Name(instance)})
    return method.with_changes(
        params=params.with_changes(params=[first, *params.params[1:]]),
        body=body,
        leading_lines=[cst.EmptyLine(), cst.EmptyLine()],
    )


RULES = (HOISTED,)
