"""A step budget over a loader: a `while` epoch loop ended by a step counter -> `max_steps`.

    step = 0
    while step < max_steps:                  -> Trainer(max_epochs=-1, max_steps=max_steps)
        for x, y in loader:                  -> training_step (the real loader given to fit)
            ...optimizer.step()
            step += 1
            if step >= max_steps:            -> removed (patterns/max_steps.py)
                break
        <epoch code>                         -> on_train_epoch_end

    while True:                              (the same, when the epoch code repeats the
        for x, y in loader: ... (as above)    batch loop's test; also `for epoch in
        if step >= max_steps:                  itertools.count():`, whose epochs count as
            break                              Lightning's `current_epoch`)

Each pass of the `while` is one pass over the loader, as Lightning's epochs are (a shuffled
loader reshuffles per pass in both), and the budget ends training right after the step that
reaches it, where Lightning's `max_steps` stops, after the epoch code of that last pass
(Lightning still ends the epoch it cut short with `on_train_epoch_end`). This holds only when
the batch loop's last statement is patterns/max_steps.py's `if counter >= limit: break` (its
counter starts at 0 and goes up once per optimizer step, the limit the loop does not change)
and the `while` test is the same counter below the same limit, or `True` with that test
repeated after the batch loop (taken with it as its last statement, else a `should_stop`
there: epoch_stop.py). Anything else stays TL102, naming what differs.
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
        m.Comparison(left=m.Name(), comparisons=[m.ComparisonTarget(operator=m.LessThan())]),
    ):
        limit = test.comparisons[0].comparator
        _check_positive(ctx, limit, rule)
        ctx.found[BUDGET] = (test.left.value, code_of(limit))
    else:
        raise Unsupported(
            rule,
            f"the `while` test `{code_of(test)}` is not a step budget (`counter < limit` or "
            "`True`, ended by the batch loop's `if counter >= limit: break`)",
            loop,
        )
    return None, None, cst.parse_expression("-1"), list(loop.body.body)


def counted_epochs(ctx, loop) -> bool:
    """`for epoch in itertools.count():` (or `count(start)`): epochs with no end of their
    own, a step budget's when the epoch repeats the batch loop's max-steps test."""
    iterator = loop.iter
    return (
        isinstance(iterator, cst.Call)
        and "itertools.count" in ctx.call_qualnames(iterator)
        and len(iterator.args) <= 1
        and all(a.keyword is None and not a.star for a in iterator.args)
    )


def read_count(ctx, loop: cst.For, rule):
    """(epoch var, start, max_epochs, epoch body) of `for epoch in itertools.count(start):`,
    which ends only by a `break`: as `while True:`, the epoch's own max-steps test."""
    if loop.orelse is not None:
        raise Unsupported(rule, "`for ... else` on the epoch loop", loop)
    if not isinstance(loop.target, cst.Name):
        raise Unsupported(rule, "the itertools.count() epoch loop's target is not a name", loop)
    ctx.found[BUDGET] = None
    args = loop.iter.args
    start = args[0].value if args else None
    if isinstance(start, cst.Integer) and start.evaluated_value == 0:
        start = None
    epoch_var = loop.target.value if loop.target.value != "_" else None
    return epoch_var, start, cst.parse_expression("-1"), list(loop.body.body)


def check(ctx, plan, rule) -> None:
    """The `while` ends where `max_steps` does: the batch loop's own max-steps `break` was
    taken (patterns/max_steps.py) on the counter and limit of the `while` test; for `while
    True`, its only way out, the epoch's repeated test, was taken with it."""
    loop = ctx.loop
    taken = ctx.found.get("max_steps_counter")
    if taken is None and "validation_stmt" in ctx.found:
        raise Unsupported(
            rule,
            "an evaluation pass follows the batch loop: Lightning does not validate the epoch "
            "`max_steps` cuts short, the script evaluated after it",
            ctx.found["validation_stmt"],
        )
    if taken is None and "max_steps_below_one" in ctx.found:
        _check_positive(ctx, ctx.found["max_steps_below_one"], rule)
    if taken is None:
        raise Unsupported(
            rule,
            "the batch loop does not end on `if counter >= limit: break` as its last "
            "statement, with the counter from 0 going up once per optimizer step and nothing "
            "else changing it: the loop would not stop where `max_steps` does",
            loop,
        )
    budget = ctx.found[BUDGET]
    if budget is None:
        if not ctx.found.get("max_steps_epoch_check"):
            raise Unsupported(
                rule,
                "the endless epoch loop (`while True:`, `itertools.count()`) does not repeat the "
                "batch loop's max-steps test after it (`if counter >= limit: break`)",
                loop,
            )
    elif budget != taken:
        raise Unsupported(
            rule,
            f"the `while` test `{budget[0]} < {budget[1]}` is not the batch loop's max-steps "
            f"test `{taken[0]} >= {taken[1]}` (same counter, same limit)",
            loop,
        )


def _check_positive(ctx, limit, rule) -> None:
    """A budget known to be below 1 trains no step under `while counter < limit` and one
    under `while True` (its test comes after the step), where Lightning trains none for 0 and
    without end for -1: refused, as a script that means nothing by it. One known only at run
    time (`args.max_steps`) is given to the Trainer guarded as the loop reads it,
    `max(limit, 0)` / `max(limit, 1)` (patterns/max_steps.py)."""
    number = known_number(ctx, limit)
    if number is not None and not (isinstance(number, int) and number >= 1):
        raise Unsupported(
            rule, f"the step budget `{code_of(limit)}` is not a whole number >= 1", ctx.loop
        )
