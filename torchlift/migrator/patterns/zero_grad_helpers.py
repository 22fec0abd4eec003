"""Pattern: a helper that only zeroes the optimizers' gradients, called in the batch loop.

    def reset_grad():                       -> removed once nothing else calls it
        d_optimizer.zero_grad()
        g_optimizer.zero_grad()

    for images, _ in data_loader:
        ...
        reset_grad()                        -> d_optimizer.zero_grad()
        d_loss.backward()                      g_optimizer.zero_grad()
                                               self.manual_backward(d_loss) ...

The optimizers move into `configure_optimizers`, so a module function reading them as
globals would read names that no longer exist; its calls in the batch loop become its
`zero_grad()` statements, which the step patterns then read like the script's own. Only a
function of no parameters whose body is nothing but `<name>.zero_grad(...)` calls is read so;
any other helper stays a call.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

RULES = ()

_ZERO_GRAD = m.SimpleStatementLine(
    body=[m.Expr(m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("zero_grad"))))]
)


def batch_statements(ctx, stmts):
    helpers = _zero_grad_helpers(ctx.module)
    if not helpers:
        return stmts
    out = []
    for stmt in stmts:
        name = _called(stmt)
        if name not in helpers:
            out.append(stmt)
            continue
        body = [s.with_changes(leading_lines=[]) for s in helpers[name].body.body]
        body[0] = body[0].with_changes(leading_lines=stmt.leading_lines)
        out.extend(body)
        ctx.found.setdefault("zero_grad_helpers", set()).add(name)
    return out


def read(ctx, plan, steps) -> None:
    for name in sorted(ctx.found.get("zero_grad_helpers", ())):
        if name not in plan.inlined_helpers:  # removed when no other call is left
            plan.inlined_helpers.append(name)


def _zero_grad_helpers(module: cst.Module) -> dict[str, cst.FunctionDef]:
    found = {}
    for stmt in module.body:
        if (
            isinstance(stmt, cst.FunctionDef)
            and not stmt.decorators
            and _no_parameters(stmt.params)
            and isinstance(stmt.body, cst.IndentedBlock)
            and all(m.matches(s, _ZERO_GRAD) for s in stmt.body.body)
        ):
            found[stmt.name.value] = stmt
    return found


def _no_parameters(params: cst.Parameters) -> bool:
    return not (
        params.params
        or params.posonly_params
        or params.kwonly_params
        or isinstance(params.star_arg, cst.Param)
        or params.star_kwarg is not None
    )


def _called(stmt) -> str | None:
    """`f` for a statement that is just `f()`."""
    if m.matches(stmt, m.SimpleStatementLine(body=[m.Expr(m.Call(func=m.Name(), args=[]))])):
        return stmt.body[0].value.func.value
    return None
