"""Pattern: a step counter with a `break` in the batch loop -> `Trainer(max_steps=K)`.

    step = 0
    for epoch in range(N):
        for x, y in loader:
            ...
            optimizer.step()
            step += 1                     -> removed (when nothing else reads it)
            if step >= max_steps:         -> Trainer(max_epochs=N, max_steps=max_steps)
                break
        if step >= max_steps:             -> removed
            break

The Hugging Face examples guard the test, `if args.max_steps > 0 and global_step >
args.max_steps:` (a limit <= 0: no limit), and stop one step past it with `>`:
`max_steps=int(args.max_steps) + 1 if args.max_steps > 0 else -1`.

The counter starts at 0 before the loop and only this `+= 1` after the optimizer step changes
it, so the `break` comes after exactly K optimizer steps, which is where Lightning's
`max_steps` stops. Left to early_break (an epoch-ending flag): a loop with validation (Lightning
does not validate the epoch max_steps cuts short, the script did), gradient accumulation (Lightning
counts optimizer steps, the script batches), any other counter shape.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.known_numbers import known_number
from ..analysis.names import collect_names
from ..analysis.statements import loop_breaks
from ..shapes import step_budget
from ..source.code_text import code_of

RULES = ()


def bind(ctx, plan, steps) -> None:
    """Take the max-steps `break` ending the batch loop before after_step.py moves the code
    after the step to `on_train_batch_end` (an evaluation every N steps reading the model),
    where a `break` cannot end an epoch: Lightning's `max_steps` stops right after that hook,
    as the script's `break` did after that code. early_break.py takes any other `break`."""
    opt_step = steps.get("optimizer_step")
    if opt_step is None or not steps["body"] or "validation_stmt" in ctx.found:
        return
    position, stmt = steps["body"][-1]
    if position <= opt_step or position != steps["count"] or _counter_test(stmt) is None:
        return
    if any(loop_breaks(s) for _, s in steps["body"][:-1]):
        return  # several breaks: early_break.py's to refuse
    if recognise(ctx, plan, steps, position, stmt):
        steps["body"] = steps["body"][:-1]


def recognise(ctx, plan, steps, position, stmt) -> bool:
    """Take the batch loop's `if counter >= K: break` (at `position`) as `max_steps`."""
    found = _counter_test(stmt)
    # the validation pass as the epoch was split (plan.validation is read later, eval_passes.py)
    validation = "validation_stmt" in ctx.found or plan.validation is not None
    if found is None or validation or steps.get("accumulate") is not None:
        return False
    counter, limit, limit_steps = found
    budget = ctx.found.get(step_budget.BUDGET, _NO_BUDGET)
    same = [s for s in plan.post_train if _is_same_check(ctx, stmt, s)]
    if budget is _NO_BUDGET and not same:
        # without the test repeated after the batch loop, each later epoch of the epoch loop
        # runs again up to the `break` (one step for `>=`, the whole epoch for `==`), where
        # `max_steps` stops training: early_break.py ends each epoch there instead
        return False
    limit_steps = _runtime_budget(ctx, stmt, limit, limit_steps, budget)
    if limit_steps is None:
        ctx.found["max_steps_below_one"] = limit  # step_budget.py names it
        return False
    increments = [
        (p, s) for p, s in steps["body"] if m.matches(s, _increment(counter)) and p < position
    ]
    if len(increments) != 1 or increments[0][0] < steps["optimizer_step"]:
        return False
    increment = increments[0][1]
    binding, count = ctx.binding(counter)
    if count != 1 or binding is None or not m.matches(binding[1], m.Integer("0")):
        return False
    loop_stmts = [*plan.pre_train, *plan.train_body, *plan.post_train]
    others = [s for s in loop_stmts if s is not increment]
    if counter in collect_names(*others).writes:
        return False
    if m.findall(limit, m.Call()) or collect_names(limit).reads & collect_names(*loop_stmts).writes:
        return False
    plan.add_trainer_arg("max_steps", limit_steps)
    ctx.found["max_steps_test"] = ctx.module.code_for_node(stmt.test)
    # shapes/step_budget.py's: the counter and the limit the script's test stops at
    ctx.found["max_steps_counter"] = (counter, found[2])
    ctx.found["max_steps_limit"] = limit
    ctx.found["max_steps_epoch_check"] = bool(same)
    # the epoch's repeated test goes only as its last statement: before other epoch code it
    # skips that code on the last epoch, which on_train_epoch_end would run (epoch_stop.py
    # keeps it as `should_stop` and `return` there)
    epoch_checks = [same[-1]] if same and plan.post_train[-1] is same[-1] else []
    plan.post_train = [s for s in plan.post_train if not any(s is c for c in epoch_checks)]
    ctx.found["epoch_breaks"] = [
        s for s in ctx.found.get("epoch_breaks", ()) if not any(s is c for c in epoch_checks)
    ]
    plan.train_body = [s for s in plan.train_body if s is not stmt]
    rest = [s for s in others if s is not stmt and not any(s is c for c in epoch_checks)]
    after = collect_names(*ctx.scope_after).reads if ctx.scope_after else set()
    if counter not in collect_names(*rest).reads and counter not in after:
        plan.train_body = [s for s in plan.train_body if s is not increment]
        if any(binding[0] is s for s in ctx.before):
            plan.remove_stmts.append(binding[0])
    return True


