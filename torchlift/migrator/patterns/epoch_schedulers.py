"""Pattern: a scheduler the epoch builds itself (a warmup in the first epoch), stepped in the
batch loop after the optimizer -> the script's own code, in the epoch and batch hooks.

    def train_one_epoch(model, optimizer, loader, epoch):
        lr_scheduler = None                             on_train_epoch_start:
        if epoch == 0:                                      self.lr_scheduler = None
            lr_scheduler = LinearLR(optimizer, ...)         if epoch == 0:
        for x, y in loader:                                     self.lr_scheduler = LinearLR(
            ...                                                     <the torch optimizer>, ...)
            optimizer.step()                            on_train_batch_end (after Lightning's
            if lr_scheduler is not None:                optimizer step, as in the script):
                lr_scheduler.step()                         if self.lr_scheduler is not None:
                                                                self.lr_scheduler.step()

The `.step()` of a name the epoch binds, before its batch loop, only to None or to a
`torch.optim.lr_scheduler` call is no optimizer step: the statement holding it (alone or
under an `if`) is claimed here, so the step sequence does not read it as a conditional
optimizer step, and after_step.py moves it with the code after the step to
`on_train_batch_end`. The binding stays in the code before the batch loop
(`on_train_epoch_start`); resolve_names carries the scheduler as module state. The scheduler
is built on the torch optimizer itself, not on Lightning's wrapper of it (`clean` below):
torch's scheduler patches the `step` of the object it is given. Schedulers built before the
epoch loop are schedulers.py's (`configure_optimizers`): Lightning builds that one first, as
the script did before its epoch loop.

Stepped before `optimizer.step()`, the statement stays in `training_step`, which Lightning
runs before its optimizer step too.

Refused (TL105): such a scheduler stepped after the optimizer but before a per-batch
scheduler of `configure_optimizers`: Lightning steps that one right after the optimizer,
before `on_train_batch_end`, and two schedulers of one optimizer do not commute (a LambdaLR
sets the rate from its base, whatever the other did).
"""

from __future__ import annotations

import libcst as cst

from ..analysis.names import bound_names, collect_names
from ..analysis.statements import BACKWARD, OPTIMIZER_CALL, call_method, contains, single_assign
from .step_sequence import STEP_SEQUENCE

RULES = ()

FOUND = "epoch_schedulers"  # ctx.found key: the names of the epoch's own schedulers
_SCHEDULER_MODULE = "torch.optim.lr_scheduler."


def before_batch_loop(ctx, loop, pre):
    """Note the names the code before the batch loop binds to a scheduler (or None)."""
    names = epoch_schedulers(ctx, pre, loop)
    if names:
        ctx.found[FOUND] = names
    return pre


def epoch_schedulers(ctx, pre, loop) -> frozenset:
    """Names every binding of which in `pre` is `name = None` or `name = <scheduler>(...)`
    (at least one a scheduler), one of them unconditional (so each epoch starts from its
    own value), that nothing else in `pre` nor the batch loop binds."""
    values: dict[str, list] = {}
    unconditional: set[str] = set()
    other: set[str] = set()

    def walk(stmts, nested: bool) -> None:
        for stmt in stmts:
            assign = single_assign(stmt)
            if assign is not None:
                values.setdefault(assign[0], []).append(assign[1])
                if not nested:
                    unconditional.add(assign[0])
                other.update(bound_names(stmt) - {assign[0]})
            elif isinstance(stmt, cst.If):
                other.update(collect_names(stmt.test).writes)
                walk(stmt.body.body, True)
                orelse = stmt.orelse
                if isinstance(orelse, cst.If):
                    walk([orelse], True)
                elif orelse is not None:
                    walk(orelse.body.body, True)
            else:
                other.update(bound_names(stmt))

    walk(pre, False)
    other |= collect_names(loop).writes
    found = set()
    for name in unconditional - other:
        kinds = {_kind(ctx, value) for value in values[name]}
        if "scheduler" in kinds and kinds <= {"none", "scheduler"}:
            found.add(name)
    return frozenset(found)


def _kind(ctx, value) -> str | None:
    if isinstance(value, cst.Name) and value.value == "None":
        return "none"
    if isinstance(value, cst.IfExp):  # `LinearLR(...) if epoch == 0 else None`
        kinds = {_kind(ctx, value.body), _kind(ctx, value.orelse)}
        if None in kinds:
            return None
        return "scheduler" if "scheduler" in kinds else "none"
    if isinstance(value, cst.Call):
        called = ctx.call_qualnames(value)
        if called and all(q.startswith(_SCHEDULER_MODULE) for q in called):
            return "scheduler"
    return None


