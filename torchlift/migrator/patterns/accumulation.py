"""Pattern: gradient accumulation -> `Trainer(accumulate_grad_batches=N)`, or kept as written.

    loss = criterion(model(x), y) / N      -> step_loss = criterion(self(x), y)
    loss.backward()                           loss = step_loss / N   (what Lightning divides)
    if (i + 1) % N == 0:                      (the group's step and zero_grad go: the
        optimizer.step()                       Trainer steps every N batches)
        optimizer.zero_grad()

Lightning also steps on the last, partial group of an epoch. `accumulate_grad_batches` is
only used where the script does the same: its condition also steps at the epoch's end
(`... or i + 1 == len(loader)`), or the loader's batches per epoch are certainly a multiple
of N (analysis/loader_length.py). Otherwise the script carries the partial group's gradients
into the next epoch (or drops them), and the step keeps its own calls under manual
optimization: `self.manual_backward(loss)` and the `if` group exactly as written.
Clipping each micro-batch is also kept that way (Lightning clips once per group); clipping
inside the group, before its step, is Lightning's own `gradient_clip_val` (and a scheduler
stepped there its `interval: "step"`); in a group kept as written it stays the script's own
call on `model.parameters()`, and a scheduler stepped only there is stepped there, through
`self.lr_schedulers()` (the Hugging Face examples' `train(args, ...)`, whose group size and
batch size are command-line arguments). Refused there: clipping of other parameters, a
scheduler stepped elsewhere (manual optimization steps none itself).

Code after the group's calls (an update counter, a log line every k updates reading the loss,
the learning rate or a clipped norm, an evaluation) is the group's tail: Lightning steps the
optimizer and a step-interval scheduler, then calls `on_train_batch_end` on every batch, so
the tail moves there under the group's own `if`, which holds on exactly the batches Lightning
steps on (only used where the accumulation is Lightning's: `exact` below), with the code
after the group (after_step.py). The hook reads the script's loss as state, not
`outputs["loss"]` (Lightning's is divided by N). Kept as written under manual optimization.

Refused (TL114): a loss not divided by N (Lightning divides it), the loss rebound after
backward(), code between the group's calls (it would run after all of them), a `break` in
the tail, and -- the code shared with the shape -- a backward() that does not run once per
batch (conditional, nested in another loop; twice or with arguments where
manual_backward.py does not keep it).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.branches import suite
from ..analysis.loader_length import batches_per_epoch, constant_int
from ..analysis.statements import (
    BACKWARD,
    OPTIMIZER_CALL,
    call_method,
    contains,
    direct_breaks,
    single_assign,
)
from ..rule import Rule, Unsupported
from ..source.code_text import code_of

ACCUMULATION = Rule(
    "TL114",
    "gradient accumulation or conditional backward not understood",
    """`Trainer(accumulate_grad_batches=N)` replaces `if (i + 1) % N == 0: optimizer.step();
    optimizer.zero_grad()` when the loss is divided by N (Lightning divides it). A backward
    that only runs on some batches, or on an expression, is not a fixed accumulation;
    backward() twice per batch or with arguments is kept under manual optimization
    (manual_backward.py), but not under mixed precision or DDP; DDP's `no_sync()` on the
    micro-steps is Lightning's own accumulation only on the same groups (ddp/no_sync.py).""",
    """Divide the loss by N before `backward()`, step under `if (i + 1) % N == 0:`, and call
    `backward()` unconditionally on a loss variable.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            if loss.item() > 0:
                loss.backward()
                optimizer.step()
    """,
)

RULES = (ACCUMULATION,)


