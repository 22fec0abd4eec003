"""Pattern: code after `optimizer.step()` that reads the model -> `on_train_batch_end`.

    for b_x, b_y in train_loader:
        loss = loss_func(cnn(b_x), b_y)        -> training_step
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        step += 1                              -> on_train_batch_end(self, outputs, ...)
        if step % EVAL_EVERY == 0:                (Lightning calls it after the optimizer step,
            print(accuracy_of(cnn))                as the script ran this code)
        if step % SAVE_EVERY == 0:
            torch.save(cnn.state_dict(), ...)  -> the same call, on global rank zero only

The same for code reading what the step changed besides the model: the optimizer or a
scheduler stepped in the batch (`print(scheduler.get_last_lr())` after `scheduler.step()`),
the norm clipping returned (clipping.py). Code after the step reading none of these stays in
`training_step` (it runs before Lightning's step, which it cannot observe). Once one statement
after the step reads the model, every statement after the step moves to the hook, in order,
so their prints and counters keep their sequence. Names the step computes and the hook reads
(the loss, the batch) are carried as `self.` state by resolve_names; the batch index is the
hook's `batch_idx`.

A step loop's `break` there becomes `self.trainer.should_stop = True` (and `return` when code
follows it): the loop is one epoch for the Trainer, which ends training right after the hook.

Refused (TL146): with gradient accumulation the hook runs after every batch, not after each
optimizer step, so model reads after a conditional step keep TL109. (TL122) a `break` there in
a batch loop (it ends the epoch only), or where Lightning would still step a scheduler or
validate after the hook.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.confined_effects import root_name
from ..analysis.function_reads import functions_reading
from ..analysis.model_views import model_views, reads_optimizer_tensors
from ..analysis.names import bound_names, collect_names, rename
from ..analysis.statements import direct_breaks
from ..emit.rank_zero import under_test
from ..rule import Rule
from .clipping import norm_name
from .closure_step import FOUND as CLOSURE_FOUND
from .early_break import break_ends_its_blocks
from .epoch_schedulers import scheduler_names
from .epoch_stop import BreakToShouldStop
from .eval_metrics import SelfPrint
from .scheduler_every import held_schedulers

READS_AFTER_ACCUMULATED_STEP = Rule(
    "TL146",
    "code after an accumulated optimizer step reads the model",
    """Code after `optimizer.step()` that reads the model (an evaluation every N steps, a
    checkpoint) moves to `on_train_batch_end`, which Lightning calls after the optimizer step.
    With gradient accumulation the step happens only every N batches while the hook runs after
    every batch: the code would see weights before the step it was written after.""",
    """Read the model at the start of the next step, or at the end of the epoch.""",
    """
    for epoch in range(2):
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x), y) / 2
            loss.backward()
            if (i + 1) % 2 == 0:
                optimizer.step()
                optimizer.zero_grad()
            print(model.weight.sum())
    """,
)

BREAK_AFTER_STEP = Rule(
    "TL122",
    "`break` in code that reads the model after optimizer.step()",
    """Code after `optimizer.step()` that reads the model (a test accuracy printed every k
    steps) moves to `on_train_batch_end`, which runs after the step as in the script. In a
    step loop (one epoch for the Trainer) a `break` there becomes `self.trainer.should_stop =
    True`, which ends training right after the hook. In a batch loop inside an epoch loop it
    would have to end only the epoch, which a hook cannot do; nor is it converted with an
    accumulated step, a scheduler stepped after the `break` (Lightning steps it before the
    hook), or a validation pass (Lightning validates once more when the Trainer stops).""",
    """Move the `break` before the code reading the model, or test the condition at the end
    of the epoch and break the epoch loop there.""",
    """
    for epoch in range(3):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            accuracy = (model(x).argmax(1) == y).float().mean()
            if accuracy > 0.9:
                break
    """,
)

RULES = (READS_AFTER_ACCUMULATED_STEP, BREAK_AFTER_STEP)

STOPS_AFTER_STEP = "stop_after_step"  # ctx.found: the step loop's `break` after the step

_SAVE = frozenset({"torch.save", "torch.serialization.save"})


def bind(ctx, plan, steps) -> None:
    """Take the statements after the optimizer step when one of them reads the model."""
    opt_step = steps.get("optimizer_step")
    if opt_step is None or not plan.models:
        return
    model_names = {n for model in plan.models for n in (model.name, *model.aliases)}
    after = [(p, s) for p, s in steps["body"] if p > opt_step]
    # a call of the script's own function reading the model (`quick_eval()`) reads it too
    # and a name holding the model's objects (`parameters = list(model.parameters())` read
    # as `p.grad` after the step), bound before the loop or in the step before optimizer.step()
    optimizers = {optimizer.name for optimizer in plan.optimizers}
    before = [*ctx.scope_before, *(s for p, s in steps["body"] if p < opt_step)]
    model_names |= model_views(before, model_names, optimizers)
    reading_names = model_names | functions_reading(ctx.module, model_names)
    # a scheduler the epoch builds, stepped after the optimizer's step (epoch_schedulers.py)
    reading_names |= scheduler_names(ctx, steps)
    # a scheduler built before the loop, stepped under a test kept as written (scheduler_every)
    reading_names |= held_schedulers(steps)
    # the optimizer's and a scheduler's state (`scheduler.get_last_lr()`), as their step()s
    # left it: Lightning steps them after training_step, before on_train_batch_end -- but a
    # read the script makes before a scheduler's step (`lrs.append(get_lr(optimizer))` then
    # `sched.step()`) sees the rate of this step, as training_step does, not the next one
    stepped = {name for _, name, _ in steps["step"]}
    scheduler_steps = [p for p, name, _ in steps["step"] if name not in optimizers]
    norm = _clip_norm(steps)
    if norm is not None:  # set by configure_gradient_clipping, before the step (clipping.py)
        reading_names.add(norm)
    # an accumulation group's tail runs after the step it follows (accumulation.py): it moves
    # with every statement after it, whatever it reads
    tail = steps.get("after_group")
    tail_stmt = tail[1] if tail is not None else None
    tail_source = steps["accumulate_tail"][1] if tail is not None else []

    # what the step's own code read: a tensor of its graph (a memory bank in `features @
    # memory.t()`) changed in place before Lightning's backward would fail autograd's check
    step_reads = collect_names(*[s for p, s in steps["body"] if p < opt_step]).reads

    def reads_after_the_step(position, stmt) -> bool:
        reads = collect_names(stmt).reads
        if reads & reading_names or changed_in_place(stmt) & step_reads:
            return True
        if reads_optimizer_tensors(stmt, optimizers):  # `p.grad` of a group's "params"
            return True
        return bool(reads & stepped) and not any(p > position for p in scheduler_steps)

    reading = [s for p, s in after if reads_after_the_step(p, s)]
    # after a step closure, training_step runs once per evaluation of it: all code after the
    # step goes to the hook, which runs once per step (closure_step.py)
    closure = ctx.found.get(CLOSURE_FOUND) is not None
    if not reading and tail is None and not (closure and after):
        return
    reading = [s for s in reading if s is not tail_stmt]  # the tail runs after steps only
    if reading and steps.get("accumulate") is not None:
        ctx.block(
            READS_AFTER_ACCUMULATED_STEP,
            "code after an accumulated optimizer.step() reads the model (on_train_batch_end "
            "runs after every batch)",
            reading[0],
        )  # and taken below like a convertible one: one message for this cause, not TL109
    after = _stops_after_step(ctx, plan, steps, after)
    steps["moved_after_step"] = after  # with their positions (progress_bar's to read)
    steps["body"] = [(p, s) for p, s in steps["body"] if p < opt_step]
    plan.train_body = [s for _, s in steps["body"]]
    moved = [s for _, s in after]
    # the change log finds statements as written: the group's tail by its own statements
    source = [s for stmt in moved for s in (tail_source if stmt is tail_stmt else [stmt])]
    lines = list(moved[0].leading_lines)
    while lines and lines[0].comment is None:  # the blank line that set it apart from the step
        lines.pop(0)
    moved[0] = moved[0].with_changes(leading_lines=lines)
    plan.after_step = moved
    plan.after_step_source = source


def _stops_after_step(ctx, plan, steps, after) -> list:
    """`after` with the `break` of a step loop as `self.trainer.should_stop = True` (and
    `return` when code follows it in the hook): the loop is one epoch, which Lightning ends
    after the hook, before any further batch. Refused (TL122) in a batch loop (the `break`
    ends the epoch only), with an accumulated step, code after the `break` in its own block,
    or a scheduler stepped after it (Lightning steps it before the hook); a validation pass,
    which Lightning runs once more when the Trainer stops, is refused in clean()."""
    optimizers = {optimizer.name for optimizer in plan.optimizers}
    converted = []
    for position, stmt in after:
        if not direct_breaks(stmt):
            converted.append((position, stmt))
            continue
        later_schedulers = [
            s for p, name, s in steps["step"] if name not in optimizers and p > position
        ]
        if not plan.step_loop:
            reason = "`break` of the batch loop after the step in code reading the model"
        elif steps.get("accumulate") is not None:
            reason = "`break` after an accumulated step in code reading the model"
        elif not break_ends_its_blocks(stmt):
            reason = "code after the `break` in its own block would still run on the last step"
        elif later_schedulers:
            reason = "scheduler stepped after the `break`: Lightning steps it before the hook"
        else:
            followed = any(p > position for p, _ in after)
            ctx.found[STOPS_AFTER_STEP] = stmt
            converted.append((position, stmt.visit(BreakToShouldStop(followed))))
            continue
        ctx.block(BREAK_AFTER_STEP, reason, stmt)
        converted.append((position, stmt))
    return converted


def changed_in_place(stmt) -> set[str]:
    """The names whose objects `stmt` changes in place: `x.mul_(...)`, `x.a.index_copy_(...)`,
    `x[i] = ...`, `x.a += ...` (a name rebound is no change of its object)."""
    changed = set()
    for call in m.findall(stmt, m.Call(func=m.Attribute(attr=m.Name()))):
        if call.func.attr.value.endswith("_") and not call.func.attr.value.startswith("_"):
            changed.add(root_name(call.func.value))
    for target in m.findall(stmt, m.AssignTarget() | m.AugAssign()):
        if isinstance(target.target, (cst.Attribute, cst.Subscript)):
            changed.add(root_name(target.target))
    return changed - {None}


def _clip_norm(steps) -> str | None:
    """The gradient norm clipping returns, when the module's clipping hook sets it."""
    if steps.get("clip") is None or steps.get("manual_optimization"):
        return None
    return norm_name(steps["clip"][2])


