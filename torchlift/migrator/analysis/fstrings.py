"""String literals substituted into f-string replacement fields.

Inlining a helper puts its arguments where its parameters were read, so `header=""` read by
`f"{header} done"` becomes `f"{""} done"`: valid from Python 3.12 on, a syntax error before
(a replacement field may not hold the f-string's own quote, nor a backslash). Such a literal is
re-quoted with the other quote character; one that cannot be (it holds a quote, a backslash or
a newline) is reported so the caller refuses instead of writing invalid code.
"""

from __future__ import annotations

import ast

import libcst as cst

_OTHER = {'"': "'", "'": '"'}


class _Requote(cst.CSTTransformer):
    def __init__(self) -> None:
        super().__init__()
        self.quotes: list[str] = []  # quote characters of the enclosing f-strings
        self.failed = False

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self.quotes.append(node.end[0])

    def leave_FormattedString(self, original_node, updated_node):
        self.quotes.pop()
        return updated_node

    def leave_SimpleString(self, original_node, updated_node):
        if not self.quotes or self.quotes[-1] not in updated_node.value:
            return updated_node
        value = ast.literal_eval(updated_node.value)
        if not isinstance(value, str) or any(c in value for c in "\"'\\\n\r"):
            self.failed = True
            return updated_node
        other = _OTHER[self.quotes[-1]]
        if any(other == q for q in self.quotes):  # nested f-strings use both quotes already
            self.failed = True
            return updated_node
        return updated_node.with_changes(value=f"{other}{value}{other}")


def requote_in_fstrings(node: cst.CSTNode) -> cst.CSTNode | None:
    """`node` with every string literal inside an f-string's replacement fields quoted
    unlike that f-string; None when one cannot be."""
    visitor = _Requote()
    out = node.visit(visitor)
    return None if visitor.failed else out
