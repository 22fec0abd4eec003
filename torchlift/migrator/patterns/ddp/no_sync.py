"""Pattern: `model.no_sync()` on the micro-steps of a gradient accumulation group ->
Lightning's own, `Trainer(accumulate_grad_batches=K)` under `strategy="ddp"`.

    for i, (x, y) in enumerate(loader):
        last = (i + 1) % K == 0 or i + 1 == len(loader)      -> removed
        context = nullcontext() if last else model.no_sync() -> removed
        with context:                                        -> its body, in training_step
            loss = criterion(model(x), y) / K
            loss.backward()
        if last:                                             -> `if (i + 1) % K == 0 or ...:`,
            optimizer.step()                                    accumulation.py's group
            optimizer.zero_grad()

DDP all-reduces the gradients at every backward; `no_sync()` keeps them local, so a group's
micro-steps add up on each process and the stepping batch all-reduces the sum once. Lightning
does the same on the batches it accumulates (`strategy.block_backward_sync()`: DDP's own
`no_sync()` around the forward and backward of each batch that does not step; the runtime
alike), so where the sync happens exactly on the batches the group steps on, the context goes
and the group is accumulation.py's. Also written `with model.no_sync() if not last else
nullcontext():`, or as an `if` with the same statements under `with model.no_sync():` in one
branch and bare in the other.

Refused (TL114), each at its statement: a `no_sync()` not on the DDP wrapper, in another shape,
or syncing on other batches than those the group steps on; a flag read elsewhere; and an
accumulation Lightning would not reproduce (a partial last group the script does not step on:
the group would be kept under manual optimization, where every backward all-reduces).
"""

from __future__ import annotations

import ast

import libcst as cst
import libcst.matchers as m

from ...analysis.names import collect_names
from ...analysis.statements import single_assign, statements
from ...rule import Unsupported
from ...source.code_text import first_line
from ..accumulation import ACCUMULATION

RULES = ()

_NO_SYNC = m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("no_sync")), args=[])
_NULL_CONTEXT = {"contextlib.nullcontext"}


def batch_statements(ctx, stmts):
    """The batch loop's statements with a `no_sync()` choice on accumulation micro-steps
    removed (the context's body inlined, the group's flag written out in its `if`)."""
    uses = [s for s in stmts if m.findall(s, m.Attribute(attr=m.Name("no_sync")))]
    if not uses or "ddp" not in ctx.found:
        return stmts
    stmts = list(stmts)
    where, kind = _context_statement(ctx, stmts, uses[0])
    syncs, body = _sync_condition(ctx, stmts, where, kind)
    flags = _flags(stmts, syncs)
    group = _group(ctx, stmts, where)
    test = _written_out(group.test, flags)
    if _canonical(ctx, test) != _canonical(ctx, _written_out(syncs, flags)):
        raise Unsupported(
            ACCUMULATION,
            f"`{first_line(where, ctx.module)}` syncs the gradients when "
            f"`{first_line(_written_out(syncs, flags), ctx.module)}`, not on the batches the group "
            f"`if {first_line(group.test, ctx.module)}:` steps on",
            where,
        )
    _check_flags_read_only_there(ctx, stmts, flags, {id(where), id(group)})
    wrapper = next(c.func.value.value for u in uses for c in m.findall(u, _NO_SYNC))
    if wrapper not in ctx.found["ddp"].wrappers:  # read as the model it wraps (see below)
        wrapper = next(c.func.value.value for c in m.findall(ctx.module, _NO_SYNC))
    ctx.found["no_sync"] = (where, group, wrapper)
    removed = {id(s) for s in flags.values()}
    if kind == "named":  # `context = nullcontext() if last else model.no_sync()`
        removed.add(id(_context_binding(stmts, where)))
    out = []
    for stmt in stmts:
        if id(stmt) in removed:
            continue
        if stmt is where:
            out.extend(_lead(body, stmt))
        elif stmt is group:
            out.append(stmt.with_changes(test=test))
            origins = ctx.found.setdefault("inlined_at", {})  # refusals name its line
            for a, b in zip(statements(out[-1]), statements(stmt)):
                origins[id(a)] = origins.get(id(b), b)
        else:
            out.append(stmt)
    return out


