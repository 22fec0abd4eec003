"""Pattern: gradient clipping -> `Trainer(gradient_clip_val=v[, gradient_clip_algorithm=...])`.

    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)    -> gradient_clip_val=1.0
    torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)   -> ... algorithm="value"
    optimizer.step()

    for p in model.parameters():                                -> gradient_clip_val=5,
        p.grad.data.clamp_(-5, 5)                                  algorithm="value"
                                                                   (clamp_loop.py)

    if grad_clip:                                               -> gradient_clip_val=grad_clip
        nn.utils.clip_grad_value_(model.parameters(), grad_clip)   (None or 0: no clipping)

Under manual optimization (accumulation.py) the call stays where it is, as
`self.clip_gradients(optimizer, gradient_clip_val=v, gradient_clip_algorithm=kind)`; inside
an accumulation group kept as written, or under mixed precision with an optimizer that may be
fused (Lightning's `clip_gradients` raises for it), as the script's own call.

`grad_norm = clip_grad_norm_(...)` (the norm read later, e.g. printed after the step) is the
script's own statement in `configure_gradient_clipping` (see `_keep_norm`); so is a norm
clipping of `model.parameters()` whose optimizer's groups order them otherwise (Lightning sums
the norm in the groups' order), under a GradScaler too, without its `scaler.unscale_`
(Lightning unscales before the hook; for a fused optimizer, below).

Under mixed precision with an optimizer that may be fused (`fused=` not known false, or built
where its arguments are not seen), the clipping is the script's statement in
`configure_gradient_clipping` too: Lightning's mixed precision neither unscales a fused
optimizer's gradients before the hook nor lets `gradient_clip_val` clip them (a RuntimeError).
The script's `scaler.unscale_(optimizer)` becomes, where it was, the Trainer's scaler
unscaling the optimizer when it handles unscaling itself (`_fused_unscale`); GradScaler.step
then steps the fused optimizer on the gradients already unscaled, as the script's did.

Refused (TL105): clipping outside backward()..step(), twice, of other parameters than the
model's, with norm_type or other options; the returned norm read between the clipping and
the step.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.known_numbers import known_number
from ..analysis.names import collect_names
from ..analysis.statements import single_assign
from ..rule import Unsupported
from ..upgrade.edits import keyword_value
from .clamp_loop import clamp_loop, clamps_optimizer_parameters
from .step_sequence import STEP_SEQUENCE

RULES = ()

_CLIP = {
    "torch.nn.utils.clip_grad_norm_": "norm",
    "torch.nn.utils.clip_grad.clip_grad_norm_": "norm",
    "torch.nn.utils.clip_grad_value_": "value",
    "torch.nn.utils.clip_grad.clip_grad_value_": "value",
}


def claim(ctx, steps, stmt, position) -> bool:
    clip = _clip_call(ctx, stmt) or _clip_if_set(ctx, stmt) or clamp_loop(ctx, stmt)
    if clip is None:
        return False
    if steps["clip"] is not None:
        ctx.block(STEP_SEQUENCE, "gradients clipped twice", stmt)
    steps["clip"] = (position, clip, stmt)
    if isinstance(stmt, cst.If) and _unscales(ctx, stmt.body.body[0]):
        steps.setdefault("unscaled_at", []).append(position - 0.5)  # amp.py: before clipping
    return True


def clip_statement(ctx, stmt):
    """(kind, parameters, value) of a clipping statement, else None (accumulation asks it
    for the statements of its group)."""
    return _clip_call(ctx, stmt) or clamp_loop(ctx, stmt)


def _clip_call(ctx, stmt):
    """(kind, parameters, value) of a clipping statement, else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    if not isinstance(call, cst.Call) or not ctx.call_qualnames(call).intersection(_CLIP):
        return None
    found = clip_call(ctx, call, stmt)
    if isinstance(small, cst.Assign) and (found[0] != "norm" or norm_name(stmt) is None):
        raise Unsupported(
            STEP_SEQUENCE, "the value returned by clipping is bound to more than one name", stmt
        )
    return found


def norm_name(stmt) -> str | None:
    """`grad_norm` of `grad_norm = clip_grad_norm_(...)`, else None."""
    small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    return target.value if isinstance(target, cst.Name) else None


