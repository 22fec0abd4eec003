"""Pattern: gradient accumulation -> `Trainer(accumulate_grad_batches=N)`.

    loss = criterion(model(x), y) / N      -> step_loss = criterion(self(x), y)
    loss.backward()                           loss = step_loss / N   (what Lightning divides)
    if (i + 1) % N == 0:                      (the group's step and zero_grad go: the
        optimizer.step()                       Trainer steps every N batches)
        optimizer.zero_grad()

Refused (TL114): a loss not divided by N (Lightning divides it), the loss rebound after
backward(), and -- the code shared with the shape -- a backward() that does not run once per
batch (conditional, nested in another loop, twice, with arguments, on an expression).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.statements import call_method, single_assign
from ..rule import Rule, Unsupported

ACCUMULATION = Rule(
    "TL114",
    "gradient accumulation or conditional backward not understood",
    """`Trainer(accumulate_grad_batches=N)` replaces `if (i + 1) % N == 0: optimizer.step();
    optimizer.zero_grad()` when the loss is divided by N (Lightning divides it). A backward
    that only runs on some batches, twice per batch, or on an expression is not a fixed
    accumulation.""",
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
    """The `if (i + 1) % N == 0:` group: its step()/zero_grad() join the step sequence."""
    every = _group_size(stmt, steps["index"])
    if every is None:
        return False
    steps["accumulate"] = every
    for inner in stmt.body.body:
        zero = call_method(inner, "zero_grad")
        receiver = zero if zero is not None else call_method(inner, "step")
        steps["zero_grad" if zero is not None else "step"].append((position, receiver.value, inner))
    return True


def _group_size(stmt, index):
    """`if (i + 1) % N == 0:` holding only step()/zero_grad(): N, else None."""
    if not isinstance(stmt, cst.If) or stmt.orelse is not None or index is None:
        return None
    test = stmt.test
    if not m.matches(
        test,
        m.Comparison(
            left=m.BinaryOperation(
                left=m.BinaryOperation(left=m.Name(index), operator=m.Add(), right=m.Integer("1")),
                operator=m.Modulo(),
            ),
            comparisons=[m.ComparisonTarget(operator=m.Equal(), comparator=m.Integer("0"))],
        ),
    ):
        return None
    inner = list(stmt.body.body) if isinstance(stmt.body, cst.IndentedBlock) else []
    for s in inner:
        receiver = call_method(s, "zero_grad") or call_method(s, "step")
        if not isinstance(receiver, cst.Name) or s.body[0].value.args:
            return None
    if not inner:
        return None
    return test.left.right


def read(ctx, plan, steps) -> None:
    every = steps.get("accumulate")
    if every is None:
        return
    code = ctx.module.code_for_node(every)
    body = steps["body"]
    found = None
    for k, (position, stmt) in enumerate(body):
        assign = single_assign(stmt)
        if assign and assign[0] == plan.loss_name and position < steps["backward"]:
            found = (k, position, stmt, assign[1])
    if found is None:
        raise Unsupported(ACCUMULATION, "accumulated loss is not bound before backward()", ctx.loop)
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
    plan.add_trainer_arg("accumulate_grad_batches", code)
    optimizer = plan.optimizer.name
    plan.pre_train = [
        s for s in plan.pre_train if not m.matches(call_method(s, "zero_grad"), m.Name(optimizer))
    ]
    plan.notes.append(
        "accumulate_grad_batches: Lightning also steps on a last partial group of an epoch"
    )
