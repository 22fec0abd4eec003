"""The parameters an optimizer function of the script builds its optimizer on
(optimizer_factories.py): which models they come from, and which calls only gather them.

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
scheduler_factories._effect). What this module reads is which models the parameters come
from (the LightningModule must hold them), and which calls of the function only gather them
into its own new lists or read a parameter's name. The parameters, or a group's `"params"`:

- `<model>.parameters()`, also of a submodule (`model.backbone.parameters()`,
  `model.layers[0].parameters()`): its root `model` is what the module holds;
- `filter(lambda p: ..., <parameters>)`, `list(...)` / `tuple(...)` of parameters,
  `itertools.chain(<parameters>, ...)`, `<list> + <list>`;
- a comprehension keeping a parameter loop's variable, `[p for p in <parameters> if ...]`,
  `[p for n, p in model.named_parameters() if "bias" not in n]`;
- a group list: a display of dict displays, each with a `"params"` entry;
- a local bound once to one of these, read nowhere else; or a local bound once to a new list
  (`[]`, `decay, no_decay = [], []`, or one of these) read nowhere else than filled by
  `.append(p)` in a loop `for p in model.parameters()` / `for n, p in
  model.named_parameters()` that does not rebind `p`, by `.extend(<parameters>)` or by
  `+= <parameters>`; the list filled may be chosen per parameter, `(no_decay if p.ndim < 2
  else decay).append(p)`: each list it may choose is filled by that call;
- the name `n` of such a loop or comprehension is a str: its methods (`n.endswith(".bias")`)
  only compute.

Anything else is not read (the caller refuses: "builds it on something other than ...").
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.dict_entries import dict_entry
from ..analysis.names import bound_names, collect_names
from .factories import _local_value
from .module_zero_grad import dotted_path

PARAMETERS = m.Call(
    func=m.Attribute(attr=m.Name("parameters") | m.Name("named_parameters")), args=[]
)
# str methods: each returns a new value and changes nothing
_STR_METHODS = frozenset(name for name in dir(str) if not name.startswith("_"))
# calls that build a new sequence or iterator of what they are given, and change nothing
_GATHERING = frozenset({"builtins.list", "builtins.tuple", "itertools.chain"})


def group_models(ctx, function: cst.FunctionDef, params: cst.BaseExpression, uses: list):
    """(models, calls) for the parameters `params` of an optimizer the function builds: the
    names whose `parameters()` they hold, and the calls that only gather them or read a
    parameter's name; None when they are not read as built from models' parameters. `uses`
    are the optimizers' parameter arguments (one per alternative `return`)."""
    reader = _Reader(ctx, function)
    models = reader.source(params, uses)
    if models is None:
        return None
    return list(dict.fromkeys(models)), reader.calls


def parameters_root(call) -> str | None:
    """`model` for `model.parameters()` and for a submodule's (`model.fc.parameters()`,
    `model.layers[0].parameters()`); None for anything else."""
    if not m.matches(call, PARAMETERS):
        return None
    path = dotted_path(call.func.value)
    return None if path is None else path.split(".")[0]


class _Reader:
    def __init__(self, ctx, function: cst.FunctionDef):
        self.ctx = ctx
        self.function = function
        self.calls: list[cst.Call] = []  # the calls that only gather parameters

    def source(self, node, readers: list | None = None) -> list[str] | None:
        """The models whose parameters `node` holds; None when not read. `readers`: the
        places allowed to read a local `node` names (default: `node` itself)."""
        if isinstance(node, cst.Name):
            return self._local(node, readers if readers is not None else [node])
        root = parameters_root(node)
        if root is not None:
            return [root]
        if isinstance(node, (cst.List, cst.Tuple)):
            return self._groups(node)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            return self._all([node.left, node.right])
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            return self._comprehension(node)
        if isinstance(node, cst.Call) and not any(a.keyword or a.star for a in node.args):
            names = self.ctx.call_qualnames(node)
            values = [a.value for a in node.args]
            if names == {"builtins.filter"} and len(values) == 2:
                if isinstance(values[0], cst.Lambda):  # checked with the function's body
                    return self.source(values[1])
                return None
            if names and names <= _GATHERING and values:
                if len(values) > 1 and names != {"itertools.chain"}:
                    return None
                self.calls.append(node)
                return self._all(values)
        return None

    def _all(self, nodes) -> list[str] | None:
        found = []
        for node in nodes:
            models = self.source(node)
            if models is None:
                return None
            found += models
        return found

    def _groups(self, display) -> list[str] | None:
        """A display of dict displays, each with a `"params"` entry."""
        if not display.elements:
            return None
        found = []
        for element in display.elements:
            if not isinstance(element, cst.Element) or not isinstance(element.value, cst.Dict):
                return None
            held = dict_entry(None, element.value, "params")
            if held is None or isinstance(held, str):
                return None
            models = self.source(held)
            if models is None:
                return None
            found += models
        return found

    def _comprehension(self, comp) -> list[str] | None:
        """`[p for p in <parameters> if ...]`, `(p for n, p in m.named_parameters() if ...)`."""
        loop = comp.for_in
        if loop.inner_for_in is not None or loop.asynchronous is not None:
            return None
        variable = _parameter_variable(loop)
        if variable is None or not m.matches(comp.elt, m.Name(variable)):
            return None
        self.calls += _name_reads(loop, loop.ifs)
        if m.matches(loop.iter, m.Call(func=m.Attribute(attr=m.Name("named_parameters")))):
            root = parameters_root(loop.iter)
            return None if root is None else [root]
        return self.source(loop.iter)

    def _local(self, name: cst.Name, readers: list) -> list[str] | None:
        """A local bound once to parameters, or to a new list the function fills."""
        function, local = self.function, name.value
        reads = [n for n in m.findall(function, m.Name(local)) if not any(n is r for r in readers)]
        value = _local_value(function, local)
        if value is not None and len(reads) == 1:  # its binding's target alone
            return self.source(value)
        initial = _new_list(function, local)
        if initial is None:
            return None
        found = [] if _empty_list(initial) else self.source(initial)
        if found is None:
            return None
        targets = 1  # the binding's target
        for call in filling_calls(function, local):
            models = self._fill(call)
            if models is None:
                return None
            found += models
            targets += 1
        for augmented in m.findall(function, m.AugAssign(target=m.Name(local))):
            if not isinstance(augmented.operator, cst.AddAssign):
                return None
            models = self.source(augmented.value)
            if models is None:
                return None
            found += models
            targets += 1
        # nothing else reads or changes the list
        return found if len(reads) == targets else None

    def _fill(self, call: cst.Call) -> list[str] | None:
        """`x.append(p)` in a loop over a model's parameters, or `x.extend(<parameters>)`."""
        method = call.func.attr.value
        if len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
            return None
        if method == "extend":
            models = self.source(call.args[0].value)
        elif method == "append":
            loop = _filling_loop(self.function, call)
            if loop is None:
                return None
            root = parameters_root(loop.iter)
            models = None if root is None else [root]
            self.calls += _name_reads(loop, [loop.body])
        else:
            return None
        if models is not None:
            self.calls.append(call)
        return models


