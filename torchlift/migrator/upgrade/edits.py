"""Edits the row families share: keyword arguments of a call, and the pass applying edits.

Arguments keep their own formatting: a replacement takes the comma (and so the line break
and indentation) of the argument it replaces, so a one-line call stays on one line and a
call with one argument per line keeps that layout.
"""

from __future__ import annotations

import contextlib

import libcst as cst

_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
_NO_SPACE = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""),
    whitespace_after=cst.SimpleWhitespace(""),
)


def keyword(name: str, value: cst.BaseExpression | str) -> cst.Arg:
    """`name=value`; a str value is parsed as an expression (`'"gpu"'`, `"-1"`)."""
    if isinstance(value, str):
        value = cst.parse_expression(value)
    return cst.Arg(value=value, keyword=cst.Name(name), equal=_NO_SPACE)


def keyword_index(call: cst.Call, name: str) -> int | None:
    for index, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == name:
            return index
    return None


def keyword_value(call: cst.Call, name: str) -> cst.BaseExpression | None:
    index = keyword_index(call, name)
    return None if index is None else call.args[index].value


def rewrite_arguments(call: cst.Call, replace: dict[str, list[cst.Arg]]) -> cst.Call:
    """Replace each keyword argument named in `replace` by its list of arguments (an empty
    list removes it); new arguments inherit the replaced one's comma."""
    args: list[cst.Arg] = []
    for arg in call.args:
        name = arg.keyword.value if arg.keyword is not None else None
        if name not in replace:
            args.append(arg)
            continue
        new = replace[name]
        for position, item in enumerate(new):
            if position == len(new) - 1:  # the last one ends where the replaced one ended
                item = item.with_changes(whitespace_after_arg=arg.whitespace_after_arg)
                args.append(item.with_changes(comma=arg.comma))
            else:
                between = arg.comma if arg.comma is not cst.MaybeSentinel.DEFAULT else _COMMA
                args.append(item.with_changes(comma=between))
    last = call.args[-1] if call.args else None
    removed_last = last is not None and last.keyword is not None
    if removed_last and replace.get(last.keyword.value) == [] and args:
        # the last argument went: the new last one takes its trailing comma (or none)
        args[-1] = args[-1].with_changes(
            comma=last.comma, whitespace_after_arg=last.whitespace_after_arg
        )
    return call.with_changes(args=args)


def append_arguments(call: cst.Call, new: list[cst.Arg]) -> cst.Call:
    """Add arguments at the end, in the call's own comma style."""
    args = list(call.args)
    if not args:
        return call.with_changes(args=new)
    last = args[-1]
    trailing = last.comma
    separator = trailing if trailing is not cst.MaybeSentinel.DEFAULT else _COMMA
    args[-1] = last.with_changes(comma=separator)
    for position, item in enumerate(new):
        final = position == len(new) - 1
        args.append(item.with_changes(comma=trailing if final else separator))
    return call.with_changes(args=args)


def generated_statement(code: str, indent: int) -> cst.SimpleStatementLine:
    """A statement the upgrade writes, for a block `indent` columns deep: as is when it fits
    black's line length there, else formatted by black (nothing else is reformatted)."""
    import black  # only for the rare long line

    mode = black.Mode()
    if indent + len(code) > mode.line_length:
        narrower = black.Mode(line_length=mode.line_length - indent)
        with contextlib.suppress(black.InvalidInput):  # black cannot: keep the one-line form
            code = black.format_str(code, mode=narrower)
    return cst.ensure_type(cst.parse_statement(code.rstrip("\n") + "\n"), cst.SimpleStatementLine)


class ApplyEdits(cst.CSTTransformer):
    """Run every recorded edit on the node it was recorded for (innermost first, so an edit
    of a class sees its methods already edited)."""

    def __init__(self, edits):
        super().__init__()
        self.edits = edits

    def on_leave(self, original_node, updated_node):
        for change in self.edits.get(id(original_node), ()):
            updated_node = change(updated_node)
        return updated_node
