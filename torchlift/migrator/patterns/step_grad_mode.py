"""Pattern: `with torch.no_grad():` around the optimizer's calls alone.

    loss.backward()
    with torch.no_grad():          ->   optimizer.step()   (the step the Trainer takes)
        optimizer.step()

A torch.optim optimizer's `step()` already runs without grad (`_use_grad_for_differentiable`,
unless it was built with `differentiable=True`), and `zero_grad()` records nothing: the block
changes nothing and goes, leaving the plain step sequence. Any other statement in the block,
or an optimizer not known to be torch.optim's, leaves it to the step sequence's refusal (TL114).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.qualnames import GRAD_MODES

_NO_GRAD = frozenset(q for q in GRAD_MODES if q.endswith(".no_grad"))

RULES = ()

_CALLS = ("step", "zero_grad")


def batch_statements(ctx, stmts):
    out = []
    for stmt in stmts:
        if _optimizer_calls_without_grad(ctx, stmt):
            body = list(stmt.body.body)
            body[0] = body[0].with_changes(
                leading_lines=[*stmt.leading_lines, *body[0].leading_lines]
            )
            out.extend(body)
        else:
            out.append(stmt)
    return out


def _optimizer_calls_without_grad(ctx, stmt) -> bool:
    """`with torch.no_grad():` (no `as`) whose statements are all `<optimizer>.step()` /
    `.zero_grad(...)` of torch.optim optimizers bound before the loop."""
    if not (
        isinstance(stmt, cst.With)
        and len(stmt.items) == 1
        and stmt.items[0].asname is None
        and isinstance(stmt.body, cst.IndentedBlock)
        and stmt.body.body
        and m.matches(stmt.items[0].item, m.Call(args=[]))
        and ctx.call_qualnames(stmt.items[0].item) & _NO_GRAD
    ):
        return False
    for inner in stmt.body.body:
        call = m.Call(func=m.Attribute(value=m.Name(), attr=m.OneOf(*map(m.Name, _CALLS))))
        if not m.matches(inner, m.SimpleStatementLine([m.Expr(call)])):
            return False
        if not _plain_torch_optimizer(ctx, inner.body[0].value.func.value.value):
            return False
    return True


def _plain_torch_optimizer(ctx, name: str) -> bool:
    """`name` is bound once before the loop to a torch.optim optimizer that is not
    `differentiable=True`."""
    binding, count = ctx.binding(name)
    if binding is None or count != 1 or not isinstance(binding[1], cst.Call):
        return False
    value = binding[1]
    kinds = ctx.call_qualnames(value)
    if not kinds or not all(
        q.startswith("torch.optim.") and not q.startswith("torch.optim.lr_scheduler.")
        for q in kinds
    ):
        return False
    return not any(
        arg.keyword is not None and arg.keyword.value == "differentiable" or arg.star
        for arg in value.args
    )
