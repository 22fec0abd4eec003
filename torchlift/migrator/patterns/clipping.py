"""Pattern: gradient clipping -> `Trainer(gradient_clip_val=v[, gradient_clip_algorithm=...])`.

    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)    -> gradient_clip_val=1.0
    torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)   -> ... algorithm="value"
    optimizer.step()

    if grad_clip:                                               -> gradient_clip_val=grad_clip
        nn.utils.clip_grad_value_(model.parameters(), grad_clip)   (None or 0: no clipping)

Under manual optimization (accumulation.py) the call stays where it is, as
`self.clip_gradients(optimizer, gradient_clip_val=v, gradient_clip_algorithm=kind)`.

Refused (TL105): clipping outside backward()..step(), twice, of other parameters than the
model's, with norm_type or other options, or using the returned norm.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..rule import Unsupported
from .step_sequence import STEP_SEQUENCE

RULES = ()

_CLIP = {
    "torch.nn.utils.clip_grad_norm_": "norm",
    "torch.nn.utils.clip_grad.clip_grad_norm_": "norm",
    "torch.nn.utils.clip_grad_value_": "value",
    "torch.nn.utils.clip_grad.clip_grad_value_": "value",
}


def claim(ctx, steps, stmt, position) -> bool:
    clip = _clip_call(ctx, stmt) or _clip_if_set(ctx, stmt)
    if clip is None:
        return False
    if steps["clip"] is not None:
        ctx.block(STEP_SEQUENCE, "gradients clipped twice", stmt)
    steps["clip"] = (position, clip, stmt)
    return True


def clip_statement(ctx, stmt):
    """(kind, parameters, value) of a clipping statement, else None (accumulation asks it
    for the statements of its group)."""
    return _clip_call(ctx, stmt)


def _clip_call(ctx, stmt):
    """(kind, parameters, value) of a clipping statement, else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    if not isinstance(call, cst.Call) or not ctx.call_qualnames(call).intersection(_CLIP):
        return None
    if isinstance(small, cst.Assign):
        raise Unsupported(STEP_SEQUENCE, "the gradient norm returned by clipping is used", stmt)
    return clip_call(ctx, call, stmt)


def _clip_if_set(ctx, stmt):
    """(kind, parameters, value) of `if grad_clip: clip_grad_value_(model.parameters(),
    grad_clip)`, the limit tested for truth (course notebooks, `grad_clip=None` by default):
    the Trainer clips under the same condition -- `gradient_clip_val=None` or `0` clips nothing
    (Lightning returns for a limit <= 0; the runtime refuses a negative one)."""
    if not (
        isinstance(stmt, cst.If)
        and stmt.orelse is None
        and isinstance(stmt.body, cst.IndentedBlock)
    ):
        return None
    if len(stmt.body.body) != 1:
        return None
    clip = _clip_call(ctx, stmt.body.body[0])
    if clip is None or not clip[2].deep_equals(stmt.test):
        return None
    return clip


def clip_call(ctx, call: cst.Call, stmt=None):
    """(kind, parameters, value) of a clipping call, else None."""
    kinds = {_CLIP[q] for q in ctx.call_qualnames(call) if q in _CLIP}
    if not kinds:
        return None
    kind = kinds.pop()
    args = list(call.args)
    if len(args) != 2 or any(a.star for a in args):
        raise Unsupported(STEP_SEQUENCE, "clipping with norm_type or other options", stmt or call)
    return kind, args[0].value, args[1].value


def read(ctx, plan, steps) -> None:
    if steps["clip"] is None:
        return
    position, (kind, params, value), stmt = steps["clip"]
    if not steps["backward"] < position < steps["optimizer_step"]:
        ctx.block(STEP_SEQUENCE, "clipping outside backward()..step()", stmt)
    model = plan.model
    if len(plan.models) > 1:  # the Trainer would clip every model's gradients together
        raise Unsupported(STEP_SEQUENCE, "clipping with an optimizer over several models", stmt)
    owners = m.OneOf(*[m.Name(n) for n in {model.name, *model.aliases}])
    if not m.matches(params, m.Call(func=m.Attribute(value=owners, attr=m.Name("parameters")))):
        raise Unsupported(STEP_SEQUENCE, "clipping something else than model.parameters()", stmt)
    value_code = ctx.module.code_for_node(value)
    if steps.get("manual_optimization") and isinstance(stmt, cst.If):
        raise Unsupported(STEP_SEQUENCE, "clipping under a condition, in manual optimization", stmt)
    if steps.get("manual_optimization"):  # clipped where the script clips, by the module
        optimizer = plan.optimizer.name
        call = cst.parse_expression(
            f"self.clip_gradients({optimizer}, gradient_clip_val={value_code}, "
            f'gradient_clip_algorithm="{kind}")'
        )
        steps.setdefault("kept", []).append((position, stmt.with_changes(body=[cst.Expr(call)])))
        return
    plan.add_trainer_arg("gradient_clip_val", value_code)
    if kind == "value":
        plan.add_trainer_arg("gradient_clip_algorithm", '"value"')
