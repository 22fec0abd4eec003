"""Pattern: a scheduler built before the loop, stepped under a test after the optimizer
-> the scheduler of `configure_optimizers` with `"frequency": N`, or the `if` as written.

    sched = ExponentialLR(opt, gamma=0.7)         configure_optimizers:
    for it in range(n_iters):                         return {"optimizer": opt, "lr_scheduler":
        ...                                               {"scheduler": sched,
        opt.step()                                         "interval": "step", "frequency": 100}}
        if (it + 1) % 100 == 0:
            sched.step()

Lightning (loops/training_epoch_loop.py, `_update_learning_rates`) steps a scheduler of
interval "step" and frequency N right after the optimizer step of each batch with
`(batch_idx + 1) % N == 0`, `batch_idx` the batch's 0-based index in its epoch, and with
gradient accumulation only on the batches the optimizer steps on. The script's test is read
as `(counter + c) % N == 0` (`counter % N == 0`: c = 0), N an integer known before training,
the counter the batch loop's `enumerate` index or the step loop's `range(s, ...)` counter (one
epoch: shapes/iteration.py), counting batches from a start s known before training and not
rebound by the step. It holds on the same batches as Lightning's iff (s + c - 1) % N == 0:
`(i + 1) % N == 0` from 0, `i % N == 0` over `enumerate(loader, 1)`; with accumulation over A
batches (Lightning's), when A divides N too.

Any other test (`it % N == 0` from 0 also steps after the first batch, `it > warmup and ...`,
a counter of the script's own), or an `if` holding other code beside the step (a log line:
a frequency would step before it), keeps the `if` as written, with the code after the step, in
`on_train_batch_end`, which Lightning runs after its optimizer step, as the script ran it
(after_step.py). The script's optimizer and scheduler are then handed to the module
(kept_optimizers.py: the scheduler, built before the loop, holds the torch optimizer itself).
A test after the epoch's batch loop (`if (epoch + 1) % k == 0: sched.step()`) is kept the same
way, in `on_train_epoch_end`, which runs where the script's epoch code did; Lightning's epoch
frequency would step it before that hook, after the epoch's last optimizer step.

Refused (TL197): a frequency with an accumulation it does not follow (N not a multiple of the
group: Lightning skips the batches that do not step), a kept `if` on a scheduler the loop
also steps otherwise (Lightning steps its own one right after the optimizer, first).
"""

from __future__ import annotations

import libcst as cst

from ..analysis.loader_length import constant_int
from ..analysis.names import collect_names
from ..analysis.statements import BACKWARD, FLOW, OPTIMIZER_CALL, call_method, contains
from ..rule import Rule, Unsupported
from .bindings import optim_kind
from .epoch_schedulers import FOUND as EPOCH_SCHEDULERS

SCHEDULER_EVERY = Rule(
    "TL197",
    "scheduler stepped every N batches where Lightning would step it on other batches",
    """A scheduler stepped every N batches, `if (i + 1) % N == 0: scheduler.step()`, is
    Lightning's `"interval": "step", "frequency": N`: Lightning steps it after the optimizer
    step of each batch whose 0-based index in the epoch, plus one, is a multiple of N, and
    with gradient accumulation only on batches the optimizer steps on. With a group size that
    does not divide N, or a scheduler also stepped elsewhere in the batch (Lightning would
    step its own one first), the batches or the order would differ.""",
    """Step the scheduler every multiple of the accumulation group (`if (i + 1) % (2 * accum)
    == 0:`), and in one place per batch.""",
    """
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    for epoch in range(2):
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x), y) / 2
            loss.backward()
            if (i + 1) % 2 == 0:
                optimizer.step()
                optimizer.zero_grad()
            if (i + 1) % 3 == 0:
                scheduler.step()
    """,
)

RULES = (SCHEDULER_EVERY,)

FOUND = "scheduler_every"  # steps key: (position, the `if`, N)
KEPT = "scheduler_kept"  # steps key: [(position, name, the `if`, why no frequency)]
BATCH_COUNTER = "batch_counter"  # ctx.found key (shapes/iteration.py): (counter, its start)


def claim(ctx, steps, stmt, position) -> bool:
    """`if <test>: sched.step()` of a scheduler bound before the loop: the scheduler's step
    every N batches (schedulers.py makes it the per-batch one), or a statement of the batch
    kept as written (moved after Lightning's step with the code after it, after_step.py)."""
    found = _conditional_step(ctx, stmt)
    if found is None:
        return False
    name, inner = found
    counter = _batch_counter(ctx, steps)
    earlier = [s for _, s in steps["body"]]  # the batch's statements before this one
    if counter is not None and earlier and counter[0] in collect_names(*earlier).writes:
        counter = None  # rebound by the step: no longer the batch's number
    every = _frequency(ctx, stmt.test, counter)
    if len(stmt.body.body) > 1 and not isinstance(every, str):
        # a frequency would take the step out of the `if` and run it before the `if`'s
        # other code (Lightning steps its schedulers before on_train_batch_end)
        every = "the `if` holds other code, which the script runs after the scheduler's step"
    if isinstance(every, str):  # kept as written, after Lightning's step (after_step.py)
        steps["body"].append((position, stmt))
        steps.setdefault(KEPT, []).append((position, name, stmt, every))
        return True
    steps["step"].append((position, name, inner))
    steps[FOUND] = (position, stmt, every)
    return True