def _counter_test(stmt):
    """(counter, limit, max_steps) of `if counter >= limit: break` / `if counter == limit:
    break` (max_steps: the limit), of the Hugging Face examples' `if limit > 0 and counter >
    limit: break` (`>=` / `==` too), where a limit <= 0 stops nothing: max_steps `limit if
    limit > 0 else -1` (Lightning's "no limit"), and for `>` one step more: the first whole
    number past the limit, `int(limit) + 1` (a positive limit: int() is the floor)."""
    body = m.IndentedBlock([m.SimpleStatementLine([m.Break()])])
    if not m.matches(stmt, m.If(body=body, orelse=None)):
        return None
    test, guarded = stmt.test, False
    if m.matches(test, m.BooleanOperation(operator=m.And(), left=_POSITIVE)):
        test, guarded = test.right, True
    at = m.GreaterThanEqual() | m.Equal()
    operators = (at | m.GreaterThan()) if guarded else at
    if not m.matches(
        test, m.Comparison(left=m.Name(), comparisons=[m.ComparisonTarget(operator=operators)])
    ):
        return None
    target = test.comparisons[0]
    limit = target.comparator
    if guarded and not stmt.test.left.left.deep_equals(limit):
        return None
    code = code_of(limit)
    steps = f"int({code}) + 1" if isinstance(target.operator, cst.GreaterThan) else code
    if guarded:
        steps = f"{steps} if {code} > 0 else -1"
    return test.left.value, limit, steps


# `limit > 0` (the guard: a limit <= 0 means none)
_POSITIVE = m.Comparison(
    comparisons=[m.ComparisonTarget(operator=m.GreaterThan(), comparator=m.Integer("0"))]
)


def _increment(counter: str):
    return m.SimpleStatementLine(
        [m.AugAssign(target=m.Name(counter), operator=m.AddAssign(), value=m.Integer("1"))]
    )


def _is_same_check(ctx, batch_test, stmt) -> bool:
    """The epoch loop's own `if counter >= limit: break`, the batch loop's test repeated."""
    found = _counter_test(stmt)
    code = ctx.module.code_for_node
    return found is not None and code(stmt.test) == code(batch_test.test)


_NO_BUDGET = object()  # an epoch `for` loop: no step_budget.py `while` around the batch loop


def _runtime_budget(ctx, stmt, limit, limit_steps, budget):
    """What `max_steps=` is for a limit below 1, where Lightning reads 0 as "train nothing"
    and -1 as "no limit" but the script's loop does neither:

        while step < limit: ... if step >= limit: break     nothing     max(limit, 0)
        while True / for epoch in range(N) (test repeated)  one step    max(limit, 1)
        ... if step == limit: break (test repeated)         no limit    limit if limit > 0 else -1

    A limit known before the loop is kept when it is a whole number >= 1 (None: not a
    budget, left to early_break.py and step_budget.py); one known only at run time
    (`args.max_steps`) gets the guard. The Hugging Face examples' guarded test says itself
    what a limit <= 0 means (_counter_test)."""
    if m.matches(stmt.test, m.BooleanOperation()):
        return limit_steps
    number = known_number(ctx, limit)
    if number is not None:
        return limit_steps if isinstance(number, int) and number >= 1 else None
    code = code_of(limit)
    if isinstance(budget, tuple):  # the `while counter < limit` test
        return _at_least(ctx, code, 0)
    if isinstance(stmt.test.comparisons[0].operator, cst.Equal):
        return f"{code} if {code} > 0 else -1"
    return _at_least(ctx, code, 1)


def _at_least(ctx, code: str, floor: int) -> str:
    """`max(code, floor)`, or its conditional spelling when the script binds `max` itself."""
    if "max" in collect_names(ctx.module).writes:
        return f"{code} if {code} > {floor} else {floor}"
    return f"max({code}, {floor})"