def claim(ctx, steps, stmt, position) -> bool:
    """The `if (i + 1) % N == 0:` group: its step()/zero_grad() (and a clipping call, a
    scheduler's step) join the step sequence, each at its own place inside the group; the
    code after them (a step counter, a periodic print) is the group's tail."""
    group = _group(ctx, stmt, steps["index"], steps["loader"])
    if group is None:
        return False
    every, at_end, calls, tail = group
    later = [s for s in tail if contains(s, BACKWARD) or contains(s, OPTIMIZER_CALL)]
    if later and isinstance(later[0], cst.If):  # `if scheduler is not None: scheduler.step()`
        from .known_branches import why_test_unknown

        ctx.block(
            ACCUMULATION,
            f"the `if` test `{code_of(later[0].test)}` around optimizer or scheduler calls in "
            f"an accumulation group {why_test_unknown(ctx, later[0].test)}",
            later[0],
        )
        return True
    if later:  # the tail would run after them all (after Lightning's scheduler step too)
        ctx.block(
            ACCUMULATION,
            "code between the optimizer calls of an accumulation group (Lightning runs the "
            "group's other code after its optimizer and scheduler steps)",
            tail[0],
        )
        return True
    steps["accumulate"], steps["accumulate_at_end"] = every, at_end
    steps["accumulate_group"] = (position, stmt)
    ctx.found["accumulation_group"] = stmt
    inner_stmts = [*calls, *tail, None]  # (decided `if`s flattened: more than the block's)
    for k, inner in enumerate(calls):
        at = position + k / len(inner_stmts)  # in order, before the next batch statement
        clip = clip_statement(ctx, inner)
        if clip is not None:  # once per group, before its step: Lightning's own place
            if steps["clip"] is not None:
                ctx.block(ACCUMULATION, "gradients clipped twice", inner)
            steps["clip"] = (at, clip, inner)
            steps["clip_in_group"] = True
            continue
        if _scaler_step_call(ctx, inner):  # `scaler.step(opt)`, `unscale_`, `update`: amp's
            _amp_claim(ctx, steps, inner, at)
            continue
        zero = call_method(inner, "zero_grad")
        receiver = zero if zero is not None else call_method(inner, "step")
        steps["zero_grad" if zero is not None else "step"].append((at, receiver.value, inner))
    if tail:
        for inner in tail:
            if direct_breaks(inner):
                ctx.block(ACCUMULATION, "`break` inside the accumulation group", inner)
        steps["accumulate_tail"] = (position + len(calls) / len(inner_stmts), tail)
    return True


def clip_statement(ctx, stmt):
    """clipping's recogniser (imported here: clipping -> step_sequence -> accumulation)."""
    from .clipping import clip_statement as recognise

    return recognise(ctx, stmt)


def _scaler_step_call(ctx, stmt) -> bool:
    """`scaler.unscale_(opt)`, `scaler.step(opt)` or `scaler.update()` of a GradScaler: the
    mixed-precision form of the group's step, which Lightning's precision plugin runs at the
    same place (amp.py, imported here: amp -> step_sequence -> accumulation)."""
    from .amp import GROUP_METHODS
    from .amp import scaler_statement as recognise

    return recognise(ctx, stmt, GROUP_METHODS)


def _amp_claim(ctx, steps, stmt, position) -> None:
    """amp.py's claim of a scaler call (its step() is the group's optimizer step)."""
    from .amp import claim as take

    take(ctx, steps, stmt, position)


def _next_index(index):
    return m.BinaryOperation(left=m.Name(index), operator=m.Add(), right=m.Integer("1"))


def _is_group_end(test, index):
    """`(i + 1) % N == 0`: N, else None."""
    if m.matches(
        test,
        m.Comparison(
            left=m.BinaryOperation(left=_next_index(index), operator=m.Modulo()),
            comparisons=[m.ComparisonTarget(operator=m.Equal(), comparator=m.Integer("0"))],
        ),
    ):
        return test.left.right
    return None


def _is_epoch_end(test, index, loader) -> bool:
    """`i + 1 == len(loader)` (either side)."""
    length = m.Call(func=m.Name("len"), args=[m.Arg(value=m.Name(loader))])
    return m.matches(
        test,
        m.Comparison(
            left=_next_index(index),
            comparisons=[m.ComparisonTarget(operator=m.Equal(), comparator=length)],
        )
        | m.Comparison(
            left=length,
            comparisons=[m.ComparisonTarget(operator=m.Equal(), comparator=_next_index(index))],
        ),
    )


