"""String literals substituted into f-string replacement fields.

Inlining a helper puts its arguments where its parameters were read, so `header=""` read by
`f"{header} done"` becomes `f"{""} done"`: valid from Python 3.12 on, a syntax error before
(a replacement field may not hold the f-string's own quote, nor a backslash). Such a literal is
re-quoted with the other quote character; one that cannot be (it holds a quote, a backslash or
a newline) is reported so the caller refuses instead of writing invalid code.

Before that, a field reading only such a parameter (`f"{name} accuracy"` given `name="student"`)
is folded into the f-string's text (`f"student accuracy"`, not `f"{'student'} accuracy"`): what
a reviewer would have written; an f-string left with no field by that folding becomes a plain
string (`"student accuracy"`). The script's own literal fields are left as written.
"""

from __future__ import annotations

import ast

import libcst as cst

from .names import own_scope_nodes

_OTHER = {'"': "'", "'": '"'}


class _InFStrings(cst.CSTTransformer):
    """Keeps the quote characters of the f-strings enclosing the node being visited."""

    def __init__(self) -> None:
        super().__init__()
        self.quotes: list[str] = []

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self.quotes.append(node.end[0])

    def leave_FormattedString(self, original_node, updated_node):
        self.quotes.pop()
        return updated_node


class _Requote(_InFStrings):
    def __init__(self) -> None:
        super().__init__()
        self.failed = False

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


def formatted_text(
    field: cst.FormattedStringExpression, value: cst.BaseExpression | None = None
) -> str | None:
    """The text the replacement field `field` formats to when it holds a str literal (or is
    given `value`, one) and a literal format spec (`{'a':>5}`, `{"x"!r}`); None otherwise.
    Not brace-escaped."""
    value = field.expression if value is None else value
    if not isinstance(value, cst.SimpleString):
        return None
    value = value.evaluated_value
    spec = field.format_spec or []
    if not isinstance(value, str) or not all(isinstance(p, cst.FormattedStringText) for p in spec):
        return None
    if field.conversion == "r":
        value = repr(value)
    elif field.conversion not in (None, "s"):
        return None
    try:
        return format(value, "".join(p.value for p in spec))
    except ValueError:
        return None


def requote_in_fstrings(node: cst.CSTNode) -> cst.CSTNode | None:
    """`node` with every string literal inside an f-string's replacement fields quoted
    unlike that f-string; None when one cannot be."""
    visitor = _Requote()
    out = node.visit(visitor)
    return None if visitor.failed else out


class _FoldArguments(_InFStrings):
    def __init__(self, mapping, own: set[int] | None) -> None:
        super().__init__()
        self.mapping = mapping
        self.own = own
        self.folded: list[bool] = []  # per enclosing f-string: did a field of it fold?

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        super().visit_FormattedString(node)
        self.folded.append(False)

    def leave_FormattedString(self, original_node, updated_node):
        super().leave_FormattedString(original_node, updated_node)
        folded = self.folded.pop()
        if not folded or not all(isinstance(p, cst.FormattedStringText) for p in updated_node.parts):
            return updated_node
        # Every field folded: a plain string, as a reviewer would write it (an f-string without
        # fields is what linters flag, F541).
        text = "".join(p.value for p in updated_node.parts).replace("{{", "{").replace("}}", "}")
        prefix = updated_node.start[: -len(updated_node.end)].replace("f", "").replace("F", "")
        return cst.SimpleString(f"{prefix}{updated_node.end}{text}{updated_node.end}")

    def leave_FormattedStringExpression(self, original_node, updated_node):
        name = original_node.expression
        if not isinstance(name, cst.Name) or (self.own is not None and id(name) not in self.own):
            return updated_node
        text = formatted_text(updated_node, self.mapping.get(name.value))
        if text is None or any(c in text for c in (self.quotes[-1], "\\", "\n", "\r")):
            return updated_node
        self.folded[-1] = True
        return cst.FormattedStringText(text.replace("{", "{{").replace("}", "}}"))


def fold_string_arguments(node: cst.CSTNode, mapping: dict) -> cst.CSTNode:
    """`node` (a helper's code, before its parameters are replaced by `mapping`) with each
    f-string field that reads only a parameter given a str literal written as text."""
    if not any(isinstance(v, cst.SimpleString) for v in mapping.values()):
        return node
    return node.visit(_FoldArguments(mapping, own_scope_nodes(node)))