def receivers(node) -> set[str] | None:
    """The names a method call's receiver may be: `decay` for `decay`, both for `(no_decay if
    p.ndim < 2 else decay)` (the list chosen per parameter); None for anything else."""
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, cst.IfExp):
        body, orelse = receivers(node.body), receivers(node.orelse)
        return None if body is None or orelse is None else body | orelse
    return None


def filling_calls(scope: cst.CSTNode, name: str) -> list[cst.Call]:
    """The method calls in `scope` on the list `name`, also through a conditional receiver
    choosing it (`(no_decay if p.ndim < 2 else decay).append(p)`)."""
    return [
        call
        for call in m.findall(scope, m.Call(func=m.Attribute()))
        if name in (receivers(call.func.value) or ())
    ]


def _new_list(function: cst.FunctionDef, name: str):
    """The value `name` is bound to by its one plain assignment in the function's body (`x =
    ...`, or one position of `a, b = [], []`), other bindings being `+=`; None otherwise."""
    bindings = [
        s
        for s in function.body.body
        if name in bound_names(s) and not m.findall(s, m.AugAssign(target=m.Name(name)))
    ]
    if len(bindings) != 1 or not isinstance(bindings[0], cst.SimpleStatementLine):
        return None
    assign = bindings[0].body[0]
    if len(bindings[0].body) != 1 or not isinstance(assign, cst.Assign):
        return None
    if len(assign.targets) != 1:
        return None
    if sum(name in bound_names(s) for s in m.findall(function, m.For() | m.With())):
        return None  # rebound by a loop or `with` target
    target, value = assign.targets[0].target, assign.value
    if isinstance(target, cst.Name):
        return value if target.value == name else None
    if not isinstance(target, cst.Tuple) or not isinstance(value, cst.Tuple):
        return None
    if len(target.elements) != len(value.elements):
        return None
    for t, v in zip(target.elements, value.elements):
        if isinstance(t, cst.StarredElement) or isinstance(v, cst.StarredElement):
            return None
        if m.matches(t.value, m.Name(name)):
            return v.value if _empty_list(v.value) else None
    return None


def _empty_list(value) -> bool:
    return isinstance(value, cst.List) and not value.elements


def _filling_loop(function: cst.FunctionDef, append: cst.Call) -> cst.For | None:
    """The loop over `<model>.parameters()` / `.named_parameters()` holding the statement
    `x.append(p)`, `p` its parameter variable and not rebound in it; None otherwise."""
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
            or parameters_root(loop.iter) is None
        ):
            return None
        return loop
    return None


def _parameter_variable(loop: cst.For | cst.CompFor) -> str | None:
    """The loop variable holding a parameter: `p` of `for p in <parameters>` or of
    `for n, p in m.named_parameters()`."""
    target = loop.target
    if not m.matches(loop.iter, m.Call(func=m.Attribute(attr=m.Name("named_parameters")))):
        return target.value if isinstance(target, cst.Name) else None
    if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
        second = target.elements[1]
        if isinstance(second, cst.Element) and isinstance(second.value, cst.Name):
            return second.value.value
    return None


def _name_reads(loop: cst.For | cst.CompFor, where: list) -> list[cst.Call]:
    """Calls of str methods on the name `n` of `for n, p in m.named_parameters()` in
    `where` (the loop's body, or a comprehension's conditions), when `where` does not rebind
    it."""
    target = loop.target
    if not m.matches(loop.iter, m.Call(func=m.Attribute(attr=m.Name("named_parameters")))):
        return []
    if not isinstance(target, cst.Tuple):
        return []
    first = target.elements[0]
    if not isinstance(first, cst.Element) or not isinstance(first.value, cst.Name):
        return []
    name = first.value.value
    if any(name in collect_names(node).writes for node in where):
        return []
    method = m.Call(func=m.Attribute(value=m.Name(name), attr=m.Name()))
    return [
        c for node in where for c in m.findall(node, method) if c.func.attr.value in _STR_METHODS
    ]
