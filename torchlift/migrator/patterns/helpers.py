"""Pattern: per-epoch helper calls (`train(model, loader, optimizer, epoch)`), inlined into
the epoch loop before it is read.

The PyTorch examples put the batch loop in module-level helpers called once per epoch. To plan
such a loop, each call statement is replaced by the helper's body with parameters renamed to
the call's arguments; a final `return x` becomes `target = x`. Helper locals that would clash
with names of the epoch loop (or of another inlined helper) get the helper's name as prefix.

Not inlined (the loop is reported instead): helpers with *args/**kwargs, early returns,
nested functions, or arguments that are not plain names, attributes or constants.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.fstrings import requote_in_fstrings
from ..analysis.names import bound_names, collect_names, node_kinds, rename
from ..rule import Rule, Unsupported
from .helper_globals import declared_globals

HELPER_SHAPE = Rule(
    "TL111",
    "training helper function shape not understood",
    """A helper called once per epoch (`train(model, loader, optimizer, epoch)`) is inlined
    into the epoch loop before converting. That needs plain parameters (no *args/**kwargs),
    arguments that are names, attributes or constants, a single `return` at the end, and no
    functions defined inside.""",
    """Pass plain names to the helper (bind an expression to a name first) and return once,
    at its end.""",
    """
    def train(model, loader, optimizer, *extra):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()


    for epoch in range(2):
        train(model, loader, optimizer)
    """,
)

RULES = (HELPER_SHAPE,)


def epoch_body(ctx, stmts):
    """Each `[target =] helper(...)` statement of the epoch body replaced by the helper's
    body; the helpers inlined are noted for the plan (removed once nothing calls them)."""
    helpers = training_helpers(ctx.module)
    inlined = ctx.found.setdefault("inlined", [])
    if not helpers:
        return stmts
    taken = collect_names(*stmts).all() | set(ctx.params)
    for stmt in ctx.scope_before:
        taken |= bound_names(stmt)
    out = []
    calls = [(stmt, helper_call(stmt, helpers)) for stmt in stmts]
    called = {found[0].name.value for _, found in calls if found is not None}
    for stmt, found in calls:
        if found is None:
            out.append(stmt)
            continue
        body, declared = declared_globals(ctx, found[0], stmt, called)
        body, bound = inline_call(stmt, *found, taken, body=body, keep=declared)
        taken |= bound
        inlined.append(found[0].name.value)
        origin = ctx.found.setdefault("inlined_from", {})  # for reasons naming the helper
        origin.update({id(inlined_stmt): found[0].name.value for inlined_stmt in body})
        out.extend(body)
    return out


def read(ctx, plan, steps) -> None:
    plan.inlined_helpers = list(ctx.found.get("inlined", []))


_SIMPLE_ARG = m.Name() | m.Attribute() | m.Integer() | m.Float() | m.SimpleString()


def training_helpers(module: cst.Module) -> dict[str, cst.FunctionDef]:
    """Module-level functions whose body loops over batches (with or without backward)."""
    return {
        stmt.name.value: stmt
        for stmt in module.body
        if isinstance(stmt, cst.FunctionDef) and "loop" in node_kinds(stmt.body)
    }


def helper_call(stmt: cst.CSTNode, helpers: dict[str, cst.FunctionDef]):
    """(function, call, assign target or None) when `stmt` is `[target =] helper(...)`."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    target = None
    if isinstance(small, cst.Expr):
        call = small.value
    elif isinstance(small, cst.Assign) and len(small.targets) == 1:
        call, target = small.value, small.targets[0].target
    else:
        return None
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Name):
        func = helpers.get(call.func.value)
        if func is not None:
            return func, call, target
    return None


def _bind_arguments(func: cst.FunctionDef, call: cst.Call, stmt) -> dict[str, cst.BaseExpression]:
    params = func.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT and params.star_arg is not None:
        if isinstance(params.star_arg, cst.Param):
            raise Unsupported(HELPER_SHAPE, f"helper `{func.name.value}` takes *args", stmt)
    if params.star_kwarg is not None:
        raise Unsupported(HELPER_SHAPE, f"helper `{func.name.value}` takes **kwargs", stmt)
    ordered = [*params.posonly_params, *params.params]
    by_name = {p.name.value: p for p in [*ordered, *params.kwonly_params]}
    bound: dict[str, cst.BaseExpression] = {}
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > len(ordered):
        raise Unsupported(
            HELPER_SHAPE, f"call of `{func.name.value}` with *args or too many args", stmt
        )
    for param, arg in zip(ordered, positional):
        bound[param.name.value] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value not in by_name:
                raise Unsupported(HELPER_SHAPE, f"unknown keyword `{arg.keyword.value}`", stmt)
            bound[arg.keyword.value] = arg.value
    for name, param in by_name.items():
        if name not in bound:
            if param.default is None:
                raise Unsupported(HELPER_SHAPE, f"missing argument `{name}`", stmt)
            bound[name] = param.default
    for name, value in bound.items():
        if not m.matches(value, _SIMPLE_ARG) and not isinstance(value, cst.BaseNumber):
            raise Unsupported(
                HELPER_SHAPE,
                f"argument `{name}` of `{func.name.value}` is an expression; bind it to a name first",
                stmt,
            )
    return bound


def _writes_outside_loops(stmts) -> set[str]:
    """Names bound by the helper itself, not per batch (accumulators, setup values)."""
    writes: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, (cst.For, cst.While)):
            continue
        if isinstance(stmt, cst.SimpleStatementLine):
            writes |= collect_names(stmt).writes
        elif isinstance(stmt, (cst.With, cst.If, cst.Try)):
            inner = list(stmt.body.body)
            if isinstance(stmt, cst.If) and stmt.orelse is not None:
                inner += list(getattr(stmt.orelse, "body", cst.IndentedBlock([])).body)
            writes |= _writes_outside_loops(inner)
        else:
            writes |= collect_names(stmt).writes
    return writes


def _renamed(node, mapping, func, stmt):
    """`node` with the helper's parameters replaced by the call's arguments; a string
    argument read in an f-string re-quoted (`f"{header}"` given `header=""`)."""
    out = requote_in_fstrings(rename(node, mapping))
    if out is None:
        raise Unsupported(
            HELPER_SHAPE,
            f"a string argument of `{func.name.value}` is read in an f-string, where its quotes "
            "cannot be kept; bind it to a name first",
            stmt,
        )
    return out


def inline_call(
    stmt, func, call, target, taken: set[str], body=None, keep: set[str] = frozenset()
) -> tuple[list, set[str]]:
    """Statements equivalent to `stmt` (a helper call) and the helper locals they bind.
    `body`: the helper's statements to inline (default: all of them); `keep`: names it
    binds that keep their spelling (module globals it declared)."""
    body = list(func.body.body if body is None else body)
    if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])):
        body = body[1:]  # docstring
    kinds = node_kinds(func.body)
    if "def" in kinds:
        raise Unsupported(HELPER_SHAPE, f"helper `{func.name.value}` defines functions", stmt)
    returns = m.findall(func.body, m.Return()) if "return" in kinds else []
    last = body[-1] if body else None
    final_return = None
    if (
        isinstance(last, cst.SimpleStatementLine)
        and len(last.body) == 1
        and isinstance(last.body[0], cst.Return)
    ):
        final_return = last.body[0]
        body = body[:-1]
    if any(r is not final_return for r in returns):
        raise Unsupported(HELPER_SHAPE, f"helper `{func.name.value}` returns early", stmt)
    if "yield" in kinds or "global" in node_kinds(cst.IndentedBlock(body)):
        raise Unsupported(HELPER_SHAPE, f"helper `{func.name.value}` uses global/yield", stmt)
    mapping = dict(_bind_arguments(func, call, stmt))
    params = set(mapping)
    top_writes = _writes_outside_loops(body)
    all_writes = collect_names(*body).writes - params
    for name in sorted(top_writes - params - keep):
        if name in taken:
            mapping[name] = cst.Name(f"{func.name.value}_{name}")
    out = [_renamed(s, mapping, func, stmt) for s in body]
    if final_return is not None and target is not None and final_return.value is not None:
        value = _renamed(final_return.value, mapping, func, stmt)
        out.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], value)]))
    elif target is not None:
        raise Unsupported(
            HELPER_SHAPE, f"`{func.name.value}` returns nothing but its result is used", stmt
        )
    if out:
        out[0] = out[0].with_changes(leading_lines=stmt.leading_lines)
    bound = {mapping[n].value if isinstance(mapping.get(n), cst.Name) else n for n in all_writes}
    return out, bound