def _group(ctx, stmt, index, loader):
    """(N, steps at the epoch's end, its calls, its tail) of `if (i + 1) % N == 0[ or i + 1
    == len(loader)]:` holding step()/zero_grad() and clipping calls, then other code (the
    tail: it runs after the optimizer's and the scheduler's steps), else None."""
    if not isinstance(stmt, cst.If) or stmt.orelse is not None or index is None:
        return None
    test, at_end = stmt.test, False
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        if not _is_epoch_end(test.right, index, loader):
            return None
        test, at_end = test.left, True
    every = _is_group_end(test, index)
    if every is None:
        return None
    inner = list(stmt.body.body) if isinstance(stmt.body, cst.IndentedBlock) else []
    inner = _decided(ctx, inner)
    calls = []
    for s in inner:
        if not _group_call(ctx, s):
            break
        calls.append(s)
    tail = inner[len(calls) :]
    if not calls or not any(call_method(s, "step") is not None for s in calls):
        return None
    return every, at_end, calls, tail


def _decided(ctx, stmts) -> list:
    """The group's statements with each `if` whose test is known before training replaced
    by the branch it takes, the nodes themselves (Kaggle's `if CFG.apex: scaler.step(opt)
    ... else: optimizer.step()`, `if CFG.batch_scheduler: scheduler.step()`): the branch
    left out never runs (known_branches.py reads the test)."""
    from .known_branches import known_test, note_decided

    out = []
    for stmt in stmts:
        taken = known_test(ctx, stmt.test) if isinstance(stmt, cst.If) else None
        if taken is None:
            out.append(stmt)
            continue
        note_decided(ctx, stmt, taken)
        if taken:
            branch = suite(stmt.body)
        elif isinstance(stmt.orelse, cst.If):
            branch = [stmt.orelse]
        else:
            branch = suite(stmt.orelse.body) if stmt.orelse is not None else []
        out += _decided(ctx, branch)
    return out


def _group_call(ctx, stmt) -> bool:
    """A clipping call, `name.step()` without arguments, `name.zero_grad()` as Lightning
    calls it (`set_to_none=True` too), or a GradScaler's unscale/step/update."""
    from .step_sequence import lightning_zero_grad

    if clip_statement(ctx, stmt) is not None or _scaler_step_call(ctx, stmt):
        return True
    zero = call_method(stmt, "zero_grad")
    if isinstance(zero, cst.Name):
        return lightning_zero_grad(stmt)
    receiver = call_method(stmt, "step")
    return isinstance(receiver, cst.Name) and not stmt.body[0].value.args


def bind(ctx, plan, steps) -> None:
    """Whether Lightning's accumulation does what the script does (see the docstring)."""
    every = steps.get("accumulate")
    if every is None:
        return
    size = constant_int(ctx, every)
    batches = batches_per_epoch(ctx, steps["loader"])
    even = size is not None and batches is not None and batches % size == 0
    # Lightning groups batches by a 0-based batch_idx: an index counted from elsewhere
    # (`enumerate(loader, 1)`) groups them differently
    exact = (steps["accumulate_at_end"] or even) and steps["index"] not in ctx.index_start
    in_group = steps.get("clip_in_group", False)
    if in_group and not exact and not _clips_model_directly(ctx, steps):
        raise Unsupported(
            ACCUMULATION,
            f"{_not_exact(ctx, steps, size, batches)}: Lightning steps on an epoch's last "
            "partial group, the script does not, and the group clips, which is not kept as "
            "written",
            steps["accumulate_group"][1],
        )
    # why the group is kept as written, and where, for clean()'s refusals
    if not exact:
        why = f"{_not_exact(ctx, steps, size, batches)}: Lightning steps on an epoch's last "
        ctx.found["accumulation_kept"] = (
            why + "partial group, the script does not",
            steps["accumulate_group"][1],
        )
    elif steps["clip"] is not None and not in_group:
        why = "gradients clipped on every micro-batch (Lightning clips once per group)"
        ctx.found["accumulation_kept"] = (why, steps["clip"][2])
    # clipping each micro-batch is the script's own; once per group is Lightning's
    steps["manual_optimization"] = not exact or (steps["clip"] is not None and not in_group)
    plan.manual_optimization = steps["manual_optimization"]
    tail = steps.get("accumulate_tail")
    if tail is not None and not steps["manual_optimization"]:
        # Lightning steps the optimizer and a step-interval scheduler, then calls
        # on_train_batch_end: the tail goes there (after_step.py), under the group's own
        # condition, which holds exactly on the batches Lightning steps on (`exact`)
        at, stmts = tail
        group = steps["accumulate_group"][1]
        guarded = group.with_changes(body=group.body.with_changes(body=stmts))
        steps["body"] = sorted([*steps["body"], (at, guarded)], key=lambda item: item[0])
        steps["after_group"] = (at, guarded)


