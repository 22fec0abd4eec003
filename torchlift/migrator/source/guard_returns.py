"""A function's bare `return`s as the blocks they skip, so its body can be inlined.

    def batch_end_callback(trainer):            if not (trainer.iter_num % 100 != 0):
        if trainer.iter_num % 100 != 0:             print(trainer.iter_num, trainer.loss)
            return                       ->         if trainer.iter_num % 500 == 0:
        print(trainer.iter_num, trainer.loss)           evaluate(trainer)
        if trainer.iter_num % 500 == 0:
            evaluate(trainer)

minGPT's callbacks return early to skip most iterations. Inlined where they are called, that
`return` would leave the code around them (the training step), so it goes: what follows an
`if` whose branch returns runs in the branches that go on (its other branches, or an `else`
/ a negated test made for it), and what follows a bare `return` never runs. Python runs the
same statements in the same order: the test is evaluated once, as before.

Read only: bare `return`s (the value a callback returns is ignored, but its expression would
run) at the top of the body or in the branches of `if` statements, the code after such an
`if` going on in one branch only (two would need two copies of it). A `return` in a loop,
a `with`, a `try`, or returning a value: None, and the caller keeps its refusal.
"""

from __future__ import annotations

import libcst as cst


def without_returns(body: list) -> list | None:
    """`body` (a function's statements) with its bare `return`s gone, or None."""
    return _rewrite(list(body))


def _rewrite(stmts: list) -> list | None:
    out: list = []
    for i, stmt in enumerate(stmts):
        if not _holds_return(stmt):
            out.append(stmt)
            continue
        if isinstance(stmt, cst.SimpleStatementLine):
            *before, last = stmt.body
            if not _bare_return(last) or any(_holds_return(s) for s in before):
                return None
            if before:  # `x = f(); return`: the statements before it on the line still run
                before[-1] = before[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                out.append(stmt.with_changes(body=before))
            return out  # what follows never runs
        if not isinstance(stmt, cst.If):
            return None  # a return in a loop, a `with`, a `try`: not read here
        chosen = _rewrite_if(stmt, stmts[i + 1 :])
        return None if chosen is None else [*out, chosen]
    return out


def _rewrite_if(stmt: cst.If, rest: list) -> cst.If | None:
    """`stmt` with `rest` (the statements after it) moved into the branches that go on."""
    branches = _branches(stmt)
    has_else = isinstance(_last(stmt).orelse, cst.Else)
    going_on = [b for b in branches if not _always_returns(b)] + ([] if has_else else [None])
    if rest and len(going_on) > 1:
        return None  # the rest would be copied into two branches
    bodies = []
    for body in branches:
        new = _rewrite(body if _always_returns(body) else [*body, *rest])
        if new is None:
            return None
        bodies.append(new)
    otherwise = None
    if not has_else:
        otherwise = _rewrite(rest)
        if otherwise is None:
            return None
    if len(branches) == 1 and not has_else and not bodies[0] and otherwise:
        return stmt.with_changes(test=_negated(stmt.test), body=_block(stmt, otherwise))
    if len(branches) == 2 and has_else and not bodies[0] and bodies[1]:
        return stmt.with_changes(
            test=_negated(stmt.test), body=_block(stmt, bodies[1]), orelse=None
        )
    return _rebuilt(stmt, bodies, otherwise)


def _rebuilt(stmt: cst.If, bodies: list, otherwise: list | None) -> cst.If:
    """The `if` chain with each branch's new statements (`pass` for none), and an `else`
    holding `otherwise` when there is some."""
    body, *later = bodies
    orelse = stmt.orelse
    if isinstance(orelse, cst.If):
        orelse = _rebuilt(orelse, later, otherwise)
    elif isinstance(orelse, cst.Else):
        orelse = orelse.with_changes(body=_block(orelse, later[0]))
    elif otherwise:
        orelse = cst.Else(body=cst.IndentedBlock(body=otherwise))
    return stmt.with_changes(body=_block(stmt, body), orelse=orelse)


def _block(owner, stmts: list) -> cst.IndentedBlock:
    block = owner.body if isinstance(owner.body, cst.IndentedBlock) else cst.IndentedBlock([])
    return block.with_changes(body=stmts or [cst.SimpleStatementLine([cst.Pass()])])


def _negated(test: cst.BaseExpression) -> cst.UnaryOperation:
    """`not (test)`: parenthesised unless a name, attribute, call or subscript."""
    simple = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)
    if not isinstance(test, simple) and not test.lpar:
        test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(operator=cst.Not(), expression=test)


def _branches(stmt: cst.If) -> list[list]:
    """The statements of each branch of the chain, `else` included."""
    found, branch = [], stmt
    while isinstance(branch, cst.If):
        found.append(_statements(branch.body))
        branch = branch.orelse
    if isinstance(branch, cst.Else):
        found.append(_statements(branch.body))
    return found


def _last(stmt: cst.If) -> cst.If:
    while isinstance(stmt.orelse, cst.If):
        stmt = stmt.orelse
    return stmt


def _statements(suite) -> list:
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    return [cst.SimpleStatementLine(list(suite.body))]  # `if c: return` on one line


def _always_returns(stmts: list) -> bool:
    """Every path through `stmts` ends in a bare `return`."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return _bare_return(last.body[-1])
    if isinstance(last, cst.If) and isinstance(_last(last).orelse, cst.Else):
        return all(_always_returns(body) for body in _branches(last))
    return False


def _bare_return(small) -> bool:
    return isinstance(small, cst.Return) and small.value is None


def _holds_return(node) -> bool:
    """`node` holds a `return` of the function itself (not of a nested def or lambda)."""
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Return(self, node: cst.Return) -> None:
            found.append(node)

        def visit_FunctionDef(self, node) -> bool:
            return False

        def visit_ClassDef(self, node) -> bool:
            return False

        def visit_Lambda(self, node) -> bool:
            return False

    node.visit(Finder())
    return bool(found)
