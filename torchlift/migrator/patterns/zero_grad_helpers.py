"""Pattern: a helper that only zeroes the optimizers' gradients, called in the batch loop.

    def reset_grad():                       -> removed once nothing else calls it
        d_optimizer.zero_grad()
        g_optimizer.zero_grad()

    for images, _ in data_loader:
        ...
        reset_grad()                        -> d_optimizer.zero_grad()
        d_loss.backward()                      g_optimizer.zero_grad()
                                               self.manual_backward(d_loss) ...

The optimizers move into `configure_optimizers`, so a module function reading them as
globals would read names that no longer exist; its calls in the batch loop become its
`zero_grad()` statements, which the step patterns then read like the script's own. Only a
function whose body is nothing but `<name>.zero_grad(...)` calls is read so; any other
helper stays a call.

The helper may be given the optimizers it zeroes (`reset_grad(g_optimizer, d_optimizer)`:
a trainer class's `self.reset_grad()` once the class is inlined, shapes/trainer_inline.py,
its attributes become parameters): each parameter is then the name the call passes for it
(shapes/trainer_inline.py's bind_call; a call passing anything else than names, or leaving
a parameter to its default, stays a call). Calls nested in the batch loop's blocks (the
generator's step under `if i % n_critic == 0:`, after the step functions are inlined,
shapes/step_inline.py) are read too. A helper name, or a global it reads, that the function
holding the loop binds as a local of its own means something else there: the call stays.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.globals_read import function_locals
from ..analysis.names import collect_names, rename
from ..rule import Unsupported
from ..shapes.trainer_inline import bind_call
from .step_sequence import STEP_SEQUENCE

RULES = ()

_ZERO_GRAD = m.SimpleStatementLine(
    body=[m.Expr(m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("zero_grad"))))]
)

_CALL_STATEMENT = m.SimpleStatementLine(body=[m.Expr(m.Call(func=m.Name()))])


def batch_statements(ctx, stmts):
    helpers = _zero_grad_helpers(ctx.module)
    if not helpers:
        return stmts
    shadowed = function_locals(ctx) if ctx.in_function else set()
    usable = {
        name: helper
        for name, helper in helpers.items()
        if name not in shadowed and not _free_names(helper) & shadowed
    }
    if not usable:
        return stmts
    out = []
    for stmt in stmts:
        out.extend(_inlined(ctx, stmt, usable))
    return out


def read(ctx, plan, steps) -> None:
    for name in sorted(ctx.found.get("zero_grad_helpers", ())):
        if name not in plan.inlined_helpers:  # removed when no other call is left
            plan.inlined_helpers.append(name)


def _inlined(ctx, stmt, helpers) -> list:
    """`stmt` with each call of a helper, in its blocks too, replaced by the helper's
    statements; the statement itself (the same node: patterns key facts on node identity)
    when it holds none."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return [stmt]  # another scope: its calls are its own
    if m.matches(stmt, _CALL_STATEMENT):
        body = _helper_body(stmt.body[0].value, helpers)
        if body is None:
            return [stmt]
        body[0] = body[0].with_changes(leading_lines=stmt.leading_lines)
        ctx.found.setdefault("zero_grad_helpers", set()).add(stmt.body[0].value.func.value)
        _refusals_name(ctx, stmt, body)
        return body
    changed = stmt
    for field in ("body", "orelse", "finalbody"):
        block = getattr(changed, field, None)
        if isinstance(block, (cst.Else, cst.Finally)):
            inner = _inlined_block(ctx, block.body, helpers)
            if inner is not block.body:
                changed = changed.with_changes(**{field: block.with_changes(body=inner)})
        elif isinstance(block, cst.If):  # `elif`
            inner_if = _inlined(ctx, block, helpers)[0]
            if inner_if is not block:
                changed = changed.with_changes(orelse=inner_if)
        elif isinstance(block, cst.IndentedBlock):
            inner = _inlined_block(ctx, block, helpers)
            if inner is not block:
                changed = changed.with_changes(**{field: inner})
    if isinstance(changed, cst.Try):
        handlers = [
            h.with_changes(body=_inlined_block(ctx, h.body, helpers)) for h in changed.handlers
        ]
        if any(new.body is not old.body for new, old in zip(handlers, changed.handlers)):
            changed = changed.with_changes(handlers=handlers)
    if changed is not stmt:
        _refusals_name(ctx, stmt, [changed])
    return [changed]


def _refusals_name(ctx, original, replacements) -> None:
    """A refusal naming a replacement names the script's statement (the engine reads
    helpers.py's `inlined_at`): the replacements are in no line of the file."""
    origins = ctx.found.setdefault("inlined_at", {})
    for node in replacements:
        origins[id(node)] = origins.get(id(original), original)


def _inlined_block(ctx, block, helpers):
    if not isinstance(block, cst.IndentedBlock):
        return block
    inner = [s for stmt in block.body for s in _inlined(ctx, stmt, helpers)]
    if len(inner) == len(block.body) and all(a is b for a, b in zip(inner, block.body)):
        return block
    return block.with_changes(body=inner)


def _helper_body(call: cst.Call, helpers) -> list | None:
    """The helper's statements with its parameters renamed to the names the call passes,
    or None when the call is no helper's or passes other than names for them."""
    helper = helpers.get(call.func.value)
    if helper is None:
        return None
    try:
        given = bind_call(helper, call, helper.name.value, call, STEP_SEQUENCE)
    except Unsupported:  # a call Python rejects: it stays, and fails as it did
        return None
    if len(given) != len(call.args):  # a default stands for itself: such a call is kept
        return None
    if not all(isinstance(value, cst.Name) for _, value in given):
        return None
    mapping = {param: value for param, value in given}
    return [rename(s, mapping).with_changes(leading_lines=[]) for s in helper.body.body]


def _zero_grad_helpers(module: cst.Module) -> dict[str, cst.FunctionDef]:
    found = {}
    for stmt in module.body:
        if (
            isinstance(stmt, cst.FunctionDef)
            and not stmt.decorators
            and _plain_parameters(stmt.params)
            and isinstance(stmt.body, cst.IndentedBlock)
            and all(m.matches(s, _ZERO_GRAD) for s in stmt.body.body)
        ):
            found[stmt.name.value] = stmt
    return found


def _free_names(helper: cst.FunctionDef) -> set[str]:
    """The names the helper's statements read that are not its parameters: its globals."""
    params = {p.name.value for p in _params(helper)}
    return collect_names(*helper.body.body).reads - params


def _params(helper: cst.FunctionDef) -> list[cst.Param]:
    return [*helper.params.posonly_params, *helper.params.params, *helper.params.kwonly_params]


def _plain_parameters(params: cst.Parameters) -> bool:
    """No `*args` / `**kwargs` nor positional-only parameters: each is a name a call binds."""
    return not (
        params.posonly_params or isinstance(params.star_arg, cst.Param) or params.star_kwarg
    )
