"""Gradient value clipping written as a loop (min-char-rnn's):

    for p in model.parameters():              -> clip_grad_value_(model.parameters(), 5)
        p.grad.data.clamp_(-5, 5)                (clipping.py: gradient_clip_val=5,
                                                  gradient_clip_algorithm="value")

`torch.nn.utils.clip_grad_value_` (what Lightning and the runtime call for
`gradient_clip_algorithm="value"`) clamps every gradient that is not None to
`[-clip_value, clip_value]`: elementwise the same numbers as the loop's `clamp_(-v, v)`,
so the step is bit-identical. Recognised: the loop over `<model>.parameters()` or over a name
bound once, before the loop, to `list(<model>.parameters())` and not changed since (a
generator bound to a name is used up by the optimizer); its body one
`<p>.grad[.data].clamp_(-v, v)` (or `min=-v, max=v`), optionally under
`if <p>.grad is not None:`, with `v` a number > 0 (or a name bound once to one): Lightning
clips nothing for a limit <= 0, the loop would. Lightning clamps the optimizer's parameters:
the loop must go over what the optimizer was built on, the same `<model>.parameters()` or
the same list (clamps_optimizer_parameters); that they are the model's, and where the loop
stands, is clipping.py's check, as for `clip_grad_value_`.

Left to the step (and so refused as code reading the model): any other loop body, asymmetric
bounds, a limit not known to be > 0, the loop's variable read after it.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.known_numbers import known_number
from ..analysis.names import collect_names
from ..analysis.statements import single_assign


def clamp_loop(ctx, stmt):
    """("value", parameters, limit) of a clamping loop, else None."""
    if not isinstance(stmt, cst.For) or stmt.orelse is not None or stmt.asynchronous:
        return None
    if not isinstance(stmt.target, cst.Name) or not isinstance(stmt.body, cst.IndentedBlock):
        return None
    param = stmt.target.value
    body = list(stmt.body.body)
    if len(body) == 1 and _grad_not_none(body[0], param):
        body = list(body[0].body.body)
    if len(body) != 1:
        return None
    limit = _clamp_limit(body[0], param)
    if limit is None or not _positive(ctx, limit):
        return None
    params = _parameters(ctx, stmt.iter)
    if params is None or _used_elsewhere(ctx, stmt, param):
        return None
    return "value", params, limit


def _used_elsewhere(ctx, stmt, param: str) -> bool:
    """The loop's variable named anywhere else in the training loop, or read after it: the
    loop is gone from the converted step, and so is the name's binding."""
    named = m.Name(param)
    if len(m.findall(ctx.loop, named)) != len(m.findall(stmt, named)):
        return True
    return any(param in collect_names(s).reads for s in ctx.scope_after)


def _grad(param: str):
    grad = m.Attribute(value=m.Name(param), attr=m.Name("grad"))
    return grad | m.Attribute(value=grad, attr=m.Name("data"))


def _grad_not_none(stmt, param: str) -> bool:
    """`if <p>.grad is not None:` with no `else`."""
    test = m.Comparison(
        left=m.Attribute(value=m.Name(param), attr=m.Name("grad")),
        comparisons=[m.ComparisonTarget(operator=m.IsNot(), comparator=m.Name("None"))],
    )
    return m.matches(stmt, m.If(test=test, orelse=None)) and isinstance(
        stmt.body, cst.IndentedBlock
    )


def _clamp_limit(stmt, param: str):
    """`v` of `<p>.grad[.data].clamp_(-v, v)` (or `min=-v, max=v`), else None."""
    call = m.Call(func=m.Attribute(value=_grad(param), attr=m.Name("clamp_")))
    if not m.matches(stmt, m.SimpleStatementLine(body=[m.Expr(value=call)])):
        return None
    args = stmt.body[0].value.args
    if len(args) != 2 or any(a.star for a in args):
        return None
    keywords = [a.keyword.value if a.keyword else None for a in args]
    if keywords == ["max", "min"]:
        args = args[::-1]
    elif keywords not in ([None, None], [None, "max"], ["min", "max"]):
        return None
    low, high = args[0].value, args[1].value
    if not isinstance(low, cst.UnaryOperation) or not isinstance(low.operator, cst.Minus):
        return None
    return high if low.expression.deep_equals(high) else None


def _positive(ctx, node) -> bool:
    value = known_number(ctx, node)
    return value is not None and value > 0


def _parameters(ctx, iterator):
    """The `<model>.parameters()` call the loop goes over: itself, or the value of the name
    bound once before the loop to `list(<model>.parameters())`, not changed since."""
    parameters = m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("parameters")), args=[])
    if m.matches(iterator, parameters):
        return iterator
    if not isinstance(iterator, cst.Name):
        return None
    from ..shapes.epoch_batch import maybe_changed  # shapes import the patterns

    name = iterator.value
    found, count = ctx.binding(name)
    if found is None or count != 1:
        return None
    stmt, value = found
    listed = m.Call(func=m.Name("list"), args=[m.Arg(value=parameters, keyword=None, star="")])
    if not m.matches(value, listed) or "builtins.list" not in ctx.call_qualnames(value):
        return None
    later = ctx.scope_before[ctx.scope_before.index(stmt) + 1 :]
    if any(maybe_changed(ctx, s, {name}) for s in [*later, ctx.loop]):
        return None
    return value.args[0].value


def clamps_optimizer_parameters(ctx, optimizer, stmt: cst.For) -> bool:
    """The clamping loop goes over what `optimizer` was built on (its first argument, or
    `params=`): the same `<model>.parameters()`, or the same list name."""
    found = single_assign(optimizer.stmt) if optimizer.stmt is not None else None
    call = found[1] if found else None
    if not isinstance(call, cst.Call) or not call.args:
        return False
    first = call.args[0]
    if first.star or first.keyword is not None and first.keyword.value != "params":
        return False
    return first.value.deep_equals(stmt.iter)