def _clip_if_set(ctx, stmt):
    """(kind, parameters, value) of `if grad_clip: clip_grad_value_(model.parameters(),
    grad_clip)`, the limit tested for truth (course notebooks, `grad_clip=None` by default):
    the Trainer clips under the same condition -- `gradient_clip_val=None` or `0` clips nothing
    (Lightning returns for a limit <= 0; the runtime refuses a negative one). Also tested as
    `grad_clip > 0` or, for a limit bound once to a number >= 0, `grad_clip != 0.0`
    (nanoGPT), with the GradScaler's `scaler.unscale_(optimizer)` first in the block (amp.py
    reads it: Lightning unscales before clipping)."""
    if not (
        isinstance(stmt, cst.If)
        and stmt.orelse is None
        and isinstance(stmt.body, cst.IndentedBlock)
    ):
        return None
    body = list(stmt.body.body)
    if len(body) == 2 and _unscales(ctx, body[0]):
        body = body[1:]
    if len(body) != 1:
        return None
    if norm_name(body[0]) is not None:
        return None  # a norm bound only when the limit is set: not this form
    clip = _clip_call(ctx, body[0])
    if clip is None or not _tests_limit_set(ctx, stmt.test, clip[2]):
        return None
    return clip


def _unscales(ctx, stmt) -> bool:
    from .amp import unscales  # amp -> step_sequence; clipping is read before both

    return unscales(ctx, stmt)


def _tests_limit_set(ctx, test, limit) -> bool:
    """`test` holds exactly when Lightning clips with `gradient_clip_val=limit`."""
    if test.deep_equals(limit):
        return True
    if not m.matches(test, m.Comparison(comparisons=[m.ComparisonTarget()])):
        return False
    target = test.comparisons[0]
    zero = m.Integer("0") | m.Float("0.0") | m.Float("0.")
    if not (test.left.deep_equals(limit) and m.matches(target.comparator, zero)):
        return False
    if isinstance(target.operator, cst.GreaterThan):
        return True
    # `!= 0` clips a negative limit too, Lightning does not: only for a known one >= 0
    return isinstance(target.operator, cst.NotEqual) and _non_negative(ctx, limit)


def _non_negative(ctx, node) -> bool:
    value = known_number(ctx, node)
    return value is not None and value >= 0


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
    from .bindings import parameter_aliases  # the same parameters by another name

    names = {model.name, *model.aliases, *parameter_aliases(ctx, model.name)}
    owners = m.OneOf(*[m.Name(n) for n in names])
    if not m.matches(params, m.Call(func=m.Attribute(value=owners, attr=m.Name("parameters")))):
        raise Unsupported(
            STEP_SEQUENCE,
            f"clipping something else than `{model.name}.parameters()`, what the optimizer trains",
            stmt,
        )
    if isinstance(stmt, cst.For) and not clamps_optimizer_parameters(ctx, plan.optimizer, stmt):
        raise Unsupported(
            STEP_SEQUENCE,
            "the clamping loop goes over other parameters than the optimizer was built on "
            "(Lightning clips the optimizer's)",
            stmt,
        )
    value_code = ctx.module.code_for_node(value)
    if steps.get("manual_optimization") and steps.get("clip_in_group"):
        return  # the accumulation group is kept as written, its clipping call with it
    if steps.get("manual_optimization") and isinstance(stmt, cst.If):
        raise Unsupported(STEP_SEQUENCE, "clipping under a condition, in manual optimization", stmt)
    fused = not steps.get("manual_optimization") and _mixed_may_fuse(ctx, plan)
    if norm_name(stmt) is not None:
        _keep_norm(ctx, plan, steps, stmt)
        if fused:
            plan.clip_hook = _unscaling_fused(ctx, steps, stmt)
        return
    if steps.get("manual_optimization") and _mixed_may_fuse(ctx, plan):
        # Lightning's mixed precision refuses to clip an optimizer that unscales in its own
        # step (a RuntimeError, bf16 too); manual optimization runs no scaler here
        # (accumulation.py refuses one), so the script's call clips what it clipped
        steps.setdefault("kept", []).append((position, stmt))
        return
    if steps.get("manual_optimization"):  # clipped where the script clips, by the module
        optimizer = plan.optimizer.name
        call = cst.parse_expression(
            f"self.clip_gradients({optimizer}, gradient_clip_val={value_code}, "
            f'gradient_clip_algorithm="{kind}")'
        )
        line = cst.SimpleStatementLine([cst.Expr(call)], leading_lines=stmt.leading_lines)
        steps.setdefault("kept", []).append((position, line))
        return
    if fused:  # Lightning's gradient_clip_val raises for it: the script's clipping in the hook
        _refuse_hook_parameter_reads(_without_unscale(ctx, stmt), stmt)
        plan.clip_hook = _unscaling_fused(ctx, steps, stmt)
        return
    if kind == "norm" and not _steps_model_order(ctx, plan):
        # Lightning sums the norm over the optimizer's groups in their order; parameter groups
        # (no weight decay for biases) order them otherwise, and the sum rounds otherwise
        plan.clip_hook = [_without_unscale(ctx, stmt)]
        return
    plan.add_trainer_arg("gradient_clip_val", value_code)
    if kind == "value":
        plan.add_trainer_arg("gradient_clip_algorithm", '"value"')


