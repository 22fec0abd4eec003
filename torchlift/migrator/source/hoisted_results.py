"""A training helper's result used as an argument of a call statement, bound to a name first.

    for epoch in range(3):                            for epoch in range(3):
        losses.append(train(model, loader, opt))  ->      train_result = train(model, loader, opt)
                                                          losses.append(train_result)

Python evaluates a call's function and the arguments before the helper's call first, then
the helper, then the rest. Bound first, the helper runs before the function and those
arguments are evaluated: the same when they are names, attributes of names or constants
(evaluating them does nothing) that the helper leaves alone. `read_before(stmt)` gives what
they name, so the caller checks that against the helper's inlined body (patterns/helpers.py:
a bare name it never binds; a name under an attribute or subscript it never mentions).

Only a call statement (`print(...)`, `losses.append(...)`, `writer.add_scalar(..., epoch)`)
or an assignment of a call (`mean = round(train(...), 4)`) holding the helper's call as one
of its own arguments; a result used deeper (`2 * train(...)`, an f-string, an `if` test) is
left as it is, and `nested_use` finds it for a precise refusal when the epoch trains only
there.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names, mentions

_PLAIN = m.Name() | m.Integer() | m.Float() | m.SimpleString()


def hoisted(stmt, helpers: set[str], fresh):
    """(`name = helper(...)`, `stmt` reading `name` instead, what it evaluates before the
    helper's call) when `stmt` is a call statement or a call's assignment giving a helper's
    result as an argument of its own, the parts evaluated before it all plain; None
    otherwise. `fresh(helper)`: the name."""
    found = _argument_call(stmt, helpers)
    if found is None:
        return None
    outer, at = found
    before = [outer.func, *(a.value for a in outer.args[:at])]
    if not all(_plain(part) for part in before):
        return None
    call = outer.args[at].value
    name = cst.Name(fresh(call.func.value))
    args = [*outer.args[:at], outer.args[at].with_changes(value=name), *outer.args[at + 1 :]]
    small = stmt.body[0]
    rest = stmt.with_changes(
        body=[small.with_changes(value=outer.with_changes(args=args))], leading_lines=[]
    )
    first = cst.SimpleStatementLine(
        [cst.Assign([cst.AssignTarget(name)], call)], leading_lines=stmt.leading_lines
    )
    return first, rest, before


def read_before(before: list) -> tuple[set[str], set[str]]:
    """(bare names, names under an attribute or subscript) among the parts `hoisted` found
    evaluated before the helper's call."""
    bare, deep = set(), set()
    for part in before:
        if isinstance(part, cst.Name):
            bare.add(part.value)
        else:
            deep |= collect_names(cst.Expr(part)).reads
    return bare, deep


def nested_use(stmt, helpers: set[str]) -> cst.Call | None:
    """A call of one of `helpers` standing anywhere in `stmt` (its result used inside an
    expression), for a refusal naming it."""
    if not any(name in mentions(stmt) for name in helpers):
        return None
    for call in m.findall(stmt, m.Call(func=m.Name())):
        if call.func.value in helpers:
            return call
    return None


def _argument_call(stmt, helpers: set[str]) -> tuple[cst.Call, int] | None:
    """(the statement's call, the position of the helper's call among its arguments)."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        outer = small.value
    elif isinstance(small, cst.Expr):
        outer = small.value
    else:
        return None
    if not isinstance(outer, cst.Call):
        return None
    for at, arg in enumerate(outer.args):
        value = arg.value
        if (
            not arg.star
            and isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in helpers
        ):
            return outer, at
    return None


def _plain(part) -> bool:
    """A name, a constant, or attributes / constant subscripts of a name: nothing runs."""
    while True:
        if m.matches(part, _PLAIN):
            return True
        if isinstance(part, cst.Attribute):
            part = part.value
        elif (
            isinstance(part, cst.Subscript)
            and len(part.slice) == 1
            and isinstance(part.slice[0].slice, cst.Index)
            and m.matches(part.slice[0].slice.value, _PLAIN)
        ):
            part = part.value
        else:
            return False