# -- the shapes the choice is written in ---------------------------------------------------
def _context_statement(ctx, stmts, use):
    """(the statement choosing between `no_sync()` and syncing, its kind): a `with` over the
    choice ("inline"), a `with` over a name bound to it just before ("named"), an `if`
    whose branches are the same code with and without `with model.no_sync():` ("branches")."""
    if isinstance(use, cst.With):
        return use, "inline"
    if isinstance(use, cst.If):
        return use, "branches"
    assign = single_assign(use)
    if assign is not None:
        name = assign[0]
        later = [
            s
            for s in stmts[stmts.index(use) + 1 :]
            if isinstance(s, cst.With)
            and len(s.items) == 1
            and m.matches(s.items[0].item, m.Name(name))
        ]
        if len(later) == 1 and later[0].items[0].asname is None:
            return later[0], "named"
    raise Unsupported(
        ACCUMULATION,
        f"`no_sync()` used in `{first_line(use, ctx.module)}`: not the context of a `with` "
        "choosing between it and `contextlib.nullcontext()` around the micro-step's forward and backward",
        use,
    )


def _context_binding(stmts, where):
    name = where.items[0].item.value
    return next(s for s in stmts if (a := single_assign(s)) is not None and a[0] == name)


def _sync_condition(ctx, stmts, where, kind):
    """(the test under which the micro-step syncs, the statements run either way)."""
    if kind == "branches":
        return _branches(ctx, where)
    choice = where.items[0].item
    if kind == "named":  # bound once in the batch loop, read by the `with` alone
        name = choice.value
        writes = [s for s in stmts if name in collect_names(s).writes]
        reads = [s for s in stmts if name in collect_names(s).reads]
        choice = single_assign(writes[0])[1] if len(writes) == len(reads) == 1 else None
    if not isinstance(choice, cst.IfExp) or where.items[0].asname is not None:
        raise Unsupported(
            ACCUMULATION,
            f"`{first_line(where.items[0].item, ctx.module)}`: not a choice between "
            "`model.no_sync()` and `contextlib.nullcontext()` by a test",
            where,
        )
    sync = _sides(ctx, choice.body, choice.orelse, where)
    test = choice.test if sync == "body" else _negated(choice.test)
    return test, list(where.body.body)


def _sides(ctx, body, orelse, where) -> str:
    """Which side of the choice syncs ("body" / "orelse"): the nullcontext() one, the other
    being `no_sync()` on the DDP wrapper."""
    null = [bool(ctx.call_qualnames(x) & _NULL_CONTEXT) and not x.args for x in (body, orelse)]
    no_sync = [_wrapper_no_sync(ctx, x) for x in (body, orelse)]
    if null == [True, False] and no_sync == [False, True]:
        return "body"
    if null == [False, True] and no_sync == [True, False]:
        return "orelse"
    raise Unsupported(
        ACCUMULATION,
        "the context is not a choice between `no_sync()` on the DDP-wrapped model and "
        "`contextlib.nullcontext()`",
        where,
    )


def _wrapper_no_sync(ctx, expr) -> bool:
    """`<wrapper>.no_sync()` on a name bound to `DDP(...)` (read_wrappers' facts). The batch
    loop is read after the wrapper's reads became the model's (`ddp_model(x)` -> `model(x)`,
    bindings.py): `model.no_sync()` there is the wrapper's when every `no_sync()` the script
    wrote is on a wrapper of that model (on the bare module it would not exist)."""
    if not m.matches(expr, _NO_SYNC):
        return False
    wrappers = ctx.found["ddp"].wrappers
    name = expr.func.value.value
    if name in wrappers:
        return True
    written = [c.func.value.value for c in m.findall(ctx.module, _NO_SYNC)]
    return bool(written) and all(wrappers.get(w) == name for w in written)


