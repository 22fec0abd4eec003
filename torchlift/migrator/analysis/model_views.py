"""Names holding the model's own objects: its parameters, submodules or their gradients.

    parameters = list(model.parameters())          `parameters` holds the model's tensors:
    named = dict(model.named_parameters())         code reading it after optimizer.step()
    head = model[-1]                               reads what the step changed (`p.grad`,
    params = optimizer.param_groups[0]["params"]   `p.data`), as a read of `model` does

A name is such a view when a statement binds it, or fills it (`decay.append(p)`), from an
expression using the model other than by calling it: `model(x)` or a method of the model's
own, `model.loss_fn(out, y)`, computes a new value; `model.parameters()`, `model[-1]`,
`model.fc.weight` or `model` itself hand out the model's objects. The same for the names built from such a view (`ps = [p for p in parameters]`), and
for an optimizer's `param_groups` / `state` (the model's tensors and their moments). A name
computed from a view (`n = sum(p.numel() for p in parameters)`) counts too: reading it after
the step where the script read it is what the script did, and telling a count from a tensor
would take the types.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .names import bound_names, collect_names

_FILLING = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})

# nn.Module's methods returning the module's own objects (any other method of the model
# called on it, `model.encode(x)`, computes a value; `model.fc.weight.t()` is a view still)
_HANDING_OUT = frozenset(
    {
        *("parameters", "named_parameters", "buffers", "named_buffers", "state_dict"),
        *("children", "named_children", "modules", "named_modules"),
        *("get_parameter", "get_buffer", "get_submodule"),
    }
)

# an optimizer's attributes holding the model's parameters or the moments its step changes
_OPTIMIZER_VIEWS = frozenset({"param_groups", "state", "state_dict"})


def model_views(statements, models: set[str], optimizers: set[str] = frozenset()) -> set[str]:
    """The names `statements` (in order, one scope) bind or fill from the `models`' objects,
    directly or through names bound so, or from the `optimizers`' parameter groups or state.
    The models and optimizers themselves are not among them."""
    views: set[str] = set()
    changed = True
    while changed:  # a view built later in the list from one built earlier, or in a loop
        changed = False
        for stmt in statements:
            if not (_hands_out(stmt, models | views) or _optimizer_view(stmt, optimizers)):
                continue
            new = (bound_names(stmt) | _filled(stmt)) - views - models - optimizers
            if new:
                views |= new
                changed = True
    return views


def _hands_out(stmt, names: set[str]) -> bool:
    """`stmt` reads one of `names` other than as the callee of a call (`model(x)`)."""
    if not collect_names(stmt).reads & names:
        return False
    finder = _NonCalleeUse(names)
    stmt.visit(finder)
    return finder.found


def _optimizer_view(stmt, optimizers: set[str]) -> bool:
    attribute = m.Attribute(
        value=m.Name(m.MatchIfTrue(lambda n: n in optimizers)),
        attr=m.Name(m.MatchIfTrue(lambda n: n in _OPTIMIZER_VIEWS)),
    )
    return bool(optimizers) and bool(m.findall(stmt, attribute))


def reads_optimizer_tensors(stmt, optimizers: set[str]) -> bool:
    """`stmt` reads the tensors an optimizer holds: its `state` (`state_dict()`), or the
    "params" of its `param_groups` (a group's "lr" alone is no tensor: Lightning's scheduler
    step, not the optimizer's, changes it)."""
    if not optimizers or not collect_names(stmt).reads & optimizers:
        return False
    owned = m.Name(m.MatchIfTrue(lambda n: n in optimizers))
    if m.findall(stmt, m.Attribute(value=owned, attr=m.Name("state") | m.Name("state_dict"))):
        return True
    if not m.findall(stmt, m.Attribute(value=owned, attr=m.Name("param_groups"))):
        return False
    key = m.SubscriptElement(m.Index(m.SimpleString(m.MatchIfTrue(_is_params_key))))
    return bool(m.findall(stmt, m.Subscript(slice=[key])))


def _is_params_key(literal: str) -> bool:
    return literal.strip("\"'") == "params"


def _filled(stmt) -> set[str]:
    """The names `stmt` adds to in place (`name.append(p)`, `name[k] = p`)."""
    filled = set()
    for call in m.findall(stmt, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name()))):
        if call.func.attr.value in _FILLING:
            filled.add(call.func.value.value)
    for target in m.findall(stmt, m.AssignTarget(target=m.Subscript(value=m.Name()))):
        filled.add(target.target.value.value)
    return filled


class _NonCalleeUse(cst.CSTVisitor):
    """Finds a use of one of `names` that is not the callee of a call nor an attribute's
    name (`x.model` is no read of `model`)."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.found = False
        self._skip: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name):  # `model(x)`: a new tensor
            self._skip.add(id(func))
        elif (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.attr.value not in _HANDING_OUT
        ):  # `model.loss_fn(out, y)`, `model.encode(x)`: a method computing a value
            self._skip.add(id(func.value))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._skip.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names and id(node) not in self._skip:
            self.found = True
