"""The parameter groups an optimizer function of the script builds (optimizer_factories.py).

    def build_optimizer(cfg, model):
        decay, no_decay = [], []
        for n, p in model.named_parameters():
            if p.ndim < 2 or n.endswith(".bias"):
                no_decay.append(p)
            else:
                decay.append(p)
        groups = [{"params": decay, "weight_decay": cfg.wd},
                  {"params": no_decay, "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=cfg.lr)

The conversion calls the function again in configure_optimizers with the module's model (the
same object, so the same names and the same parameters in the same order): the groups it
builds there are the script's, as long as the function only computes (checked by
scheduler_factories._effect). What this module reads is which models the groups hold, and
which calls of the function only fill its own lists or read a parameter's name:

- a group list: a display of dict displays, each with a `"params"` entry, bound once to a
  local the function uses nowhere else than as the optimizer's parameters;
- a group's `"params"`: `<model>.parameters()` itself, or a local bound once to a new empty
  list (`decay, no_decay = [], []`), used nowhere else than filled by `.append(p)` in a loop
  `for p in model.parameters()` / `for n, p in model.named_parameters()` that does not rebind
  `p` (so it holds only that model's parameters, in its order);
- the name `n` of such a loop is a str: its methods (`n.endswith(".bias")`) only compute.

Anything else is not read (the caller refuses: "builds it on something other than ...").
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.dict_entries import dict_entry
from ..analysis.names import bound_names, collect_names
from .factories import _local_value

PARAMETERS = m.Call(
    func=m.Attribute(value=m.Name(), attr=m.Name("parameters") | m.Name("named_parameters"))
)
# str methods: each returns a new value and changes nothing
_STR_METHODS = frozenset(name for name in dir(str) if not name.startswith("_"))


def group_models(function: cst.FunctionDef, params: cst.BaseExpression, uses: list):
    """(models, calls) for the parameters `params` of an optimizer the function builds: the
    names whose `parameters()` they hold, and the calls that only fill its lists or read a
    parameter's name; None when they are not read as built from models' parameters. `uses`
    are the optimizers' parameter arguments (one per alternative `return`)."""
    if isinstance(params, cst.Name):
        if not _used_once(function, params.value, uses):
            return None
        params = _local_value(function, params.value)
    if not isinstance(params, (cst.List, cst.Tuple)) or not params.elements:
        return None
    models: list[str] = []
    calls: list[cst.Call] = []
    for element in params.elements:
        if not isinstance(element, cst.Element) or not isinstance(element.value, cst.Dict):
            return None
        held = dict_entry(None, element.value, "params")
        if isinstance(held, str):
            return None
        found = _held(function, held)
        if found is None:
            return None
        models += found[0]
        calls += found[1]
    return list(dict.fromkeys(models)), calls


def _held(function: cst.FunctionDef, held: cst.BaseExpression):
    """(models, calls) for one group's `"params"` value, or None."""
    if m.matches(held, PARAMETERS):
        return [held.func.value.value], []
    if not isinstance(held, cst.Name) or not _fresh_list(function, held.value):
        return None
    name = held.value
    appends = [
        c
        for c in m.findall(function, m.Call(func=m.Attribute(value=m.Name(name))))
        if m.matches(c.func.attr, m.Name("append"))
    ]
    uses = [n for n in m.findall(function, m.Name(name)) if n is not held]
    # the binding's target, one receiver per append: nothing else reads or changes the list
    if len(uses) != 1 + len(appends):
        return None
    models, calls = [], list(appends)
    for append in appends:
        loop = _filling_loop(function, append)
        if loop is None:
            return None
        models.append(loop.iter.func.value.value)
        calls += _name_reads(loop)
    return models, calls


def _used_once(function: cst.FunctionDef, name: str, uses: list) -> bool:
    """`name` is read nowhere in the function but at `uses` (its one binding aside)."""
    others = [n for n in m.findall(function, m.Name(name)) if not any(n is u for u in uses)]
    return len(others) == 1


def _fresh_list(function: cst.FunctionDef, name: str) -> bool:
    """`name` is bound once in the function's body, to a new empty list (`x = []`, or one
    position of `a, b = [], []`)."""
    bindings = [s for s in function.body.body if name in bound_names(s)]
    if len(bindings) != 1 or not isinstance(bindings[0], cst.SimpleStatementLine):
        return False
    assign = bindings[0].body[0]
    if len(bindings[0].body) != 1 or not isinstance(assign, cst.Assign):
        return False
    if len(assign.targets) != 1:
        return False
    target, value = assign.targets[0].target, assign.value
    if isinstance(target, cst.Name):
        return target.value == name and _empty_list(value)
    if not isinstance(target, cst.Tuple) or not isinstance(value, cst.Tuple):
        return False
    if len(target.elements) != len(value.elements):
        return False
    for t, v in zip(target.elements, value.elements):
        if isinstance(t, cst.StarredElement) or isinstance(v, cst.StarredElement):
            return False
        if m.matches(t.value, m.Name(name)):
            return _empty_list(v.value)
    return False


def _empty_list(value) -> bool:
    return isinstance(value, cst.List) and not value.elements


def _filling_loop(function: cst.FunctionDef, append: cst.Call) -> cst.For | None:
    """The loop over `<model>.parameters()` / `.named_parameters()` holding the statement
    `x.append(p)`, `p` its parameter variable and not rebound in it; None otherwise."""
    if len(append.args) != 1 or append.args[0].keyword or append.args[0].star:
        return None
    value = append.args[0].value
    for loop in m.findall(function, m.For(iter=PARAMETERS)):
        if not any(c is append for c in m.findall(loop.body, m.Call())):
            continue
        variable = _parameter_variable(loop)
        if (
            variable is None
            or not m.matches(value, m.Name(variable))
            or variable in collect_names(loop.body).writes
            or loop.asynchronous is not None
            or not isinstance(loop.iter.func.value, cst.Name)
        ):
            return None
        return loop
    return None


def _parameter_variable(loop: cst.For) -> str | None:
    """The loop variable holding a parameter: `p` of `for p in m.parameters()` or of
    `for n, p in m.named_parameters()`."""
    target = loop.target
    if loop.iter.func.attr.value == "parameters":
        return target.value if isinstance(target, cst.Name) else None
    if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
        second = target.elements[1]
        if isinstance(second, cst.Element) and isinstance(second.value, cst.Name):
            return second.value.value
    return None


def _name_reads(loop: cst.For) -> list[cst.Call]:
    """Calls of str methods on the name `n` of `for n, p in m.named_parameters()`, when the
    loop does not rebind it."""
    target = loop.target
    if loop.iter.func.attr.value != "named_parameters" or not isinstance(target, cst.Tuple):
        return []
    first = target.elements[0]
    if not isinstance(first, cst.Element) or not isinstance(first.value, cst.Name):
        return []
    name = first.value.value
    if name in collect_names(loop.body).writes:
        return []
    method = m.Call(func=m.Attribute(value=m.Name(name), attr=m.Name()))
    return [c for c in m.findall(loop.body, method) if c.func.attr.value in _STR_METHODS]