def _branches(ctx, stmt: cst.If):
    """`if c: with model.no_sync(): <body>` / `else: <body>` (either way round): (the test
    under which the step syncs, the body)."""
    orelse = stmt.orelse
    if not isinstance(orelse, cst.Else):
        raise Unsupported(
            ACCUMULATION, "`no_sync()` under an `if` without the same code under `else`", stmt
        )
    sides = [list(stmt.body.body), list(orelse.body.body)]
    wrapped = [
        len(side) == 1
        and isinstance(side[0], cst.With)
        and len(side[0].items) == 1
        and side[0].items[0].asname is None
        and _wrapper_no_sync(ctx, side[0].items[0].item)
        for side in sides
    ]
    if wrapped.count(True) == 1:
        inner = list(sides[wrapped.index(True)][0].body.body)
        other = sides[wrapped.index(False)]
        if _same_code(ctx, inner, other):
            test = _negated(stmt.test) if wrapped[0] else stmt.test
            return test, other
    raise Unsupported(
        ACCUMULATION,
        "the branches of the `if` are not the same statements, one of them under `with "
        "model.no_sync():`",
        stmt,
    )


def _same_code(ctx, one, other) -> bool:
    code = ctx.module.code_for_node
    strip = lambda s: s.with_changes(leading_lines=[])  # noqa: E731
    return len(one) == len(other) and all(
        code(strip(a)).strip() == code(strip(b)).strip() for a, b in zip(one, other)
    )


# -- the group and its flag ----------------------------------------------------------------
def _flags(stmts, test) -> dict:
    """{name: its binding statement} of a flag `test` reads, bound once in the batch loop by
    `name = <expression>` before its use (`is_last = (i + 1) % K == 0`)."""
    found = {}
    for name in collect_names(test).reads:
        binders = [s for s in stmts if name in collect_names(s).writes]
        if len(binders) == 1 and single_assign(binders[0]) is not None:
            found[name] = binders[0]
    return found


def _group(ctx, stmts, where):
    """The `if` after `where` that steps an optimizer: the accumulation group."""
    after = stmts[stmts.index(where) + 1 :]
    groups = [
        (k, s)
        for k, s in enumerate(after)
        if isinstance(s, cst.If) and m.findall(s, m.Call(func=m.Attribute(attr=m.Name("step"))))
    ]
    if len(groups) != 1 or groups[0][1].orelse is not None:
        raise Unsupported(
            ACCUMULATION,
            "`no_sync()` on micro-steps with no accumulation group after them (one `if` "
            "stepping the optimizer, without `else`)",
            where,
        )
    return groups[0][1]


def _written_out(test, flags: dict):
    """`test` with each flag replaced by its value (`last` -> `(i + 1) % K == 0`), in
    parentheses inside a larger test."""
    values = {name: single_assign(stmt)[1] for name, stmt in flags.items()}
    if isinstance(test, cst.Name) and test.value in values:  # `if last:`
        return values[test.value].with_changes(lpar=[], rpar=[])

    class _Flags(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            value = values.get(original.value)
            if value is None:
                return updated
            return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    return test.visit(_Flags())


def _check_flags_read_only_there(ctx, stmts, flags: dict, users: set[int]) -> None:
    """Each flag is read by the context's choice and the group's test only, and what its
    value reads is not changed in the batch loop (it is computed again in the `if`)."""
    for name, binding in flags.items():
        readers = [
            s
            for s in stmts
            if s is not binding
            and id(s) not in users
            and name in collect_names(s).reads
            and not _binds_context(s, name)
        ]
        if readers:
            raise Unsupported(
                ACCUMULATION,
                f"`{name}`, which chooses `no_sync()`, is read besides the group's test",
                readers[0],
            )
        value = single_assign(binding)[1]
        changed = collect_names(value).reads & collect_names(*stmts).writes
        if changed:
            raise Unsupported(
                ACCUMULATION,
                f"`{name}` reads `{sorted(changed)[0]}`, which the batch loop changes",
                binding,
            )


def _binds_context(stmt, flag: str) -> bool:
    """`context = nullcontext() if flag else model.no_sync()`: the choice itself."""
    assign = single_assign(stmt)
    return (
        assign is not None
        and isinstance(assign[1], cst.IfExp)
        and bool(m.findall(assign[1], m.Attribute(attr=m.Name("no_sync"))))
    )


# -- comparing tests -----------------------------------------------------------------------
def _negated(test):
    return cst.UnaryOperation(
        operator=cst.Not(),
        expression=test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]),
    )


