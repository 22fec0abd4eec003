"""Step-loop `break`s that never run: `if <test>: break` whose test is False wherever the
loop runs, from what its names are bound to (nanoGPT's `if iter_num == 0 and eval_only:
break` with `eval_only = False` bound once and never changed).

Such a statement does nothing in the script: it is dropped before the loop's own stop test is
looked for. The test is decided as patterns/known_branches.py decides tests; an `and` chain
is False when one of its parts is, provided no part can have an effect (names, literals,
comparisons and `not` only), so skipping the parts Python would have evaluated changes
nothing. A name of the test the loop may change (directly, through a call, or a `global` of
a function it calls) leaves the test undecided.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..patterns.known_branches import known_test
from .epoch_batch import maybe_changed

BREAK_ONLY = m.IndentedBlock(
    body=[m.SimpleStatementLine(body=[m.Break()])]
) | m.SimpleStatementSuite(body=[m.Break()])


def without_dead_breaks(ctx, body: list) -> list:
    """`body` without its top-level `if <test>: break` whose test is surely False."""
    kept = []
    for stmt in body:
        if _dead_break(ctx, stmt, body):
            test = ctx.module.code_for_node(stmt.test)
            ctx.notes.append(
                f"`{test}` is False wherever the training runs: its `break` is left out"
            )
        else:
            kept.append(stmt)
    return kept


def _dead_break(ctx, stmt, body: list) -> bool:
    if not (isinstance(stmt, cst.If) and stmt.orelse is None and m.matches(stmt.body, BREAK_ONLY)):
        return False
    if _false(ctx, stmt.test, body):
        return True
    parts = _conjuncts(stmt.test)
    return all(_effect_free(p) for p in parts) and any(_false(ctx, p, body) for p in parts)


def _false(ctx, test, body: list) -> bool:
    """`test` is False wherever the loop runs: decided so, on names the loop never changes."""
    names = collect_names(test).reads
    if any(maybe_changed(ctx, stmt, names) for stmt in body):
        return False
    return known_test(ctx, test) is False


def _conjuncts(test) -> list:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _conjuncts(test.left) + _conjuncts(test.right)
    return [test]


def _effect_free(node) -> bool:
    """Names, literals, comparisons, `not`, `and` / `or`: evaluating it has no effect."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Comparison):
        return _effect_free(node.left) and all(_effect_free(c.comparator) for c in node.comparisons)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return _effect_free(node.expression)
    if isinstance(node, cst.BooleanOperation):
        return _effect_free(node.left) and _effect_free(node.right)
    return False
