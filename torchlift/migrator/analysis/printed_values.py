"""What a `print(...)` shows: each value, with the label the script wrote just before it.

    print(f"epoch {epoch}: val loss {loss / n:.3f}, acc {acc}")
        -> [("epoch", epoch), ("val_loss", loss / n), ("acc", acc)]
    print("Average loss: {:.4f}, Accuracy: {}/{}".format(avg, correct, total))
        -> [("average_loss", avg), ("accuracy", correct), (None, total)]
    print("val loss", val_loss)
        -> [("val_loss", val_loss)]

A label is the one to three words right before the value, after the last separator
(`,;:|([{=`), with a trailing `:` / `=` dropped, joined by `_` and lower-cased; None when
there is no such text (`{}/{}`, `({:.0f}%)`). Values of `%`-formatting, starred arguments and
strings built any other way are not read (nothing is returned for them).
"""

from __future__ import annotations

import re
import string

import libcst as cst

_SEPARATORS = ",;:|([{=\n\t"
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def label_of(text: str) -> str | None:
    """The label that `text` (the literal text before a value) ends with, or None."""
    text = text.rstrip().rstrip(":=").rstrip()
    cut = max(text.rfind(separator) for separator in _SEPARATORS)
    words = text[cut + 1 :].split()
    if not 1 <= len(words) <= 3 or not all(_WORD.fullmatch(word) for word in words):
        return None
    return "_".join(words).lower()


def shown_values(call: cst.Call) -> list[tuple[str | None, cst.BaseExpression]]:
    """(label, value) for each value the print call shows, in order."""
    shown: list[tuple[str | None, cst.BaseExpression]] = []
    before = ""  # literal text printed since the last value
    for arg in call.args:
        if arg.keyword is not None:
            continue
        if arg.star:
            return shown
        value = arg.value
        pieces = string_pieces(value)
        if pieces is None:
            shown.append((label_of(before), value))
            before = ""
            continue
        for piece in pieces:
            if isinstance(piece, str):
                before += piece
            else:
                shown.append((label_of(before), piece))
                before = ""
        before += " "  # print's separator
    return shown


def string_pieces(expr: cst.BaseExpression) -> list | None:
    """Literal text (str) and values (nodes) of a string expression, in order; None when
    `expr` is not a string the module can read."""
    if isinstance(expr, cst.SimpleString):
        return [expr.evaluated_value] if isinstance(expr.evaluated_value, str) else None
    if isinstance(expr, cst.FormattedString):
        pieces: list = []
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringText):
                pieces.append(part.value)
            else:
                pieces.append(part.expression)
        return pieces
    if isinstance(expr, cst.ConcatenatedString):
        left, right = string_pieces(expr.left), string_pieces(expr.right)
        return None if left is None or right is None else left + right
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == "format"
    ):
        return _format_pieces(expr)
    return None


def _format_pieces(call: cst.Call) -> list | None:
    """`"... {} ...".format(a, b)`: the template's text and the arguments it shows."""
    template = string_pieces(call.func.value)
    if template is None or not all(isinstance(piece, str) for piece in template):
        return None
    if any(arg.star for arg in call.args):
        return None
    positional = [arg.value for arg in call.args if arg.keyword is None]
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    pieces: list = []
    automatic = 0
    try:
        fields = list(string.Formatter().parse("".join(template)))
    except ValueError:
        return None
    for text, field, _spec, _conversion in fields:
        pieces.append(text)
        if field is None:
            continue
        if field == "":
            field = str(automatic)
            automatic += 1
        if field.isdigit() and int(field) < len(positional):
            pieces.append(positional[int(field)])
        elif field in keywords:
            pieces.append(keywords[field])
        else:  # `{0.attr}`, `{x[0]}`, a missing argument: not read
            return None
    return pieces