def _conditional_step(ctx, stmt):
    """(name, the step statement) of `if <test>: name.step()` (no `else`, no arguments), the
    `if` holding no other step, optimizer call or backward() (a log line beside the step is
    kept with it: `if step % log_every == 0: sched.step(); print(...)`), `name` bound once
    before the loop to a torch.optim.lr_scheduler call; else None."""
    if not isinstance(stmt, cst.If) or stmt.orelse is not None:
        return None
    if not isinstance(stmt.body, cst.IndentedBlock):
        return None
    steps = [s for s in stmt.body.body if call_method(s, "step") is not None]
    if len(steps) != 1:
        return None
    inner = steps[0]
    others = [s for s in stmt.body.body if s is not inner]
    if any(contains(s, OPTIMIZER_CALL | BACKWARD | FLOW) for s in others):
        return None
    receiver = call_method(inner, "step")
    if not isinstance(receiver, cst.Name) or inner.body[0].value.args:
        return None
    name = receiver.value
    if name in ctx.found.get(EPOCH_SCHEDULERS, ()):  # the epoch builds it: its own pattern
        return None
    binding, count = ctx.binding(name)
    if count != 1 or optim_kind(ctx, binding) != "scheduler":
        return None
    return name, inner


def _batch_counter(ctx, steps):
    """(name, start) of the counter of batches the loop has: the `enumerate` index of the
    batch loop, or the step loop's counter (from the shape); else None."""
    index = steps.get("index")
    if index is not None:
        return index, ctx.index_start.get(index, cst.Integer("0"))
    return ctx.found.get(BATCH_COUNTER)


def _frequency(ctx, test, counter) -> int | str:
    """N when `test` holds exactly on the batches with `(batch_idx + 1) % N == 0`, else why
    not."""
    if counter is None:
        return (
            "the loop has no batch counter Lightning's batch_idx follows (an `enumerate` "
            "index, a `range` step counter)"
        )
    name, start_expr = counter
    start = constant_int(ctx, start_expr)
    if start is None:
        return f"`{name}` does not start from an integer known before training"
    if not (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Equal)
        and constant_int(ctx, test.comparisons[0].comparator) == 0
        and isinstance(test.left, cst.BinaryOperation)
        and isinstance(test.left.operator, cst.Modulo)
    ):
        return f"the test is not `({name} + c) % N == 0`"
    every = constant_int(ctx, test.left.right)
    offset = _offset(ctx, test.left.left, name)
    if every is None or every < 1 or offset is None:
        return (
            f"the test is not `({name} + c) % N == 0` with c and N integers known before training"
        )
    if (start + offset - 1) % every != 0:
        first = next(k for k in range(1, every + 1) if (start + k - 1 + offset) % every == 0)
        return (
            f"`{name}` counts batches from {start}: the test holds after batch {first} of "
            f"each {every}, not after batch {every}"
        )
    return every


def _offset(ctx, expr, name: str) -> int | None:
    """c of `name`, `name + c` or `c + name` (c an integer known before training)."""
    if isinstance(expr, cst.Name):
        return 0 if expr.value == name else None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        for counter, other in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(counter, cst.Name) and counter.value == name:
                return constant_int(ctx, other)
    return None


def held_schedulers(steps) -> frozenset:
    """The schedulers whose `if` is kept: code stepping or reading them after the optimizer
    step runs after Lightning's step (after_step.py)."""
    return frozenset(name for _, name, _, _ in steps.get(KEPT, []))


def read(ctx, plan, steps) -> None:
    """The frequency, where Lightning steps the scheduler on the same batches; a kept `if`
    on a scheduler no other step of the loop steps."""
    for _, name, stmt, why in steps.get(KEPT, []):
        others = [s for _, n, s in steps["step"] if n == name]
        others += [s for s in plan.post_train if _receiver(call_method(s, "step")) == name]
        if others:
            raise Unsupported(
                SCHEDULER_EVERY,
                f"`{name}` is stepped under `if {ctx.module.code_for_node(stmt.test)}:` and "
                "elsewhere too: Lightning would step its own one first, whatever the order",
                stmt,
            )
        plan.notes.append(
            f"`{name}.step()` under `if {ctx.module.code_for_node(stmt.test)}:` kept as written "
            f"after Lightning's optimizer step, not as a scheduler frequency: {why}"
        )
    found = steps.get(FOUND)
    if found is None:
        return
    _, stmt, every = found
    accumulate = steps.get("accumulate")
    group = constant_int(ctx, accumulate) if accumulate is not None else 1
    # Lightning only looks at the frequency on batches that step: a multiple of the group
    if group is None or every % group != 0:
        raise Unsupported(
            SCHEDULER_EVERY,
            f"a scheduler stepped every {every} batches with gradient accumulation over "
            f"`{ctx.module.code_for_node(accumulate)}` batches: Lightning steps it only on "
            "batches the optimizer steps on, the script on every multiple of "
            f"{every}",
            stmt,
        )
    plan.optimizer.frequency = every


def _receiver(node) -> str | None:
    return node.value if isinstance(node, cst.Name) else None