def clean(ctx, plan) -> None:
    """The loss the hook reads is the step's output (`outputs["loss"]`, the same value,
    detached; not when the Trainer accumulates); `torch.save(...)` in the hook runs on global
    rank zero only (one file, not one per process); `print` is `self.print` (rank zero,
    through the progress bar). The same for the code a step closure's hook runs before the
    step, once per step too (closure_step.py)."""
    stop = ctx.found.get(STOPS_AFTER_STEP)
    if stop is not None and plan.validation is not None:
        ctx.block(
            BREAK_AFTER_STEP,
            "`break` after the step with a validation pass: Lightning validates once more when "
            "the Trainer stops",
            stop,
        )
    guard, to_self_print = _RankZeroSaves(ctx), SelfPrint(ctx)
    plan.before_step = [s.visit(guard).visit(to_self_print) for s in plan.before_step]
    if not plan.after_step:
        return
    names = collect_names(*plan.after_step)
    taken = collect_names(*plan.train_body).all() | names.all()
    for stmt in ctx.scope_before:
        taken |= bound_names(stmt)
    # a name of another hook's code (`outputs = model(images)` in the validation pass)
    # would be carried as module state, hook parameter or not (resolve_names)
    taken |= collect_names(*plan.pre_train, *plan.post_train, *_eval_code(plan)).all()
    loss = plan.loss_name
    # Lightning's `outputs["loss"]` is the loss divided by accumulate_grad_batches: the
    # script's own loss is then carried as state (resolve_names)
    accumulates = any(keyword == "accumulate_grad_batches" for keyword, _ in plan.trainer_args)
    if (
        plan.loss_capture is None
        and not accumulates
        and loss not in names.writes
        and "outputs" not in taken
    ):
        step_output = cst.parse_expression("outputs['loss']")  # black picks the quotes
        plan.after_step = [rename(s, {loss: step_output}) for s in plan.after_step]
    plan.after_step = [s.visit(guard).visit(to_self_print) for s in plan.after_step]


def _eval_code(plan) -> list:
    passes = [p for p in (plan.validation, plan.test) if p is not None]
    return [stmt for p in passes for stmt in (*p.before, *p.body, *p.after, *p.following)]


class _RankZeroSaves(cst.CSTTransformer):
    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if len(updated_node.body) == 1 and m.matches(updated_node.body[0], m.Expr(m.Call())):
            if self.ctx.call_qualnames(updated_node.body[0].value) & _SAVE:
                (guarded,) = under_test([updated_node], "self.trainer.is_global_zero")
                return guarded
        return updated_node
