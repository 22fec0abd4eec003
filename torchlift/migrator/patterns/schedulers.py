"""Pattern: learning-rate schedulers -> returned by configure_optimizers with their interval.

    scheduler = StepLR(optimizer, ...)    -> moved into configure_optimizers
    scheduler.step()  (in the batch loop) -> "interval": "step"
    scheduler.step()  (after it)          -> "interval": "epoch"
    plateau.step(val_loss)                -> self.log("val_loss", val_loss) + "monitor"

Refused (TL106): several schedulers, one bound twice or not on the loop's optimizer, step()
with arguments other than a ReduceLROnPlateau metric; (TL105) stepped before the optimizer;
(TL109) stepped before the batch loop. Epoch code that reads the optimizer or scheduler
where Lightning's own step would have moved the rate (before the step of a scheduler Lightning
steps right after the epoch's last batch; after the step of a ReduceLROnPlateau, which
Lightning steps after the epoch hooks) keeps the script's step in place, with its metric
(kept_optimizers.py); so does a step after the epoch loop's `break`, which the script skips
on the stopping epoch (epoch_stop.py).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..analysis.statements import call_method
from ..rule import Unsupported
from ..shapes.context import EPOCH_STATEMENT
from .bindings import BINDING, optim_kind
from .scheduler_factories import built_on, choice_note, scheduler_classes
from .step_sequence import STEP_SEQUENCE

RULES = ()


def read(ctx, plan, steps) -> None:
    if steps.get("manual"):  # manual_optimization refuses schedulers of several optimizers
        return
    optimizer = plan.optimizer
    schedulers = [s for s in steps["step"] if s[1] != optimizer.name]
    epoch_steps = [s for s in plan.post_train if call_method(s, "step") is not None]
    for stmt in plan.pre_train:
        if call_method(stmt, "step") is not None:
            raise Unsupported(
                EPOCH_STATEMENT, "scheduler.step() before the epoch's training loop", stmt
            )
    found = []
    for position, name, stmt in schedulers:
        found.append((name, "step", stmt))
        if position < steps["optimizer_step"]:
            raise Unsupported(STEP_SEQUENCE, "scheduler.step() before optimizer.step()", stmt)
    for stmt in epoch_steps:
        receiver = call_method(stmt, "step")
        if isinstance(receiver, cst.Name):
            binding, _ = ctx.binding(receiver.value)
            if optim_kind(ctx, binding) == "scheduler":
                args = stmt.body[0].value.args
                plateau = any(  # a function of the script's: the one it builds here
                    q.endswith("ReduceLROnPlateau") for q in scheduler_classes(ctx, binding[1])
                )
                if args and not (
                    plateau and len(args) == 1 and args[0].keyword is None and not args[0].star
                ):
                    raise Unsupported(BINDING, "scheduler.step(...) with arguments", stmt)
                if plateau and not args:
                    raise Unsupported(BINDING, "ReduceLROnPlateau stepped without a metric", stmt)
                found.append((receiver.value, "epoch", stmt))
    if not found:
        return
    if len({f[0] for f in found}) != 1 or len(found) != 1:
        raise Unsupported(BINDING, "several scheduler.step() calls", found[0][2])
    name, interval, stmt = found[0]
    (binding_stmt, call), count = ctx.binding(name)
    if count != 1:
        raise Unsupported(BINDING, f"scheduler `{name}` is bound more than once", binding_stmt)
    first = built_on(ctx, call)
    if first is None or not m.matches(first, m.Name(optimizer.name)):
        raise Unsupported(BINDING, "scheduler is not built on the loop's optimizer", binding_stmt)
    optimizer.scheduler, optimizer.scheduler_stmt, optimizer.interval = name, binding_stmt, interval
    note = choice_note(ctx, call)  # `get_scheduler(CFG, optimizer)`: which one, and why
    if note is not None and note not in plan.notes:
        plan.notes.append(note)
    if interval != "epoch":
        return
    at = next(i for i, s in enumerate(plan.post_train) if s is stmt)
    args = stmt.body[0].value.args
    ctx.found["epoch_scheduler_step"] = (stmt, list(plan.post_train))
    breaks = {id(s) for s in ctx.found.get("epoch_breaks", ())}
    for earlier in plan.post_train[:at]:
        if id(earlier) in breaks:
            # the epoch loop's `break` skips the step on the stopping epoch, Lightning would
            # still step it after on_train_epoch_end: the script's step stays in place, in
            # the hook the `break` leaves (epoch_stop.py, kept_optimizers.py)
            ctx.found["read_after_scheduler_step"] = earlier
            return
    if not args:
        # Lightning steps an epoch scheduler after the epoch's last batch, before validation
        # and on_train_epoch_end: epoch code reading the rate before the script's step
        # (`print(..., scheduler.get_last_lr())` then `scheduler.step()`) would see the next
        # epoch's; the script's step stays in place instead (kept_optimizers.py)
        v = plan.validation
        evaluation = [*v.before, *v.body, *v.after] if v is not None else []
        for earlier in [*evaluation, *plan.post_train[:at]]:
            if collect_names(earlier).reads & {name, optimizer.name}:
                ctx.found["read_after_scheduler_step"] = earlier
                return
    for later in plan.post_train[at + 1 :]:
        if collect_names(later).reads & {name, optimizer.name}:
            # ReduceLROnPlateau is stepped after on_train_epoch_end by Lightning: code reading
            # the rate after the script's step would see the old one. kept_optimizers.py keeps
            # both in the script, the step in place with its metric, or refuses
            ctx.found["read_after_scheduler_step"] = later
            return
    if args:  # ReduceLROnPlateau: log the metric; Lightning steps it with that value
        metric = args[0].value
        key = metric.value if isinstance(metric, cst.Name) else "monitor"
        optimizer.monitor = key
        code = ctx.module.code_for_node(metric)
        log = cst.parse_statement(f'self.log("{key}", {code})\n')
        log = log.with_changes(leading_lines=stmt.leading_lines)
        plan.post_train = [log if s is stmt else s for s in plan.post_train]
        return
    plan.post_train = [s for s in plan.post_train if s is not stmt]
