"""Pattern: mixed precision chosen at run time by whether a GradScaler exists.

    scaler = torch.amp.GradScaler() if args.amp else None     (kept: the Trainer reads it)
    ...
    with torch.autocast("cuda", enabled=scaler is not None):   -> precision="16-mixed" if
        loss = criterion(model(x), y)                               scaler is not None else
    if scaler is not None:                                         "32-true"
        scaler.scale(loss).backward()
        scaler.step(optimizer)                                  -> the step sequence, once
        scaler.update()
    else:
        loss.backward()
        optimizer.step()

The torchvision references' `train_one_epoch(..., scaler=None)`. Which branch runs is not
known before training (a command-line flag, a device check), so both must be the same
Lightning step: the scaled branch is patterns/amp.py's recipe (Lightning's 16-mixed runs it:
autocast, scale, unscale before clipping, step, update) and, read without its scaler
(`scaler.scale(loss).backward()` -> `loss.backward()`, `scaler.step(opt)` -> `opt.step()`,
`update()` / `unscale_()` -> nothing), it must be the plain branch statement for statement;
the autocast around the forward pass must be turned on by the same test. Off, the step is the
plain one under "32-true" (no autocast, no scaler: what the script runs); on, it is
patterns/amp.py's conversion. The scaler's binding stays so the Trainer's `precision=`
reads the same test; code after `fit` reading it gets the Trainer's scaler when there is one.

What the scaler name holds is read from data flow (patterns/passed_in.py's
`reaching_values`): every value reaching the loop is None, a `GradScaler(...)` with no other
argument than its device, or `<one of those> if <test> else <the other>`. Anything else (a
scaler built with its own `init_scale`, `enabled=`, the scaled branch doing more than the
plain one) stays an `if` the step sequence refuses (TL114).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..source.code_text import code_of
from .amp import SCALERS, is_autocast
from .passed_in import reaching_values

RULES = ()


def scaler_choice(ctx, stmt: cst.If, stmts: list) -> list | None:
    """The scaled branch of `if <scaler test>: <scaled step> else: <plain step>` when the
    two are the same Lightning step under `precision="16-mixed" if <test> else "32-true"`
    (see the docstring); None otherwise."""
    test = _scaler_test(stmt.test)
    if test is None or not isinstance(stmt.orelse, cst.Else):
        return None
    name, scaled_in_body = test
    if not _maybe_scaler(ctx, name):
        return None
    scaled, plain = stmt.body.body, stmt.orelse.body.body
    if not scaled_in_body:
        scaled, plain = plain, scaled
    if not isinstance(stmt.body, cst.IndentedBlock) or not isinstance(
        stmt.orelse.body, cst.IndentedBlock
    ):
        return None
    unscaled = _without_scaler(ctx, name, scaled)
    if unscaled is None or _codes(unscaled) != _codes(plain):
        return None
    if not _autocast_follows(ctx, name, stmts):
        return None
    ctx.found["conditional_scaler"] = name
    ctx.notes.append(
        f"`{ctx.module.code_for_node(stmt.test)}` chooses mixed precision at run time: "
        f'`precision="16-mixed" if ... else "32-true"` follows the same test (both branches '
        "are the same step, with or without the scaler)"
    )
    branch = list(scaled)
    branch[0] = branch[0].with_changes(leading_lines=[*stmt.leading_lines])
    return branch


def _scaler_test(test) -> tuple[str, bool] | None:
    """(name, whether the test holds when a scaler exists) for `s`, `not s`, `s is not
    None`, `s is None`."""
    if isinstance(test, cst.Name):
        return test.value, True
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _scaler_test(test.expression)
        return None if inner is None else (inner[0], not inner[1])
    if m.matches(
        test,
        m.Comparison(
            left=m.Name(), comparisons=[m.ComparisonTarget(m.Is() | m.IsNot(), m.Name("None"))]
        ),
    ):
        return test.left.value, isinstance(test.comparisons[0].operator, cst.IsNot)
    return None


def _maybe_scaler(ctx, name: str) -> bool:
    """Every value reaching `name` is None or a plain GradScaler, or a choice of those."""
    values = reaching_values(ctx, name)
    return bool(values) and all(_none_or_scaler(ctx, v) for v in values)


def _none_or_scaler(ctx, value) -> bool:
    if value is None:
        return False
    if isinstance(value, cst.IfExp):
        return _none_or_scaler(ctx, value.body) and _none_or_scaler(ctx, value.orelse)
    if m.matches(value, m.Name("None")):
        return True
    return (
        isinstance(value, cst.Call)
        and bool(ctx.call_qualnames(value) & SCALERS)
        and all(a.keyword is None or a.keyword.value == "device" for a in value.args)
        and len(value.args) <= 1
    )


def _without_scaler(ctx, name: str, stmts) -> list | None:
    """The scaled step read without its scaler, or None when it uses the scaler otherwise."""
    out = []
    for stmt in stmts:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        call = small.value if isinstance(small, cst.Expr) else None
        method = _scaler_method(name, call)
        if method in ("update", "unscale_"):
            continue
        if method == "step" and len(call.args) == 1:
            out.append(cst.parse_statement(f"{code_of(call.args[0].value)}.step()\n"))
            continue
        if (
            method is None
            and isinstance(call, cst.Call)
            and m.matches(call.func, m.Attribute(attr=m.Name("backward")))
            and _scaler_method(name, call.func.value) == "scale"
            and not call.args
            and len(call.func.value.args) == 1
        ):
            loss = code_of(call.func.value.args[0].value)
            out.append(cst.parse_statement(f"{loss}.backward()\n"))
            continue
        if name in collect_names(stmt).reads:
            return None
        out.append(stmt)
    return out


def _scaler_method(name: str, call) -> str | None:
    """`m` for `<name>.m(...)`."""
    if isinstance(call, cst.Call) and m.matches(call.func, m.Attribute(value=m.Name(name))):
        return call.func.attr.value
    return None


def _autocast_follows(ctx, name: str, stmts) -> bool:
    """An autocast of the batch loop, turned on by the scaler's own test."""
    found = False
    for stmt in stmts:
        if not is_autocast(ctx, stmt):
            continue
        enabled = [a for a in stmt.items[0].item.args if a.keyword and a.keyword.value == "enabled"]
        if not enabled or _scaler_test(enabled[0].value) != (name, True):
            return False
        found = True
    return found


def _codes(stmts) -> list[str]:
    """The statements as code, without the comments and blank lines above them."""
    return [code_of(s.with_changes(leading_lines=[])).strip() for s in stmts]
