"""An optimizer built by a function of the script (the time-series repos' `_select_optimizer`).

    def _select_optimizer(args, model):                    (kept, still called)
        return optim.Adam(model.parameters(), lr=args.learning_rate)

    model_optim = _select_optimizer(args, model)
                              -> moved into configure_optimizers, called there with the
                                 module's model (its other arguments module args)

Such a function is most often a method of a trainer class (`self._select_optimizer()`), a
function once the class is inlined (shapes/trainer_inline.py). It is read as an optimizer
when it builds `torch.optim` optimizers, each on the parameters of models it is given
(`model.parameters()` of a parameter it does not rebind, or of its submodule, maybe bound
to a local first or kept by `filter(lambda p: p.requires_grad, ...)`, or the lists, chains,
comprehensions and parameter groups gathered from them: optimizer_groups.py; groups it adds
by `opt.add_param_group({...})` to the optimizer it builds are read the same way), and
returns one of them from every `return`, ending with one (or a `raise`). Several are alternatives (`if cfg.opt == "sgd": return SGD(...)`, `return
AdamW(...)`): one optimizer per call, whichever the function picks when it runs again on
the same arguments; every alternative must train the same models, and what reads the
optimizer's arguments (clipping.py's `fused=`) reads each. The conversion calls it when
`fit` starts instead of where the script did, as it builds any optimizer in
`configure_optimizers`: so it may do nothing but compute, the same checks as a scheduler
function's (scheduler_factories.py). The model it trains is the argument its caller gives
for that parameter.

Refused (TL186), with the line: an optimizer no `return` returns, a scheduler too, a
`return` of something else, an optimizer over anything but its parameters' `parameters()`
(or groups filled from them), a group added to another optimizer, alternatives on different
models, prints or other calls (`random.random()`), stores into objects, `global`, a global
bound more than once or changed in place.
Not an optimizer function (left to the other rules): one that builds no torch.optim optimizer.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from .factories import _local_value, _own_returns
from .optimizer_groups import group_models
from .scheduler_factories import (
    SCHEDULER_MODULE,
    _effect,
    _table,
    bound_arguments,
    call_problem,
    read_function,
    refuse_problem,
    returns_only,
)


@dataclass(frozen=True)
class OptimizerFunction:
    """`function` builds the optimizer on the parameters of its parameters `models`;
    `problem` is (node, why) when it cannot be read as doing only that."""

    function: cst.FunctionDef
    models: tuple[str, ...]
    problem: tuple[cst.CSTNode, str] | None


def optimizer_function(ctx, call) -> OptimizerFunction | None:
    """What `call` calls when it is a module-level function of the script building a
    torch.optim optimizer (faithful or not: see `problem`); None otherwise."""
    return read_function(ctx, call, "optimizer_functions", _read)


def faithful_optimizer_function(ctx, call) -> bool:
    """`call` builds an optimizer through a function of the script read faithfully."""
    found = optimizer_function(ctx, call)
    return found is not None and call_problem(found, call) is None


def refuse_unfaithful_optimizer(ctx, call, name: str) -> None:
    """Unsupported (TL186) when `name = call` calls an optimizer function of the script that
    cannot be read faithfully, at the line of what it does."""
    refuse_problem(optimizer_function(ctx, call), call, f"optimizer `{name}`")


def trained_models(ctx, call) -> list[str]:
    """The caller's names for the models a faithful optimizer function trains: the arguments
    `call` gives for the parameters whose `parameters()` it reads; [] when one is no name."""
    found = optimizer_function(ctx, call)
    bound = dict(bound_arguments(found.function, call) or ()) if found is not None else {}
    names = [bound.get(model) for model in found.models] if found is not None else []
    if not names or not all(isinstance(n, cst.Name) for n in names):
        return []
    return list(dict.fromkeys(n.value for n in names))


def _read(ctx, function: cst.FunctionDef) -> OptimizerFunction | None:
    built = [
        c
        for c in m.findall(function, m.Call())
        if any(q.startswith("torch.optim.") for q in ctx.call_qualnames(c))
    ]
    optimizers = [
        c
        for c in built
        if not any(q.startswith(SCHEDULER_MODULE) for q in ctx.call_qualnames(c))
        and _is_class(ctx, c)
    ]
    if not optimizers:
        return None

    def refused(node, why) -> OptimizerFunction:
        return OptimizerFunction(function, (), (node, why))

    others = [c for c in built if not any(c is o for o in optimizers)]
    if others:  # a scheduler too: it would be lost
        return refused(others[0], "builds several torch.optim objects")
    # alternatives (`if cfg.opt == "sgd": return SGD(...)` / `return AdamW(...)`): each a
    # `return` of its own, so one optimizer per call whichever the function picks
    shape = returns_only(function, optimizers, "the optimizer")
    if shape is not None:
        return refused(*shape)
    if len(optimizers) > 1 and not all(_returned(function, o) for o in optimizers):
        return refused(optimizers[1], "builds several torch.optim objects")
    # the parameters it optimizes: `model.parameters()` of models it is given, nothing else
    table = _table(ctx, function)

    def given(models) -> bool:
        return models is not None and all(
            model in table.get_identifiers()
            and table.lookup(model).is_parameter()
            and not table.lookup(model).is_assigned()
            for model in models
        )

    firsts = [_params_argument(o) for o in optimizers]
    approved: list[cst.Call] = []
    chosen = None
    for optimizer, first in zip(optimizers, firsts):
        models = _models(ctx, function, first, firsts, approved)
        if not given(models):
            return refused(
                optimizer,
                "builds it on something other than `<model>.parameters()` of a model it is "
                "given (or parameter groups filled from it)",
            )
        if chosen is not None and set(models) != set(chosen):
            return refused(optimizer, "builds its alternatives on different models")
        chosen = models
    # `opt.add_param_group({"params": ...})` on the optimizer it builds, before returning it:
    # replayed with the rest when the conversion calls the function again
    for added in _added_groups(function, optimizers):
        models = group_models(ctx, function, cst.List([cst.Element(added.args[0].value)]), [])
        if models is None or not given(models[0]):
            return refused(
                added,
                "adds a parameter group of something other than `<model>.parameters()` of a "
                "model it is given",
            )
        approved += [added, *models[1]]
        chosen = [*chosen, *models[0]]
    problem = _effect(ctx, function, set(), approved)
    return OptimizerFunction(function, tuple(dict.fromkeys(chosen)), problem)


def _added_groups(function: cst.FunctionDef, optimizers: list[cst.Call]) -> list[cst.Call]:
    """The calls `opt.add_param_group(<one dict display>)` of a local `opt` bound once to one
    of the `optimizers` the function builds (any other `add_param_group` call is left to the
    check that the function only computes)."""
    found = []
    for call in m.findall(
        function, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("add_param_group")))
    ):
        value = _local_value(function, call.func.value.value)
        if not any(value is o for o in optimizers):
            continue
        if len(call.args) == 1 and not call.args[0].keyword and not call.args[0].star:
            if isinstance(call.args[0].value, cst.Dict):
                found.append(call)
    return found


def optimizer_calls(ctx, call) -> list[cst.Call] | None:
    """The torch.optim constructor calls of the faithful optimizer function `call` calls
    (one per alternative it may return); None when `call` is no such call."""
    found = optimizer_function(ctx, call)
    if found is None or call_problem(found, call) is not None:
        return None
    return [
        c
        for c in m.findall(found.function, m.Call())
        if any(q.startswith("torch.optim.") for q in ctx.call_qualnames(c))
    ]


def _params_argument(optimizer: cst.Call):
    return next(
        (a.value for a in optimizer.args if a.keyword is None or a.keyword.value == "params"),
        None,
    )


def _returned(function: cst.FunctionDef, optimizer: cst.Call) -> bool:
    """Some `return` of the function returns `optimizer` (directly or through its local)."""
    for ret in _own_returns(function):
        value = ret.value
        if isinstance(value, cst.Name):
            value = _local_value(function, value.value)
        if value is optimizer:
            return True
    return False


def _models(ctx, function, first, firsts, approved: list) -> list[str] | None:
    """The models whose parameters `first` (an optimizer's parameters) holds; the calls that
    only gather them go to `approved` (optimizer_groups.py). None when not read."""
    if first is None:
        return None
    found = group_models(ctx, function, first, [f for f in firsts if f is not None])
    if found is None:
        return None
    approved += found[1]
    return found[0]


def _is_class(ctx, call: cst.Call) -> bool:
    """A torch.optim class (`torch.optim.Adam`), not a function of the package."""
    return any(q.split(".")[-1][:1].isupper() for q in ctx.call_qualnames(call))
