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

from ..analysis.function_reads import functions_doing, module_functions
from ..analysis.statements import BACKWARD, contains
from ..rule import Unsupported
from ..upgrade.edits import keyword_value
from .amp import MIXED_PRECISION, _autocast_of

RULES = ()

# tensor methods that reach no op autocast lists: moves, views, casts, reads
_NEUTRAL_METHODS = frozenset(
    "item tolist detach cpu cuda to numpy size numel dim float double half bfloat16 long int "
    "bool view reshape unsqueeze squeeze flatten contiguous clone argmax argmin mean append "
    "train eval items keys values get".split()
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


def read(ctx, plan, steps) -> None:
    """A step statement outside every autocast region that may compute under autocast: the
    regions go back around their statements, the step runs in full precision around them.
    A region statement a Lightning hook would run outside the step's autocast is refused."""
    regions = ctx.found.get("autocast_regions")
    if not regions or ctx.found.get("precision") is None:
        return
    in_step = {id(s) for s in plan.train_body}
    # the statements Lightning runs in on_train_batch_start / on_train_batch_end
    hooks = [*plan.before_step, *(s for _, s in steps.get("moved_after_step", []))]
    in_hooks = {id(s) for s in hooks}
    for region, body in regions:
        moved = next((b for b in body if id(b) in in_hooks and computes(ctx, b)), None)
        if moved is not None:
            raise Unsupported(
                MIXED_PRECISION,
                f"`{_first_line(ctx, moved)}` runs in the script's autocast region, but in a "
                "Lightning hook outside training_step after the conversion, without autocast",
                moved,
            )
    inside = {id(s) for _, body in regions for s in body}
    cause = next((s for s in plan.train_body if id(s) not in inside and computes(ctx, s)), None)
    if cause is None:
        return
    for region, body in regions:
        backward = next((b for b in body if id(b) not in in_step and contains(b, BACKWARD)), None)
        if backward is not None:  # Lightning's backward runs after the step, without autocast
            raise Unsupported(
                MIXED_PRECISION,
                "backward() inside an autocast region around part of the training step "
                f"(`{_first_line(ctx, cause)}` computes outside it): Lightning runs backward "
                "without autocast",
                backward,
            )
        plan.train_body = _wrapped(plan.train_body, region, body, cause, ctx)
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
        if regions and any(computes(ctx, s) for s in evaluation.body if id(s) not in regions):
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
    """Whether `stmt` may run an op autocast changes (see the docstring); a call of one of
    the script's functions when its body may (outside autocast regions of its own that set
    their state whatever surrounds them)."""
    functions = module_functions(ctx.module)
    computing = ctx.found.get("autocast_computing_functions")
    if computing is None:
        computing = functions_doing(
            functions.values(), lambda f, found: _computes(ctx, f.body, functions, found)
        )
        ctx.found["autocast_computing_functions"] = computing
    return _computes(ctx, stmt, functions, computing)


def _computes(ctx, node, functions, computing) -> bool:
    found = _Calls(ctx)
    node.visit(found)
    if found.operator:
        return True
    for call in found.calls:
        names = ctx.call_qualnames(call)
        if names & _NEUTRAL_FUNCTIONS or any(q.startswith("math.") for q in names):
            continue  # `math` takes Python numbers (a tensor through its __float__)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _NEUTRAL_METHODS:
            continue
        if isinstance(call.func, cst.Name) and call.func.value in functions:
            if call.func.value in computing:
                return True
            continue
        return True
    return False


class _Calls(cst.CSTVisitor):
    """The calls and computing operators of a node, not inside an autocast region whose
    state does not depend on the surrounding one: an autocast always on (no `enabled=`), or
    a name the training step's own region is (nanoGPT's `ctx`, whose nullcontext comes with
    "32-true", as the step's)."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx
        self.calls: list[cst.Call] = []
        self.operator = False

    def visit_With(self, node: cst.With) -> bool:
        return not _sets_its_own_state(self.ctx, node)

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self.operator |= isinstance(node.operator, (cst.MatrixMultiply, cst.Power))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.operator |= isinstance(node.operator, (cst.MatrixMultiplyAssign, cst.PowerAssign))


def _sets_its_own_state(ctx, stmt: cst.With) -> bool:
    if len(stmt.items) != 1 or stmt.items[0].asname is not None:
        return False
    item = stmt.items[0].item
    if isinstance(item, cst.Name):
        own = [r.items[0].item for r, _ in ctx.found.get("autocast_regions", [])]
        return any(isinstance(o, cst.Name) and o.value == item.value for o in own)
    found = _autocast_of(ctx, item)
    return found is not None and keyword_value(item, "enabled") is None


def _wrapped(stmts, region, body, cause, ctx) -> list:
    """`stmts` with the statements of `region` they hold (one run of them) back under it."""
    kept = [k for k, s in enumerate(stmts) if any(s is b for b in body)]
    if not kept:
        return stmts
    if kept != list(range(kept[0], kept[0] + len(kept))):
        raise Unsupported(
            MIXED_PRECISION,
            "an autocast region around part of the training step "
            f"(`{_first_line(ctx, cause)}` computes outside it) whose statements the "
            "conversion does not keep together",
            region,
        )
    inner = [stmts[k] for k in kept]
    if inner[0] is body[0]:  # patterns/amp.py gave it the region's leading lines
        own = list(inner[0].leading_lines)[len(region.leading_lines) :]
        inner[0] = inner[0].with_changes(leading_lines=own)
    again = region.with_changes(body=region.body.with_changes(body=inner))
    return [*stmts[: kept[0]], again, *stmts[kept[-1] + 1 :]]


def _first_line(ctx, stmt) -> str:
    """The statement's first line; for a compound one, its first simple statement that
    computes (`teacher_logits = teacher(inputs)` rather than `with torch.no_grad():`)."""
    if not isinstance(stmt, cst.SimpleStatementLine):
        inner = m.findall(stmt, m.SimpleStatementLine())
        stmt = next((s for s in inner if computes(ctx, s)), stmt)
    return ctx.module.code_for_node(stmt.with_changes(leading_lines=[])).strip().splitlines()[0]
