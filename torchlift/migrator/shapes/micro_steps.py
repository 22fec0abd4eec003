"""Micro steps: a step loop accumulating gradients over an inner loop (nanoGPT's train.py).

    for it in range(N):                        iterations = DataLoader(range(N * K),
        <pre>                                      batch_size=None, generator=...,
        for micro in range(K):                     collate_fn=lambda n: divmod(n, K))
            <forward>                          Trainer(max_epochs=1, accumulate_grad_batches=K)
            loss = loss / K                    training_step(batch, batch_idx):
            loss.backward()                        it, micro = batch
        <clip, step, zero_grad>                    if micro == 0:
        <tail>                                         <pre>
                                                   <forward>   (Lightning divides by K)
                                               on_train_batch_end(...):
                                                   it, micro = batch
                                                   if micro == K - 1:
                                                       <tail>

One optimizer step is K `training_step` calls: the loader yields every (iteration, micro step)
pair in the script's order, Lightning groups K consecutive batches (its batch_idx counts
micro steps from 0, a multiple of K at each group's start, so the groups are the script's
iterations, none partial) and steps after the last one. The code before the micro loop runs
on each iteration's first micro step, the code after the update on its last, after
Lightning's step (accumulation.py's group tail), so every global RNG draw (evaluation
batches, `get_batch`, dropout) happens in the script's order. The step itself goes through
the step loop's patterns; accumulation.py turns the script's `/ K` into Lightning's own.

Refused (TL114): a micro loop that is not `for name in range(K)` (K a name, attribute or
number), K changed by the loop, `break`/`continue` in the micro loop, code between the micro
loop and the last optimizer call, backward() after the micro loop.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..analysis.names import collect_names, file_identifiers
from ..analysis.statements import BACKWARD, FLOW, LOOP, OPTIMIZER_CALL, contains
from ..patterns.accumulation import ACCUMULATION
from ..patterns.input_gradients import samples
from ..rule import Unsupported
from .epoch_batch import maybe_changed
from .micro_reorder import hoisted, zero_grad_first


def micro_loop(ctx, body: list) -> cst.For | None:
    """The `for ... in range(...)` statement of a step's body calling backward() but stepping
    no optimizer, the optimizer stepped after it: the only loop of the body with backward().
    (A loop that steps inside is a batch loop: epoch_batch.py's.)"""
    nested = [
        s for s in body if contains(s, LOOP) and contains(s, BACKWARD) and not samples(ctx, s)
    ]  # a loop moving an input by its gradient (a PGD attack) is input_gradients.py's
    if len(nested) != 1 or not isinstance(nested[0], cst.For):
        return None
    loop = nested[0]
    if not isinstance(loop.iter, cst.Call) or "builtins.range" not in ctx.call_qualnames(loop.iter):
        return None
    after = body[body.index(loop) + 1 :]
    if contains(loop, OPTIMIZER_CALL) or not any(contains(s, OPTIMIZER_CALL) for s in after):
        return None
    return loop


@dataclass
class Flat:
    """A step loop with micro steps, as one step per micro step."""

    numbers: str  # `range(N * K)`: one number per micro step
    collate: str  # `lambda n: divmod(n, K)`: each number as (iteration, micro step)
    count: cst.BaseExpression  # K
    target: cst.Tuple  # `it, micro`
    body: list  # the step's statements, guarded
    calls: list  # the optimizer's update after the micro loop (check_claimed)
    tail: cst.If | None  # the guarded code after it


def flatten(ctx, outer, body: list, counted: str, counter) -> Flat:
    """The flat form of a step body holding a micro loop (see the module docstring), or
    Unsupported. `counted`: the code of the step loop's range, `counter` its target."""
    loop = micro_loop(ctx, body)
    count = _count(ctx, loop)
    micro = _micro_name(ctx, loop, body)
    k_code = ctx.module.code_for_node(count)
    at = body.index(loop)
    pre, post = body[:at], body[at + 1 :]
    calls, tail = _split_post(loop, post)
    pre, zero = zero_grad_first(pre, loop)
    moved, calls = hoisted(ctx, loop, calls)
    pre = [*pre, *moved]
    inner = list(loop.body.body)
    for stmt in [*pre, *inner, *post]:
        changed = _changes(ctx, stmt, collect_names(count).reads)
        if changed:
            raise Unsupported(
                ACCUMULATION,
                f"the loop may change `{changed}`, the number of micro steps (each optimizer "
                "step must accumulate the same number of batches)",
                stmt,
            )
    flat = []
    if pre:
        flat.append(_guarded(f"{micro} == 0", pre, "# the iteration's first micro step"))
    flat.extend(zero)  # the step's zero_grad(), before its backward (micro_reorder.py)
    flat.extend(inner)
    flat.extend(calls)
    guard = None
    if tail:
        last = f"{micro} == {_parenthesized(k_code)} - 1"
        guard = _guarded(last, tail, "# the iteration's last micro step, after its update")
        flat.append(guard)
    target = cst.Tuple(
        [
            cst.Element(counter if counter is not None else cst.Name("_")),
            cst.Element(cst.Name(micro)),
        ],
        lpar=[],
        rpar=[],
    )
    numbers = _flat_range(ctx, outer, counted, k_code)
    return Flat(
        numbers, f"lambda n: divmod(n, {k_code})", count, target, flat, [*zero, *calls], guard
    )


def tail_as_group(steps, flat: Flat) -> None:
    """The last micro step's code is an accumulation group's tail (accumulation.py): its
    guard holds on exactly the batches Lightning steps on, so it runs in on_train_batch_end,
    after the update as in the script (after_step.py), reading the script's loss as state."""
    for k, (at, stmt) in enumerate(steps["body"]):
        if stmt is flat.tail:
            del steps["body"][k]
            steps["accumulate_group"] = (at, flat.tail)
            steps["accumulate_tail"] = (at, list(flat.tail.body.body))
            return


def without_in_tail(body: list, tail: cst.If | None, strip) -> list:
    """`body` with `strip` applied to the statements of the guarded tail when it is the last
    statement (a `while` counter's dead `it += 1`); an emptied guard goes."""
    last = body[-1] if body else None
    # patterns may have rebuilt the statement: the guard is known by its test
    if tail is None or not isinstance(last, cst.If) or not last.test.deep_equals(tail.test):
        return body
    kept = strip(list(last.body.body))
    if not kept:
        return body[:-1]
    return [*body[:-1], last.with_changes(body=last.body.with_changes(body=kept))]


def _count(ctx, loop: cst.For):
    args = loop.iter.args
    if len(args) != 1 or args[0].keyword is not None or args[0].star:
        raise Unsupported(
            ACCUMULATION, "the micro-step loop is not `for micro_step in range(K)`", loop
        )
    count = args[0].value
    node = count
    while isinstance(node, cst.Attribute):
        node = node.value
    if not isinstance(node, (cst.Name, cst.Integer)):
        raise Unsupported(
            ACCUMULATION,
            "the number of micro steps is an expression, not a name, attribute or number",
            loop,
        )
    if loop.orelse is not None or contains(loop.body, FLOW):
        raise Unsupported(
            ACCUMULATION,
            "`break`/`continue`/`else` in the micro-step loop (each optimizer step must "
            "accumulate every micro step's gradients)",
            loop,
        )
    return count


def _micro_name(ctx, loop: cst.For, body: list) -> str:
    if not isinstance(loop.target, cst.Name):
        raise Unsupported(ACCUMULATION, "the micro-step counter is not a plain name", loop)
    name = loop.target.value
    if name == "_":  # the guards read it: a name the file does not use
        from .iteration import _unique  # iteration imports this module

        name = _unique("micro_step", file_identifiers(ctx.module.code, "<module>"))
    elif any(name in collect_names(s).writes for s in [*body, *loop.body.body] if s is not loop):
        raise Unsupported(ACCUMULATION, f"the step rebinds `{name}`, the micro-step counter", loop)
    return name


def _split_post(loop, post: list):
    """(the optimizer's update after the micro loop, the code after it): the statements up to
    the last optimizer call (`step()`, `zero_grad()`) run once per iteration, as Lightning's
    update after the group's last batch; each must be one the step sequence claims (checked
    by `check_claimed`)."""
    last = max((k for k, s in enumerate(post) if contains(s, OPTIMIZER_CALL)), default=None)
    if last is None:
        raise Unsupported(
            ACCUMULATION, "no optimizer step after the micro-step loop", post[0] if post else loop
        )
    calls, tail = post[: last + 1], post[last + 1 :]
    for stmt in tail:
        if contains(stmt, BACKWARD):
            raise Unsupported(ACCUMULATION, "backward() after the micro-step loop", stmt)
    return calls, tail


def check_claimed(steps, calls: list) -> None:
    """Every statement between the micro loop and the last optimizer call is the update's
    (claimed by a pattern): other code there would run on every micro step."""
    ids = {id(s) for s in calls}
    for _, stmt in steps["body"]:
        if id(stmt) in ids:
            raise Unsupported(
                ACCUMULATION,
                "code between the micro-step loop and the optimizer's update (it would run on "
                "every micro step, before Lightning's backward)",
                stmt,
            )


def _changes(ctx, stmt, names: set[str]) -> str | None:
    changed = maybe_changed(ctx, stmt, names)
    return sorted(changed)[0] if changed else None


def _guarded(test: str, stmts: list, comment: str) -> cst.If:
    guard = cst.parse_statement(f"if {test}:\n    pass\n")
    first = stmts[0]
    lines = [*first.leading_lines]
    stmts = [first.with_changes(leading_lines=[]), *stmts[1:]]
    comment_line = cst.EmptyLine(comment=cst.Comment(comment))
    return guard.with_changes(
        leading_lines=[*lines, comment_line], body=guard.body.with_changes(body=stmts)
    )


def _parenthesized(code: str) -> str:
    return code if code.replace(".", "").replace("_", "").isalnum() else f"({code})"


def _flat_range(ctx, outer, counted: str, k_code: str) -> str:
    """`range(a * K, b * K)` of the outer loop's `range(a, b)`: one number per micro step."""
    call = cst.parse_expression(counted)
    args = [a.value for a in call.args]
    if len(args) not in (1, 2) or any(a.keyword is not None or a.star for a in call.args):
        raise Unsupported(
            ACCUMULATION, "the step loop's range(...) has a step: micro steps not counted", outer
        )
    k = _parenthesized(k_code)
    scaled = [f"{_parenthesized(ctx.module.code_for_node(a))} * {k}" for a in args]
    return f"range({', '.join(scaled)})"
