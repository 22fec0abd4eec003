"""What the flat form of micro steps (micro_steps.py) may move, build-nanogpt's step:

    optimizer.zero_grad()                       -> the step's zero_grad, claimed by the step
    loss_accum = 0.0                               sequence: Lightning zeroes the gradients at
    for micro_step in range(K):                    the group's first backward(), after its
        ...  loss.backward()                       forward, where the script's were zeroed too
    norm = clip_grad_norm_(...)
    lr = get_lr(step)                           -> moved before the micro loop (the
    for g in optimizer.param_groups:               iteration's first micro step): it shares
        g["lr"] = lr                               no name with the micro loop and the clip
    optimizer.step()

A zero_grad() before the micro loop is the one of an ordinary step: the gradients are zeroed
before the iteration's first backward() on both sides, and code after it in the iteration's
first statements and the micro loop must not read gradients (`.grad`, or a call among those
first statements): there the script's are None, Lightning's still the last step's.

Code between the micro loop and the optimizer's update runs, in Lightning, before its
backward; it may run before the micro loop instead when the two commute: no `.grad`, no
backward() or optimizer call, no clipping, only bindings (or a `for` loop of them: no `break`,
no branch) and calls that change and print nothing, and no name in common with the micro
loop and the update code before it (beyond imported modules), counting the globals the
script's functions they call read. Anything else stays where it is (check_claimed refuses
it). A function called there may `assert` (analysis/output_effects.py): a failing one stops
the run a few statements earlier than the script.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.function_reads import reads_of_functions_called
from ..analysis.names import collect_names
from ..analysis.output_effects import pure_expression
from ..analysis.statements import BACKWARD, OPTIMIZER_CALL, call_method, contains


def zero_grad_first(pre: list, loop: cst.For) -> tuple[list, list]:
    """(the iteration's first statements without the zero_grad() among them, [that
    statement]) when moving it to the step is faithful: what runs after it before the first
    backward() reads no gradient (no `.grad`, and the iteration's later first statements call
    nothing); (pre, []) otherwise."""
    for k, stmt in enumerate(pre):
        if call_method(stmt, "zero_grad") is None:
            continue
        later = pre[k + 1 :]
        if any(_reads_gradients(s) or m.findall(s, m.Call()) for s in later):
            return pre, []
        if _reads_gradients(loop):
            return pre, []
        return [*pre[:k], *later], [stmt]
    return pre, []


def hoisted(ctx, loop: cst.For, calls: list) -> tuple[list, list]:
    """(statements of `calls` that may run before the micro loop, the rest), see the
    module docstring."""
    moved, kept = [], []
    for stmt in calls:
        if _commutes(ctx, stmt, [loop, *kept]):
            moved.append(stmt)
        else:
            kept.append(stmt)
    return moved, kept


def _commutes(ctx, stmt, before: list) -> bool:
    from ..patterns.clipping import clip_statement  # patterns import the shapes' helpers

    if contains(stmt, BACKWARD) or contains(stmt, OPTIMIZER_CALL) or _reads_gradients(stmt):
        return False
    if clip_statement(ctx, stmt) is not None:
        return False
    if not all(pure_expression(ctx, call) for call in m.findall(stmt, m.Call())):
        return False
    if not _plain(stmt):
        return False
    modules = set(ctx.names.imports)
    return not (_names(ctx, [stmt]) & _names(ctx, before)) - modules


def _plain(stmt) -> bool:
    """Bindings and expressions, or a `for` loop of them (`for g in optimizer.param_groups:
    g["lr"] = lr`): no `break`, `return`, `raise`, `assert`, `del`, `global`, no branch."""
    if isinstance(stmt, cst.SimpleStatementLine):
        kinds = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr)
        return all(isinstance(small, kinds) for small in stmt.body) and not m.findall(
            stmt, m.Yield() | m.Await() | m.NamedExpr()
        )
    if isinstance(stmt, cst.For) and stmt.orelse is None and stmt.asynchronous is None:
        body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ()
        return bool(body) and all(_plain(s) for s in body)
    return False


def _names(ctx, stmts: list) -> set[str]:
    """Every name the statements read or bind, and the globals read by the script's
    functions they name."""
    found: set[str] = set()
    for stmt in stmts:
        names = collect_names(stmt)
        found |= names.reads | names.writes
    return found | reads_of_functions_called(ctx.module, found)


def _reads_gradients(stmt) -> bool:
    return bool(m.findall(stmt, m.Attribute(attr=m.Name("grad"))))