def claim(ctx, steps, stmt, position) -> bool:
    """Take `sched.step()`, or an `if` whose branches only step the epoch's schedulers, as
    code of the batch (kept in its place among the statements)."""
    names = ctx.found.get(FOUND)
    if not names or not _steps_only(stmt, names):
        return False
    steps.setdefault(FOUND, []).append((position, stmt))
    steps["body"].append((position, stmt))
    return True


def _steps_only(stmt, names) -> bool:
    """`stmt` does nothing with the optimizer but step schedulers of `names` (no arguments),
    directly or in the branches of `if`s."""
    receiver = call_method(stmt, "step")
    if receiver is not None:
        call = stmt.body[0].value
        return isinstance(receiver, cst.Name) and receiver.value in names and not call.args
    if not isinstance(stmt, cst.If) or contains(stmt.test, OPTIMIZER_CALL | BACKWARD):
        return False
    branches = [stmt.body.body]
    if isinstance(stmt.orelse, cst.If):
        branches.append([stmt.orelse])
    elif stmt.orelse is not None:
        branches.append(stmt.orelse.body.body)
    return all(_steps_only(s, names) for branch in branches for s in branch)


def scheduler_names(ctx, steps) -> frozenset:
    """The epoch's schedulers stepped in the batch loop: code reading them after the
    optimizer step moves with it (after_step.py)."""
    if not steps.get(FOUND):
        return frozenset()
    return ctx.found.get(FOUND, frozenset())


def read(ctx, plan, steps) -> None:
    """Lightning steps a per-batch scheduler of its own right after the optimizer, before
    `on_train_batch_end`: an epoch scheduler the script steps before that one would step
    after it."""
    opt_step = steps.get("optimizer_step")
    if opt_step is None or not plan.optimizers:
        return
    optimizers = {optimizer.name for optimizer in plan.optimizers}
    later = [(p, name) for p, name, _ in steps["step"] if name not in optimizers]
    for position, stmt in steps.get(FOUND, []):
        after = [name for p, name in later if p > position > opt_step]
        if after:
            ctx.block(
                STEP_SEQUENCE,
                f"the epoch's scheduler is stepped before `{after[0]}.step()`, which Lightning "
                "runs right after the optimizer step, before on_train_batch_end: the two "
                "schedulers would step in the other order",
                stmt,
            )


def clean(ctx, plan) -> None:
    """A scheduler the module's code builds is built on the torch optimizer: Lightning's
    wrapper (`self.optimizers()`) would have its own `step` patched by the scheduler, which
    then calls itself."""
    if not plan.optimizers or plan.optimizer.given:  # given: `self.<name>` is the optimizer
        return
    names = [optimizer.name for optimizer in plan.optimizers]
    real = "self.optimizers(use_pl_optimizer=False)"
    exprs = {
        name: cst.parse_expression(real if len(names) == 1 else f"{real}[{k}]")
        for k, name in enumerate(names)
    }
    to_real = _SchedulerOptimizer(ctx, exprs)
    for field in ("pre_train", "train_body", "after_step", "post_train"):
        setattr(plan, field, [_visited(stmt, to_real) for stmt in getattr(plan, field)])


def _visited(stmt, transformer):
    """`stmt` itself when the transformer changes nothing: the change log and other patterns
    know statements by identity."""
    new = stmt.visit(transformer)
    return stmt if new.deep_equals(stmt) else new


class _SchedulerOptimizer(cst.CSTTransformer):
    def __init__(self, ctx, exprs) -> None:
        super().__init__()
        self.ctx, self.exprs = ctx, exprs

    def leave_Call(self, original_node, updated_node):
        called = self.ctx.call_qualnames(original_node)
        if not called or not all(q.startswith(_SCHEDULER_MODULE) for q in called):
            return updated_node
        args = list(updated_node.args)
        for k, arg in enumerate(args):
            first = k == 0 and arg.keyword is None and not arg.star
            named = arg.keyword is not None and arg.keyword.value == "optimizer"
            if (first or named) and isinstance(arg.value, cst.Name):
                if arg.value.value in self.exprs:
                    args[k] = arg.with_changes(value=self.exprs[arg.value.value])
        return updated_node.with_changes(args=args)