def _stepped_only_in_group(ctx, scheduler: str) -> bool:
    """Every `scheduler.step()` of the loop is the one in the accumulation group kept as
    written: it steps where the script stepped it (self.lr_schedulers())."""
    group = ctx.found.get("accumulation_group")
    step = m.Call(func=m.Attribute(value=m.Name(scheduler), attr=m.Name("step")))
    return group is not None and len(m.findall(ctx.loop, step)) == len(m.findall(group, step)) == 1


def _clips_model_directly(ctx, steps) -> bool:
    """The group's clipping, kept as written under manual optimization, is the script's own
    call on its model's parameters (clipping.py reads the rest): no hook or Trainer argument
    of Lightning's is involved, and no mixed precision (clean refuses a scaler)."""
    kind, params, value = steps["clip"][1]
    return m.matches(params, m.Call(func=m.Attribute(attr=m.Name("parameters")), args=[]))


def _not_exact(ctx, steps, size, batches) -> str:
    """Why Lightning's groups may not be the script's, as the refusal says it."""
    index, loader = steps["index"], steps["loader"]
    every = ctx.module.code_for_node(steps["accumulate"])
    if index in ctx.index_start:
        return f"`{index}` is counted from `enumerate`'s start, not from 0 as Lightning's"
    if size is not None and batches is not None:
        return f"`{every}` does not divide the {batches} batches per epoch of `{loader}`"
    return f"`{every}` is not known to divide the batches per epoch of `{loader}`"


def read(ctx, plan, steps) -> None:
    every = steps.get("accumulate")
    if every is None:
        return
    if steps["manual_optimization"]:  # the script's own arithmetic and calls are kept
        _keep_script_steps(ctx, plan, steps)
        return
    code = ctx.module.code_for_node(every)
    divisor = steps.get("loss_divisor")
    if divisor is not None:  # `(loss / N).backward()`: Lightning divides `loss` the same way
        if ctx.module.code_for_node(divisor).strip() != code.strip():
            raise Unsupported(
                ACCUMULATION,
                f"backward() on the loss divided by `{ctx.module.code_for_node(divisor)}`, "
                f"not by the group size `{code}` (Lightning divides by the group size)",
                steps["backward_stmt"],
            )
        _accumulate(plan, code)
        return
    body = steps["body"]
    found = None
    for k, (position, stmt) in enumerate(body):
        assign = single_assign(stmt)
        if assign and assign[0] == plan.loss_name and position < steps["backward"]:
            found = (k, position, stmt, assign[1])
    if found is None:
        raise Unsupported(
            ACCUMULATION,
            f"gradient accumulation without `{plan.loss_name} = {plan.loss_name} / {code}` "
            "before backward() (Lightning divides the loss by the group size)",
            steps["backward_stmt"],
        )
    k, position, stmt, value = found
    if not (
        isinstance(value, cst.BinaryOperation)
        and isinstance(value.operator, cst.Divide)
        and ctx.module.code_for_node(value.right).strip() == code.strip()
    ):
        raise Unsupported(
            ACCUMULATION,
            "gradient accumulation without dividing the loss by the group size "
            "(Lightning divides it)",
            stmt,
        )
    # `loss = X / N` -> `step_loss = X` + `loss = step_loss / N`: Lightning divides the
    # returned `step_loss` by N itself, the same operation the script did
    head = cst.parse_statement(f"step_loss = {ctx.module.code_for_node(value.left)}\n")
    head = head.with_changes(leading_lines=stmt.leading_lines)
    tail = stmt.with_changes(
        leading_lines=[],
        body=[stmt.body[0].with_changes(value=value.with_changes(left=cst.Name("step_loss")))],
    )
    body[k : k + 1] = [(position, head), (position, tail)]
    plan.train_body = [s for _, s in body]
    plan.loss_capture = "step_loss"
    _accumulate(plan, code)


