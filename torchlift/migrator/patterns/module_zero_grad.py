"""The step sequence's zero_grad() through modules, not through the optimizer.

    params = list(decoder.parameters()) + list(encoder.linear.parameters())
    optimizer = torch.optim.Adam(params)
    for images, captions in loader:
        ...
        decoder.zero_grad()           -> removed (Lightning's optimizer.zero_grad())
        encoder.zero_grad()           -> removed
        loss.backward()
        optimizer.step()

Lightning zeroes the gradients of the parameters the optimizer holds, once per batch.
`Module.zero_grad()` and `Optimizer.zero_grad()` both default to `set_to_none=True` in
torch 2.x, so module calls that together reach every parameter the optimizer holds (a
module reaches its submodules': `encoder` covers `encoder.linear`) leave training as the
optimizer's call does. The optimizer's parameters are read from its call, followed back
through the names bound before the loop: `X.parameters()`, `X.named_parameters()` (X a name
or a dotted path), joined by `list(...)`, `+`, `itertools.chain`, lists, parameter-group
dicts' "params" and comprehensions over them.

Refused (TL105, by the step sequence): a parameter the calls do not reach (its gradient
would add up over batches in the script, not once converted), or an optimizer argument this
cannot follow back to modules (a bare tensor, a function's result).
"""

from __future__ import annotations

import libcst as cst

from ..analysis.statements import single_assign
from .optimizer_methods import own_parameters_model

_JOINERS = frozenset({"builtins.list", "builtins.tuple", "itertools.chain", "builtins.filter"})


def uncovered(ctx, plan, zeroed: list[str]) -> str | None:
    """None when the modules `zeroed` (dotted paths; a model's aliases count as the model)
    reach every parameter the loop's optimizer holds, else why not."""
    stmt = plan.optimizer.stmt
    if stmt is None:  # handed in by the caller (patterns/passed_in.py)
        return "the optimizer is given to the function holding the loop: its parameters are unknown"
    assign = single_assign(stmt)
    call = assign[1] if assign else None
    own = own_parameters_model(ctx, call)  # `model.configure_optimizers(config)`: model's own
    if own is None and (
        not isinstance(call, cst.Call) or not call.args or call.args[0].keyword is not None
    ):
        return "the optimizer's parameters are not given as its first argument"
    paths = [own] if own is not None else parameter_paths(ctx, call.args[0].value, set())
    if paths is None:
        code = ctx.module.code_for_node(call.args[0].value)
        return f"cannot tell which modules hold the parameters of `{code}`"
    canonical = {alias: model.name for model in plan.models for alias in model.aliases}
    reached = [_canonical(path, canonical) for path in zeroed]
    missing = [
        path for path in paths if not any(_within(_canonical(path, canonical), z) for z in reached)
    ]
    if missing:
        return (
            f"the optimizer also steps `{missing[0]}`'s parameters, which no zero_grad() "
            "call reaches (their gradients would add up over batches)"
        )
    return None


def parameter_paths(ctx, expr, seen: set[str]) -> list[str] | None:
    """Dotted paths of the modules whose parameters `expr` yields, or None if some part of
    it is not understood."""
    if isinstance(expr, cst.Call):
        func = expr.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in ("parameters", "named_parameters")
            and dotted_path(func.value) is not None
        ):
            return [dotted_path(func.value)]
        if ctx.call_qualnames(expr) & _JOINERS:
            args = [a.value for a in expr.args if a.keyword is None]
            if ctx.call_qualnames(expr) & {"builtins.filter"}:
                args = args[1:]  # filter(predicate, params): a subset of params
            return _all(ctx, args, seen)
        return None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return _all(ctx, [expr.left, expr.right], seen)
    if isinstance(expr, (cst.List, cst.Tuple)):
        return _all(ctx, [e.value for e in expr.elements], seen)
    if isinstance(expr, cst.Dict):  # a parameter group: only "params" holds parameters
        for element in expr.elements:
            if isinstance(element, cst.DictElement) and _is_params_key(element.key):
                return parameter_paths(ctx, element.value, seen)
        return None
    if _picks_from(expr):  # `[p for n, p in model.named_parameters() if ...]`: a subset
        return parameter_paths(ctx, expr.for_in.iter, seen)
    if isinstance(expr, cst.Name) and expr.value not in seen:
        binding, count = ctx.binding(expr.value)
        if binding is None or count != 1:
            return None
        return parameter_paths(ctx, binding[1], seen | {expr.value})
    return None


def _all(ctx, exprs, seen) -> list[str] | None:
    found: list[str] = []
    for expr in exprs:
        paths = parameter_paths(ctx, expr, seen)
        if paths is None:
            return None
        found += paths
    return list(dict.fromkeys(found))


def _picks_from(expr) -> bool:
    """A comprehension whose items are (some of) what its one `for` iterates."""
    if not isinstance(expr, (cst.ListComp, cst.GeneratorExp)) or expr.for_in.inner_for_in:
        return False
    if not isinstance(expr.elt, cst.Name):
        return False
    target = expr.for_in.target
    names = (
        [target]
        if isinstance(target, cst.Name)
        else [e.value for e in getattr(target, "elements", ())]
    )
    return any(isinstance(n, cst.Name) and n.value == expr.elt.value for n in names)


def _is_params_key(key) -> bool:
    return isinstance(key, cst.SimpleString) and key.evaluated_value == "params"


def dotted_path(expr) -> str | None:
    """`encoder.linear` for a dotted path of names, `encoder.2` for `encoder[2]` (the child
    a Sequential or ModuleList names so), else None."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted_path(expr.value)
        return None if base is None else f"{base}.{expr.attr.value}"
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
        base, index = dotted_path(expr.value), expr.slice[0].slice
        if base is not None and isinstance(index, cst.Index):
            if isinstance(index.value, cst.Integer):
                return f"{base}.{index.value.evaluated_value}"
    return None


def _canonical(path: str, canonical: dict[str, str]) -> str:
    root, _, rest = path.partition(".")
    root = canonical.get(root, root)
    return f"{root}.{rest}" if rest else root


def _within(path: str, module: str) -> bool:
    """A parameter under `path` is one of `module`'s (its own or a submodule's)."""
    return path == module or path.startswith(module + ".")
