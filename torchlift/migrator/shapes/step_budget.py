"""A step budget over a loader: a `while` epoch loop ended by a step counter -> `max_steps`.

    step = 0
    while step < max_steps:                  -> Trainer(max_epochs=-1, max_steps=max_steps)
        for x, y in loader:                  -> training_step (the real loader given to fit)
            ...optimizer.step()
            step += 1
            if step >= max_steps:            -> removed (patterns/max_steps.py)
                break
        <epoch code>                         -> on_train_epoch_end

    while True:                              (the same, when the epoch code ends with the
        for x, y in loader: ... (as above)    batch loop's test repeated)
        if step >= max_steps:
            break

Each pass of the `while` is one pass over the loader, as Lightning's epochs are (a shuffled
loader reshuffles per pass in both), and the budget ends training right after the step that
reaches it, where Lightning's `max_steps` stops, after the epoch code of that last pass
(Lightning still ends the epoch it cut short with `on_train_epoch_end`). This holds only when
the batch loop's last statement is patterns/max_steps.py's `if counter >= limit: break` (its
counter starts at 0 and goes up once per optimizer step, the limit the loop does not change)
and the `while` test is the same counter below the same limit, or `True` with that test as
the epoch's last statement. Anything else stays TL102, naming what differs.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.known_numbers import known_number
from ..rule import Unsupported
from ..source.code_text import code_of

BUDGET = "step_budget"  # ctx.found: (counter, limit code) of the `while` test, or None for True


def read_while(ctx, loop: cst.While, rule):
    """(epoch var, start, max_epochs, epoch body) of a step-budget `while`, as the epoch
    `for` loop's reader gives them: no epoch variable, `max_epochs=-1` (the budget ends it)."""
    if loop.orelse is not None:
        raise Unsupported(rule, "`while ... else` around a batch loop", loop)
    test = loop.test
    if m.matches(test, m.Name("True")):
        ctx.found[BUDGET] = None
    elif m.matches(
        test,
        m.Comparison(
            left=m.Name(), comparisons=[m.ComparisonTarget(operator=m.LessThan())]
        ),
    ):
        limit = test.comparisons[0].comparator
        number = known_number(ctx, limit)
        if number is not None and not (isinstance(number, int) and number >= 1):
            # no step at all in the script; Lightning reads max_steps <= 0 otherwise
            raise Unsupported(
                rule, f"the step budget `{code_of(limit)}` is not a whole number >= 1", loop
            )
        ctx.found[BUDGET] = (test.left.value, code_of(limit))
    else:
        raise Unsupported(
            rule,
            f"the `while` test `{code_of(test)}` is not a step budget (`counter < limit` or "
            "`True`, ended by the batch loop's `if counter >= limit: break`)",
            loop,
        )
    return None, None, cst.parse_expression("-1"), list(loop.body.body)


def check(ctx, plan, rule) -> None:
    """The `while` ends where `max_steps` does: the batch loop's own max-steps `break` was
    taken (patterns/max_steps.py) on the counter and limit of the `while` test; for `while
    True`, its only way out, the epoch's repeated test, was taken with it."""
    loop = ctx.loop
    taken = ctx.found.get("max_steps_counter")
    if taken is None:
        raise Unsupported(
            rule,
            "the batch loop does not end on `if counter >= limit: break` as its last "
            "statement, with the counter from 0 going up once per optimizer step and nothing "
            "else changing it: the `while` would not stop where `max_steps` does",
            loop,
        )
    budget = ctx.found[BUDGET]
    if budget is None:
        if not ctx.found.get("max_steps_epoch_check"):
            raise Unsupported(
                rule,
                "`while True:` does not end with the batch loop's max-steps test repeated "
                "(`if counter >= limit: break` after the batch loop)",
                loop,
            )
    elif budget != taken:
        raise Unsupported(
            rule,
            f"the `while` test `{budget[0]} < {budget[1]}` is not the batch loop's max-steps "
            f"test `{taken[0]} >= {taken[1]}` (same counter, same limit)",
            loop,
        )