def _canonical(ctx, test) -> str:
    """`test` as Python reads it, each `not` pushed down to the comparisons (De Morgan,
    `not a != b` is `a == b`): two tests holding on the same batches compare equal."""
    tree = ast.parse(ctx.module.code_for_node(test).strip(), mode="eval").body
    return ast.dump(_pushed(tree, negate=False))


_FLIP = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


def _pushed(node, negate: bool):
    """`node` (or `not node`) with no `not` above a comparison or a boolean operation."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _pushed(node.operand, not negate)
    if isinstance(node, ast.BoolOp):
        op = node.op if not negate else (ast.And() if isinstance(node.op, ast.Or) else ast.Or())
        values = []
        for value in (_pushed(v, negate) for v in node.values):  # `a or (b or c)`: flat
            same = isinstance(value, ast.BoolOp) and type(value.op) is type(op)
            values.extend(value.values if same else [value])
        return ast.BoolOp(op, values)
    if negate and isinstance(node, ast.Compare) and len(node.ops) == 1:
        return ast.Compare(node.left, [_FLIP[type(node.ops[0])]()], node.comparators)
    return ast.UnaryOp(ast.Not(), node) if negate else node


def _lead(body, stmt):
    body = list(body)
    if body:
        body[0] = body[0].with_changes(leading_lines=[*stmt.leading_lines, *body[0].leading_lines])
    return body


# -- what Lightning's accumulation does -----------------------------------------------------
def read(ctx, plan, steps) -> None:
    """Lightning keeps the gradients local on exactly the batches it accumulates: only with
    its own accumulation, on the script's groups, for the model it trains (read after every
    pattern's bind: accumulation's decision, the model DDP wraps)."""
    found = ctx.found.get("no_sync")
    if found is None:
        group = steps.get("accumulate_group")
        if "ddp" in ctx.found and group is not None:
            # the script all-reduces every micro-step's gradients, Lightning only the sum
            how = (
                "a manual step under DDP is not known to all-reduce where the script does"
                if steps["manual_optimization"]
                else "Lightning's accumulate_grad_batches only the group's sum at its step "
                "(equal up to rounding, not bit for bit)"
            )
            raise Unsupported(
                ACCUMULATION,
                "gradient accumulation under DDP without `no_sync()`: the script all-reduces "
                f"the gradients at every backward, {how}",
                group[1],
            )
        return
    where, group, wrapper = found
    facts = ctx.found["ddp"]
    model = plan.model
    if facts.wrappers.get(wrapper) not in {model.name, *model.aliases}:
        raise Unsupported(
            ACCUMULATION,
            f"`{wrapper}.no_sync()` is not on the DDP wrapper of the model the step trains",
            where,
        )
    if steps.get("accumulate") is None:
        raise Unsupported(
            ACCUMULATION,
            f"`if {first_line(group.test, ctx.module)}:` is not an accumulation group "
            "(`if (i + 1) % K == 0:` on the batch index, or `... or i + 1 == len(loader)`)",
            group,
        )
    if (
        steps["manual_optimization"]
        and steps["clip"] is not None
        and not steps.get("clip_in_group")
    ):
        raise Unsupported(
            ACCUMULATION,
            "`no_sync()` on micro-steps whose gradients are clipped each (Lightning clips once "
            "per group): kept under manual optimization, every backward would all-reduce",
            steps["clip"][2],
        )
    if steps["manual_optimization"]:
        from ..accumulation import _not_exact

        size, batches = _sizes(ctx, steps)
        raise Unsupported(
            ACCUMULATION,
            f"`no_sync()` on the micro-steps of a group Lightning would not reproduce: "
            f"{_not_exact(ctx, steps, size, batches)}, and Lightning steps on an epoch's last "
            "partial group (`or i + 1 == len(loader)` in the test would step there too); "
            "kept under manual optimization, every backward would all-reduce",
            group,
        )
    plan.notes.append(
        "DDP's no_sync() on the accumulation micro-steps -> Lightning's accumulate_grad_batches, "
        "which keeps them local the same way"
    )


def _sizes(ctx, steps):
    from ...analysis.loader_length import batches_per_epoch, constant_int

    return constant_int(ctx, steps["accumulate"]), batches_per_epoch(ctx, steps["loader"])
