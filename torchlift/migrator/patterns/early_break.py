"""Pattern: `break` after `optimizer.step()` -> end the epoch early, as the script did.

    optimizer.step()
    if args.dry_run:           (a flag the loop never writes, and/or a test true on the
        break                   first batch: `batch_idx % log_interval == 0`, `i == 0`)
                               -> Trainer(limit_train_batches=1 if args.dry_run else 1.0)
    optimizer.step()
    if i + 1 >= max_batches:
        break                  -> Trainer(limit_train_batches=max_batches)  (an int for sure)
    (also `cnt += 1` ... `if cnt >= max_batches: break`, cnt a hand counter from 0:
    analysis/batch_counters.py)

    optimizer.step()
    if loss.item() < target:
        break                  -> self.stop_epoch = True

A break on the first batch of every epoch whenever some flags are set is what
`limit_train_batches=1` says. Any other break becomes a flag: `on_train_epoch_start` resets it
and `on_train_batch_start` returns -1 while it is set, which makes Lightning end the epoch.
Refused (TL107): a `break` before the optimizer step (the step would be skipped for that
batch), code after the `break` in the batch loop (it would run on the batch the script stopped
at), a flag `break` beside a per-batch scheduler (Lightning steps it on the batch that ends the
epoch too), and a flag `break` in an epoch with a validation pass: the epoch Lightning ends
that way skips its validation (Lightning 2.6's training epoch loop raises StopIteration in
`advance`, before the `on_advance_end` that validates; the runtime does the same), where the
script evaluated after every epoch.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.batch_counters import counted_limit
from ..analysis.known_numbers import positive_int
from ..analysis.names import collect_names
from ..analysis.statements import OwnLoopTransformer, direct_breaks, loop_breaks
from ..shapes.context import CONTROL_FLOW
from . import max_steps, skip_batches

RULES = ()


def read(ctx, plan, steps) -> None:
    breaks = [(p, s) for p, s in steps["body"] if loop_breaks(s)]
    if not breaks:
        return
    for position, stmt in breaks:
        if position < steps["optimizer_step"]:
            ctx.block(
                CONTROL_FLOW, "`break` before optimizer.step() cannot be kept faithfully", stmt
            )
        elif position != steps["count"] or not break_ends_its_blocks(stmt):
            ctx.block(
                CONTROL_FLOW,
                "code after a `break` in the batch loop would still run on the batch that "
                "ends the epoch",
                stmt,
            )
    if len(breaks) == 1 and max_steps.recognise(ctx, plan, steps, *breaks[0]):
        return
    if len(breaks) == 1 and _batch_limit(ctx, plan, steps, breaks[0][1]):
        return
    if len(breaks) == 1 and limit_to_first_batch(ctx, plan, steps, breaks[0][1]):
        return
    schedulers = [stmt for _, name, stmt in steps["step"] if name != plan.optimizer.name]
    if schedulers and not steps.get("manual") and not steps.get("manual_optimization"):
        # Lightning steps "step"-interval schedulers on the batch whose on_train_batch_start
        # returns -1 too: one step more than the script at every early end
        ctx.block(
            CONTROL_FLOW,
            "a scheduler stepped every batch would be stepped once more when the `break` "
            "ends the epoch",
            schedulers[0],
        )
    end_epoch_at(ctx, plan, breaks[0][1])


def limit_to_first_batch(ctx, plan, steps, stmt) -> bool:
    """The `break` in `stmt` ends every epoch on its first batch under flags the loop never
    writes -> `limit_train_batches=1` (under the flags), the `break` dropped from the step."""
    flags = _first_batch_flags(ctx, plan, steps, stmt)
    if flags is None:
        return False
    code = "1" if not flags else f"1 if {' and '.join(flags)} else 1.0"
    plan.add_trainer_arg("limit_train_batches", code)
    plan.step_rewrites.append(lambda node: without_break(node))
    return True


def end_epoch_at(ctx, plan, stmt) -> None:
    """The `break` in `stmt`, the batch loop's last statement, sets `self.stop_epoch`, and the
    next batch's `on_train_batch_start` returns -1: Lightning then ends the epoch (also under
    manual optimization, manual_optimization.py)."""
    ctx.found["epoch_ending_break"] = stmt  # clean(): no validation pass with it
    plan.hook_pieces.setdefault("on_train_epoch_start", []).append("self.stop_epoch = False")
    plan.hook_pieces.setdefault("on_train_batch_start", []).append(
        "if self.stop_epoch:\n    return -1"
    )
    plan.step_rewrites.append(lambda node: node.visit(_BreakToFlag()))


def clean(ctx, plan) -> None:
    stmt = ctx.found.get("epoch_ending_break")
    if stmt is not None and plan.validation is not None:
        ctx.block(
            CONTROL_FLOW,
            "the `break` would end the epoch before its validation pass: Lightning skips the "
            "validation of an epoch ended early, the script evaluated after every epoch",
            stmt,
        )


def _batch_limit(ctx, plan, steps, stmt) -> bool:
    """`if i + 1 >= K: break` (or `i >= K - 1`, `==`), K a positive int literal or a name bound
    once to one: every epoch trains on its first K batches -> `limit_train_batches=K`. Not
    when a `continue` can skip the test."""
    index = steps["index"]
    if index in plan.index_start:
        index = None  # counted from another start: only a hand counter is read
    if any(skip_batches.direct_continues(s) for _, s in steps["body"]):
        return False
    one = m.Integer("1")
    at_least = m.GreaterThanEqual() | m.Equal()
    plus_one = m.Comparison(
        left=m.BinaryOperation(left=m.Name(index or ""), operator=m.Add(), right=one),
        comparisons=[m.ComparisonTarget(operator=at_least)],
    )
    minus_one = m.Comparison(
        left=m.Name(index or ""),
        comparisons=[
            m.ComparisonTarget(
                operator=at_least,
                comparator=m.BinaryOperation(operator=m.Subtract(), right=one),
            )
        ],
    )
    body = m.IndentedBlock([m.SimpleStatementLine([m.Break()])])
    if m.matches(stmt, m.If(test=plus_one | minus_one, body=body, orelse=None)):
        limit = stmt.test.comparisons[0].comparator
        if m.matches(stmt.test, minus_one):
            limit = limit.left
    else:  # `cnt += 1` ... `if cnt >= K: break` (analysis/batch_counters.py)
        loop = ctx.found.get("batch_loop")
        before = [s for _, s in steps["body"] if s is not stmt]
        epoch = [*plan.pre_train, loop, *plan.post_train]
        limit = counted_limit(ctx, stmt, loop, before, epoch) if loop is not None else None
        if limit is None:
            return False
    if not positive_int(ctx, limit):
        return False
    plan.add_trainer_arg("limit_train_batches", ctx.module.code_for_node(limit))
    plan.train_body = [s for s in plan.train_body if s is not stmt]
    return True


def path_to_break(stmt) -> list[cst.If] | None:
    """The `if` statements (entered through their body) from `stmt` down to its `break`;
    None when the way there passes through anything else (an `else`, a `with`, a `try`)."""
    if m.matches(stmt, m.SimpleStatementLine([m.Break()])):
        return []
    if isinstance(stmt, cst.If) and isinstance(stmt.body, cst.IndentedBlock):
        for inner in stmt.body.body:
            if direct_breaks(inner):
                rest = path_to_break(inner)
                return None if rest is None else [stmt, *rest]
    return None


def break_ends_its_blocks(stmt) -> bool:
    """Nothing follows the `break` in any block between the batch loop and it."""
    if isinstance(stmt, cst.SimpleStatementLine):
        return not any(isinstance(small, cst.Break) for small in stmt.body[:-1])
    for block in _blocks(stmt):
        holders = [s for s in block.body if direct_breaks(s)]
        if not holders:
            continue
        if len(holders) > 1 or holders[0] is not block.body[-1]:
            return False
        if not break_ends_its_blocks(holders[0]):
            return False
    return True


def _blocks(node):
    """The indented blocks of a compound statement (`if`/`elif`/`else`, `try` handlers, ...),
    not those of a loop or definition inside it."""
    for child in node.children:
        if isinstance(child, cst.IndentedBlock):
            yield child
        elif not isinstance(child, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef)):
            if isinstance(child, (cst.If, cst.Else, cst.ExceptHandler, cst.Finally)):
                yield from _blocks(child)


def _first_batch_flags(ctx, plan, steps, stmt) -> list[str] | None:
    """The flags (loop-invariant conditions, as code) under which the `break` ends every epoch
    on its first batch; None when it may end one elsewhere."""
    path = path_to_break(stmt)
    index = steps["index"]
    if path is None or (index is not None and index in plan.index_start):
        return None
    loop_stmts = [*plan.pre_train, *plan.train_body, *plan.post_train]
    written = collect_names(*loop_stmts).writes | mutated_roots(loop_stmts)
    if plan.train_target is not None:  # a step loop may ignore its batch
        written |= collect_names(plan.train_target).writes
    written |= {plan.epoch_var, index} - {None}
    return guard_flags(ctx, path, index, written)


def guard_flags(ctx, path: list[cst.If], index: str | None, written: set[str]):
    """The tests of `path` as flags (code), leaving out those true on the first batch; None
    when one reads what the loop writes (`written`) or calls anything."""
    flags = []
    for guard in path:
        test = guard.test
        if index is not None and true_on_first_batch(test, index, written):
            continue
        if m.findall(test, m.Call() | m.Await() | m.NamedExpr()):
            return None
        if collect_names(test).reads & written:
            return None
        code = ctx.module.code_for_node(test)
        needs_parentheses = isinstance(test, (cst.BooleanOperation, cst.IfExp, cst.Lambda))
        flags.append(f"({code})" if needs_parentheses else code)
    return flags


def mutated_roots(stmts) -> set[str]:
    """Names whose object the statements may change: `cfg["x"] = ...`, `args.x += 1`,
    `cfg.update(...)` (the root name of an assigned item or attribute, or of a method call)."""
    roots: set[str] = set()
    targets = m.Subscript() | m.Attribute()
    for stmt in stmts:
        found = m.findall(stmt, m.AssignTarget(target=targets))
        found += m.findall(stmt, m.AugAssign(target=targets) | m.AnnAssign(target=targets))
        nodes = [node.target for node in found]
        nodes += [call.func for call in m.findall(stmt, m.Call(func=m.Attribute()))]
        for node in nodes:
            while isinstance(node, (cst.Attribute, cst.Subscript)):
                node = node.value
            if isinstance(node, cst.Name):
                roots.add(node.value)
    return roots


def true_on_first_batch(test, index: str, written: set[str]) -> bool:
    """`index % n == 0` or `index == 0` (index counted from 0): true on the first batch."""
    zero = m.Integer("0")
    idx = m.Name(index)
    first = m.Comparison(
        left=idx | m.BinaryOperation(left=idx, operator=m.Modulo()),
        comparisons=[m.ComparisonTarget(operator=m.Equal(), comparator=zero)],
    )
    if not m.matches(test, first):
        return False
    if isinstance(test.left, cst.BinaryOperation):
        divisor = test.left.right
        if m.findall(divisor, m.Call()) or collect_names(divisor).reads & written:
            return False
    return True


def without_break(node):
    """The training step's statements with the `break` (and an `if` left empty) removed."""
    return node.visit(_DropBreak())


class _DropBreak(cst.CSTTransformer):
    def visit_For(self, node) -> bool:
        return False

    def visit_While(self, node) -> bool:
        return False

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if m.matches(updated_node, m.SimpleStatementLine([m.Break()])):
            return cst.RemoveFromParent()
        return updated_node

    def leave_If(self, original_node, updated_node):
        if isinstance(updated_node.body, cst.IndentedBlock) and not updated_node.body.body:
            if updated_node.orelse is None:
                return cst.RemoveFromParent()
            return updated_node.with_changes(
                body=updated_node.body.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
            )
        return updated_node


class _BreakToFlag(OwnLoopTransformer):
    """`break` of the batch loop (not of a loop inside it) -> `self.stop_epoch = True`."""

    def leave_Break(self, original_node, updated_node):
        if self.depth:
            return updated_node
        return cst.parse_statement("self.stop_epoch = True\n").body[0]