def _mixed_may_fuse(ctx, plan) -> bool:
    """Mixed precision (16 or bf16: Lightning's MixedPrecision refuses `gradient_clip_val` for
    an optimizer handling unscaling under either) with an optimizer that may be fused."""
    return ctx.found.get("precision") is not None and _fused_argument(ctx, plan) is not None


# Where the script unscaled: Lightning's mixed precision unscaled a non-fused optimizer before
# the hook already (a second unscale_ raises), a fused one it left scaled (its step unscales):
# its own test (`_optimizer_handles_unscaling`); no scaler under "32-true" or "bf16-mixed".
# The optimizer unwrapped: GradScaler keys its state by the object it steps, the torch one.
_FUSED_UNSCALE = """\
# a fused optimizer unscales in its own step: Lightning left its gradients scaled
if getattr(self.optimizers(use_pl_optimizer=False), "_step_supports_amp_scaling", False) and (
    getattr(self.trainer.precision_plugin, "scaler", None) is not None
):
    self.trainer.precision_plugin.scaler.unscale_(self.optimizers(use_pl_optimizer=False))
"""


def _fused_unscale(leading_lines=()) -> cst.BaseStatement:
    """The hook's unscale of a fused optimizer's gradients, the script's `scaler.unscale_`."""
    made = cst.parse_statement(_FUSED_UNSCALE)
    return made.with_changes(leading_lines=[*leading_lines, *made.leading_lines])


def _unscaling_fused(ctx, steps, stmt) -> list[cst.BaseStatement]:
    """configure_gradient_clipping's body for an optimizer that may be fused: the script's
    clipping statement, its `scaler.unscale_(optimizer)` -- first in its `if` block, or a
    statement of the step before it -- the Trainer's scaler unscaling a fused optimizer. A
    script clipping under a scaler unscales first (amp.py refuses it otherwise)."""
    if isinstance(stmt, cst.If) and _unscales(ctx, stmt.body.body[0]):
        first = stmt.body.body[0]
        body = [_fused_unscale(first.leading_lines), *stmt.body.body[1:]]
        return [stmt.with_changes(body=stmt.body.with_changes(body=body))]
    position = steps["clip"][0]
    unscaled = [p for p in steps.get("unscaled_at", []) if steps["backward"] < p < position]
    if not unscaled or ctx.found.get("scaler") is None:
        return [stmt]
    return [_fused_unscale(), stmt]


def _refuse_hook_parameter_reads(hook_body, stmt) -> None:
    """The script's clipping run in configure_gradient_clipping must not read a name the
    hook's parameters shadow there (a name the module does not carry, an import, would read
    the parameter); `stmt` is where the script clips."""
    clash = sorted(collect_names(hook_body).reads & _HOOK_PARAMETERS)
    if clash:
        raise Unsupported(
            STEP_SEQUENCE,
            f"clipping in configure_gradient_clipping reads `{clash[0]}`, a parameter of "
            "the hook",
            stmt,
        )


