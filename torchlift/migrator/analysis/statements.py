"""Shapes of single statements the recognisers ask about (libcst nodes, no metadata)."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .names import node_kinds

BACKWARD = frozenset({"backward"})
FLOW = frozenset({"break", "continue", "return", "yield", "global"})
FLOW_NO_BREAK = frozenset({"continue", "return", "yield", "global"})
LOOP = frozenset({"loop"})
OPTIMIZER_CALL = frozenset({"optimizer_call"})


def call_method(stmt: cst.CSTNode, method: str) -> cst.BaseExpression | None:
    """Receiver of `<receiver>.<method>(...)` when `stmt` is exactly that expression statement."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            func = small.value.func
            if isinstance(func, cst.Attribute) and func.attr.value == method:
                return func.value
    return None


_MOVE_CALL = m.Call(func=m.Attribute(attr=m.Name("to") | m.Name("cuda")))


def move_calls(node: cst.CSTNode) -> list[cst.Call]:
    """The `x.to(...)` / `x.cuda(...)` calls anywhere in `node` (any receiver, any arguments)."""
    return m.findall(node, _MOVE_CALL)


def single_assign(stmt: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """(name, value) when `stmt` is exactly `name = value`."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            return small.targets[0].target.value, small.value
    return None


def direct_breaks(node: cst.CSTNode) -> list[cst.Break]:
    """`break` statements that leave the loop enclosing `node` (not an inner loop)."""
    found = []
    if isinstance(node, (cst.For, cst.While)):
        node = node.body
    for child in node.children:
        if isinstance(child, cst.Break):
            found.append(child)
        elif not isinstance(child, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef)):
            found.extend(direct_breaks(child))
    return found


def statements(stmt: cst.CSTNode) -> list:
    """`stmt` and every statement nested in it, in source order."""
    from ..source.find_loops import iter_cst_statements

    return iter_cst_statements([stmt], [])


def contains(node: cst.CSTNode, kinds: frozenset) -> bool:
    """Whether the subtree holds any of `kinds` (see names.node_kinds)."""
    return bool(node_kinds(node) & kinds)


class OwnLoopTransformer(cst.CSTTransformer):
    """Base of transformers that rewrite `break` / `continue` of the loop being converted:
    `depth` counts the loops nested inside it, whose own `break` / `continue` stay."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0

    def visit_For(self, node) -> None:
        self.depth += 1

    def leave_For(self, original_node, updated_node):
        self.depth -= 1
        return updated_node

    def visit_While(self, node) -> None:
        self.depth += 1

    def leave_While(self, original_node, updated_node):
        self.depth -= 1
        return updated_node


def without_docstring(body) -> list:
    """The statements of a body after its docstring, if it has one (it runs nothing)."""
    body = list(body)
    if body and m.matches(body[0], m.SimpleStatementLine([m.Expr(m.SimpleString())])):
        return body[1:]
    return body


def with_keywords(stmt, call: cst.Call, drop: set[str], add: list) -> cst.CSTNode:
    """`stmt` with `call` (a call in it) rebuilt: its keyword arguments named in `drop` gone,
    `keyword=value` of each (keyword, expression) of `add` last (before a `**` unpacking), one
    space after each comma (or one argument a line, as the call was written)."""

    class Rewrite(cst.CSTTransformer):
        def leave_Call(self, original_node, updated_node):
            if original_node is not call:
                return updated_node
            args = [
                a for a in updated_node.args if a.keyword is None or a.keyword.value not in drop
            ]
            equal = cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=cst.SimpleWhitespace(""),
            )
            added = [cst.Arg(value, keyword=cst.Name(key), equal=equal) for key, value in add]
            # before a `**options` unpacking, which reads best last
            at = next((i for i, a in enumerate(args) if a.star == "**"), len(args))
            args[at:at] = added
            # one argument a line (`DataLoader(\n    dataset,\n    ...,\n)`) stays so
            lines = [
                a.comma
                for a in updated_node.args
                if isinstance(a.comma, cst.Comma)
                and isinstance(a.comma.whitespace_after, cst.ParenthesizedWhitespace)
            ]
            between = lines[0] if lines else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            end = updated_node.args[-1].comma if lines else cst.MaybeSentinel.DEFAULT
            last = len(args) - 1
            args = [a.with_changes(comma=end if i == last else between) for i, a in enumerate(args)]
            return updated_node.with_changes(args=args)

    return stmt.visit(Rewrite())