def _accumulate(plan, code: str) -> None:
    """The Trainer accumulates N batches: no zero_grad before the batch loop either. (Only
    used where its last partial group is the script's too: no note to add.)"""
    plan.add_trainer_arg("accumulate_grad_batches", code)
    optimizer = plan.optimizer.name
    plan.pre_train = [
        s for s in plan.pre_train if not m.matches(call_method(s, "zero_grad"), m.Name(optimizer))
    ]


def _keep_script_steps(ctx, plan, steps) -> None:
    """Manual optimization: backward() becomes `self.manual_backward(loss)`, the `if` group
    and whatever other pattern kept (`steps["kept"]`) stay where the script had them."""
    backward = steps["backward_stmt"]
    loss = plan.loss_name
    if steps.get("loss_divisor") is not None:  # `(loss / N).backward()`, kept as written
        loss = f"{loss} / {code_of(steps['loss_divisor'])}"
    call = cst.parse_expression(f"self.manual_backward({loss})")
    kept = [
        (steps["backward"], backward.with_changes(body=[cst.Expr(call)])),
        steps["accumulate_group"],
        *steps.get("kept", []),
    ]
    plan.train_body = [s for _, s in sorted([*steps["body"], *kept], key=lambda item: item[0])]
    why = ctx.found.get("accumulation_kept", ("",))[0]
    if why.startswith("gradients clipped"):  # not the last group: the clipping keeps it
        plan.notes.append(f"manual optimization: {why}")
        return
    plan.notes.append(
        "manual optimization: the script's accumulation does not step on a last partial "
        "group of an epoch, Lightning's accumulate_grad_batches would"
    )


def clean(ctx, plan) -> None:
    if not plan.manual_optimization or "accumulation_group" not in ctx.found:
        return  # manual optimization for another reason (manual_backward.py's)
    if plan.scaler is not None:
        # manual optimization would have to scale, unscale and step as the script's scaler
        why, at = ctx.found.get("accumulation_kept", ("manual optimization", ctx.loop))
        if ctx.found.get("scaler_off") == plan.scaler:  # no mixed precision: say what is
            raise Unsupported(
                ACCUMULATION,
                f"{why}; a group kept as written is not converted with GradScaler calls in it "
                f"(`{plan.scaler}` is off, so they are the plain step, but they are not "
                "rewritten so)",
                at,
            )
        raise Unsupported(
            ACCUMULATION,
            f"{why}; an accumulation kept as written is not converted with mixed precision "
            "(a GradScaler)",
            at,
        )
    scheduler = plan.optimizer.scheduler
    if scheduler is not None and not _stepped_only_in_group(ctx, scheduler):
        why, at = ctx.found.get("accumulation_kept", (None, None))
        step = m.Call(func=m.Attribute(value=m.Name(scheduler), attr=m.Name("step")))
        if why is not None and m.findall(ctx.found["accumulation_group"], step):
            # stepped in the group, under an `if` or in a helper's loop: the cause is the
            # group Lightning would not reproduce, on its line
            raise Unsupported(
                ACCUMULATION,
                f"{why}; a group kept as written is not converted with its scheduler step "
                "nested in it",
                at,
            )
        # manual optimization steps no scheduler: only the group's own call, kept, would
        raise Unsupported(
            ACCUMULATION,
            "a scheduler stepped outside an accumulation group Lightning would not reproduce "
            "(a last partial group): kept as written under manual optimization, nothing "
            "would step it",
            plan.optimizer.scheduler_stmt,
        )
