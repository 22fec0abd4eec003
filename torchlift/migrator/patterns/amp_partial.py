"""Pattern: an autocast region around part of a step -> the rest of the step in full precision.

    with torch.no_grad():
        teacher_logits = teacher(inputs)               # float32 in the script
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.amp):
        student_logits = student(inputs)               # the only autocast code
    loss = kd_loss(student_logits.float(), teacher_logits)

Lightning's mixed precision runs the whole `training_step` (and each evaluation step) under
its autocast; the script autocast only its region, so the teacher's forward would run in
bfloat16. When a statement the step keeps outside the region may compute something autocast
changes, the step's body goes under `torch.autocast(self.device.type, enabled=False)` and the
region stays as the script wrote it inside: each statement runs with the autocast state the
script gave it (off outside, the script's own region inside, which its `enabled=` still turns
on or off), bit for bit; the Trainer's `precision=` keeps only the GradScaler's part.

What may compute under autocast: any call but a few that never reach an autocast-listed op
(moving, viewing, converting or reading a tensor: `.item()`, `.to(...)`, `.view(...)`, the
builtins `print`, `len`, ...; random and constant factories; `torch.cat`/`torch.stack`, whose
autocast promotion is the same as their type promotion), and the operators `@` and `**`
(matmul, pow). Statements a Lightning hook runs outside `training_step` (after the optimizer
step, before a closure) are not the step's. A region the step keeps only in part (some of its
statements moved to a hook) is refused (TL113).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..rule import Unsupported
from .amp import MIXED_PRECISION, _autocast_of

RULES = ()

# tensor methods that reach no op autocast lists: moves, views, casts, reads
_NEUTRAL_METHODS = frozenset(
    "item tolist detach cpu cuda to numpy size numel dim float double half bfloat16 long int "
    "bool view reshape unsqueeze squeeze flatten contiguous clone argmax argmin append".split()
)
_NEUTRAL_FUNCTIONS = frozenset(
    [
        *(
            "builtins." + name
            for name in "print len float int round str bool abs min max isinstance range "
            "enumerate zip list tuple dict format repr".split()
        ),
        *(
            "torch." + name
            for name in "randn rand randint randn_like rand_like randint_like randperm zeros "
            "ones zeros_like ones_like full full_like empty arange tensor as_tensor cat stack "
            "no_grad".split()
        ),
    ]
)
_COMPUTING_OPERATORS = (cst.MatrixMultiply, cst.Power, cst.MatrixMultiplyAssign, cst.PowerAssign)


def read(ctx, plan, steps) -> None:
    """A step statement outside every autocast region that may compute under autocast: the
    regions go back around their statements, the step runs in full precision around them."""
    regions = ctx.found.get("autocast_regions")
    if not regions or ctx.found.get("precision") is None:
        return
    inside = {id(s) for _, body in regions for s in body}
    cause = next(
        (s for s in plan.train_body if id(s) not in inside and computes(ctx, s)), None
    )
    if cause is None:
        return
    unclaimed = {id(s) for _, s in steps["body"]}
    for region, body in regions:
        plan.train_body = _wrapped(plan.train_body, region, body, unclaimed, cause, ctx)
    ctx.found["partial_autocast"] = cause
    plan.notes.append(
        "the script autocast only part of the training step "
        f"(`{_first_line(ctx, cause)}` runs outside its region): the step runs under "
        "`torch.autocast(..., enabled=False)` with the script's region kept inside it, where "
        "Lightning's mixed precision would autocast all of it"
    )


def clean(ctx, plan) -> None:
    """The training step read above, and an evaluation step computing outside the autocast
    regions it keeps as written (patterns/amp.py wraps the ones with none): in full
    precision around them. Runs after amp.clean, which sets the evaluation steps."""
    if ctx.found.get("precision") is None:
        return
    if ctx.found.get("partial_autocast") is not None:
        plan.full_precision_passes.add("training_step")
    for step, evaluation in (("validation_step", plan.validation), ("test_step", plan.test)):
        if evaluation is None or step in plan.full_precision_passes:
            continue
        regions = {id(s) for s in evaluation.body if _is_region(ctx, s)}
        if regions and any(
            computes(ctx, s) for s in evaluation.body if id(s) not in regions
        ):
            plan.full_precision_passes.add(step)


def _is_region(ctx, stmt) -> bool:
    """`with <autocast>:` as patterns/amp.py reads it (the call, or a name bound to one)."""
    return (
        isinstance(stmt, cst.With)
        and len(stmt.items) == 1
        and stmt.items[0].asname is None
        and _autocast_of(ctx, stmt.items[0].item) is not None
    )


def computes(ctx, stmt) -> bool:
    """Whether `stmt` may run an op autocast changes (see the docstring)."""
    if m.findall(stmt, m.OneOf(*(m.TypeOf(t)() for t in _COMPUTING_OPERATORS))):
        return True
    for call in m.findall(stmt, m.Call()):
        if ctx.call_qualnames(call) & _NEUTRAL_FUNCTIONS:
            continue
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _NEUTRAL_METHODS:
            continue
        return True
    return False


def _wrapped(stmts, region, body, unclaimed, cause, ctx) -> list:
    """`stmts` with the statements of `region` they hold (one run of them) back under it."""
    kept = [k for k, s in enumerate(stmts) if any(s is b for b in body)]
    moved = next((b for b in body if id(b) in unclaimed and not any(b is s for s in stmts)), None)
    split = bool(kept) and kept != list(range(kept[0], kept[0] + len(kept)))
    if moved is not None or split:
        raise Unsupported(
            MIXED_PRECISION,
            "an autocast region around part of the training step "
            f"(`{_first_line(ctx, cause)}` runs outside it) that Lightning's hooks would "
            "split: its statements do not all stay together in training_step",
            region,
        )
    if not kept:
        return stmts
    inner = [stmts[k] for k in kept]
    if inner[0] is body[0]:  # patterns/amp.py gave it the region's leading lines
        own = list(inner[0].leading_lines)[len(region.leading_lines) :]
        inner[0] = inner[0].with_changes(leading_lines=own)
    again = region.with_changes(body=region.body.with_changes(body=inner))
    return [*stmts[: kept[0]], again, *stmts[kept[-1] + 1 :]]


def _first_line(ctx, stmt) -> str:
    return ctx.module.code_for_node(stmt.with_changes(leading_lines=[])).strip().splitlines()[0]
