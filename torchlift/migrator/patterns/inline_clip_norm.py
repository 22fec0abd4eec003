"""Pattern: the norm `clip_grad_norm_` returns, used inside another statement before the step.

    loss.backward()
    norms.append(clip_grad_norm_(model.parameters(), 1.0).item())   ->  grad_norm = clip_grad_norm_(...)
    optimizer.step()                                                    optimizer.step()
                                                                        norms.append(grad_norm.item())

Lightning clips in `configure_gradient_clipping`, inside its optimizer step, after
`training_step` has returned: code reading the norm must run after the step
(`on_train_batch_end`). The clipping call becomes its own statement, binding the norm
(clipping.py keeps it in that hook), and the rest of the statement moves right after the
optimizer's `step()`, when that changes nothing it computes: it reads only the norm and names
that neither the statements it moves past nor the step (the model, the optimizer) change, and
calls only methods and builtins that draw nothing (`append`, `.item()`, `float`). Otherwise
the statement stays, and clipping.py refuses the norm read before the step (TL105).
"""

from __future__ import annotations

import builtins

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names, file_identifiers
from ..analysis.statements import call_method
from .clipping import clip_call

RULES = ()

_NORM = "grad_norm"
_BUILTINS = frozenset(dir(builtins)) - {"iter", "next", "input", "exec", "eval", "open"}


def batch_statements(ctx, stmts):
    for at, stmt in enumerate(stmts):
        found = _inline_norm(ctx, stmt)
        if found is None:
            continue
        call, rest_of = found
        step = _optimizer_step_after(ctx, stmts, at)
        if step is None:
            return stmts
        name = _fresh_name(ctx)
        rest = rest_of(cst.Name(name))
        if not _movable(ctx, rest, call, stmts[at + 1 : step + 1], stmts[step]):
            return stmts
        bound = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(name))], call)],
            leading_lines=stmt.leading_lines,
        )
        rest = rest.with_changes(leading_lines=[])
        return [*stmts[:at], bound, *stmts[at + 1 : step + 1], rest, *stmts[step + 1 :]]
    return stmts


def _inline_norm(ctx, stmt):
    """(the clip_grad_norm_ call, a function giving `stmt` with the call replaced by an
    expression) when `stmt` is one simple statement using the norm inside something else."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, (cst.Expr, cst.Assign)) and isinstance(small.value, cst.Call):
        if clip_call(ctx, small.value) is not None:
            return None  # the clipping statement itself (clipping.py)
    calls = [c for c in m.findall(stmt, m.Call()) if (clip_call(ctx, c) or ("",))[0] == "norm"]
    if len(calls) != 1:
        return None
    call = calls[0]

    def rest_of(replacement):
        return stmt.deep_replace(call, replacement)

    return call, rest_of


def _optimizer_step_after(ctx, stmts, at: int) -> int | None:
    """Index of the first `<optimizer>.step()` after `at`, an optimizer of torch.optim."""
    for i in range(at + 1, len(stmts)):
        receiver = call_method(stmts[i], "step")
        if isinstance(receiver, cst.Name):
            binding, _ = ctx.binding(receiver.value)
            if binding is not None and isinstance(binding[1], cst.Call):
                kinds = ctx.call_qualnames(binding[1])
                if kinds and all(
                    q.startswith("torch.optim.") and ".lr_scheduler." not in q for q in kinds
                ):
                    return i
    return None


def _movable(ctx, rest, call: cst.Call, passed, step) -> bool:
    """`rest` (the statement without its clipping) may run right after the step: it reads
    nothing the statements it moves past change or the step trains (the clipped parameters'
    owner, the optimizer), they read nothing it writes, and it calls only attribute methods
    and builtins."""
    from ..shapes.epoch_batch import maybe_changed  # shapes import the patterns

    names = collect_names(rest)
    trained = collect_names(call).reads | collect_names(step).reads
    if names.reads & trained:
        return False
    for func in (c.func for c in m.findall(rest, m.Call())):
        if isinstance(func, cst.Name) and func.value not in _BUILTINS:
            return False
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return False
    block = cst.IndentedBlock(body=list(passed))
    if maybe_changed(ctx, block, names.reads) or collect_names(block).reads & names.writes:
        return False
    return not maybe_changed(ctx, cst.IndentedBlock(body=[rest]), collect_names(block).reads)


def _fresh_name(ctx) -> str:
    taken = file_identifiers(ctx.module.code, "<clip norm>")
    name, n = _NORM, 1
    while name in taken:
        name, n = f"{_NORM}_{n}", n + 1
    return name