def _without_unscale(ctx, stmt):
    """nanoGPT's `if grad_clip != 0.0: scaler.unscale_(optimizer); clip_grad_norm_(...)`
    without its unscale: Lightning unscales (a scaler in use) before configure_gradient_clipping,
    and a disabled scaler's unscale_ does nothing."""
    if isinstance(stmt, cst.If) and _unscales(ctx, stmt.body.body[0]):
        return stmt.with_changes(body=stmt.body.with_changes(body=stmt.body.body[1:]))
    return stmt


def _fused_argument(ctx, plan) -> str | None:
    """The code of the optimizer call's `fused=` argument when it may be true, "" when the
    call is not seen here (built by a function, handed in), None when it is known not fused
    (no `fused=`: torch's default; `fused=False`)."""
    from .optimizer_factories import optimizer_calls
    from .optimizer_methods import method_optimizer_calls  # -> factories -> ... -> here

    optimizer = plan.optimizer
    found = single_assign(optimizer.stmt) if optimizer.stmt is not None else None
    call = found[1] if found else None
    if not isinstance(call, cst.Call):
        return ""
    if any(q.startswith("torch.optim.") for q in ctx.call_qualnames(call)):
        built = [call]
    elif optimizer_calls(ctx, call) is not None:  # `build_optimizer(cfg, model)`: each
        built = optimizer_calls(ctx, call)  # optimizer it may return, arguments as written
    else:  # nanoGPT's `model.configure_optimizers(...)`: the calls its method returns
        built = method_optimizer_calls(ctx, call)
        if built is None:
            return ""
    for made in built:
        fused = keyword_value(made, "fused")
        if fused is not None and not m.matches(fused, m.Name("False") | m.Name("None")):
            return ctx.module.code_for_node(fused)
    return None


def _steps_model_order(ctx, plan) -> bool:
    """The optimizer holds the model's parameters in `model.parameters()`'s order: built on
    `model.parameters()` itself (or given, read elsewhere)."""
    optimizer = plan.optimizer
    if optimizer.stmt is None:
        return True
    found = single_assign(optimizer.stmt)
    call = found[1] if found else None
    if not isinstance(call, cst.Call) or not call.args:
        return False
    first = call.args[0]
    if first.keyword is not None and first.keyword.value != "params":
        return False
    names = {n for model in plan.models for n in (model.name, *model.aliases)}
    owners = m.OneOf(*[m.Name(n) for n in names])
    return m.matches(first.value, m.Call(func=m.Attribute(value=owners, attr=m.Name("parameters"))))


# configure_gradient_clipping's parameters: names the script's clipping must not read there
_HOOK_PARAMETERS = frozenset({"optimizer", "gradient_clip_val", "gradient_clip_algorithm"})


def _keep_norm(ctx, plan, steps, stmt) -> None:
    """`grad_norm = clip_grad_norm_(model.parameters(), v)`, its norm read later: the script's
    own statement. Under manual optimization it stays in the step; otherwise it is the body
    of `configure_gradient_clipping`, which Lightning and the runtime call on every optimizer
    step after backward() (the closure) and before `optimizer.step()`, with or without
    `gradient_clip_val`. The norm is module state; the code reading it after the step runs in
    on_train_batch_end (after_step.py), after the step as in the script."""
    position, norm = steps["clip"][0], norm_name(stmt)
    if steps.get("manual_optimization"):
        steps.setdefault("kept", []).append((position, stmt))
        return
    clash = sorted(collect_names(stmt).reads & _HOOK_PARAMETERS)
    if clash:
        raise Unsupported(
            STEP_SEQUENCE,
            f"clipping whose norm is used reads `{clash[0]}`, a parameter of "
            "configure_gradient_clipping",
            stmt,
        )
    for at, other in steps["body"]:
        if position < at < steps["optimizer_step"] and norm in collect_names(other).reads:
            raise Unsupported(
                STEP_SEQUENCE,
                f"the gradient norm `{norm}` is read before optimizer.step() (Lightning "
                "clips right before its step)",
                other,
            )
    plan.clip_hook = [stmt]
