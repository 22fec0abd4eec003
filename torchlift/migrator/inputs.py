"""Turn raw user input (str or bytes) into text, or a one-line InputError with the right line.

Python's own compiler validates the text first: it is much cheaper than a libcst parse and
gives the messages users know. Python 2 sources get a message saying so.
"""

from __future__ import annotations

import ast
import codecs
import io
import re
import tokenize

from .result import InputError

_PY2_HINTS = [
    (re.compile(r"^\s*print\s+[^\s(=.,)\[]"), "print statement"),
    (re.compile(r"^\s*exec\s+[\"'\w]"), "exec statement"),
    (re.compile(r"^\s*except\s+[\w.]+\s*,\s*\w+\s*:"), "`except X, e:`"),
    (re.compile(r"^\s*raise\s+[\w.]+\s*,"), "`raise X, msg`"),
    (re.compile(r"\b0[0-7]+\b"), "old octal literal"),
    (re.compile(r"`[^`]+`"), "backtick repr"),
    (re.compile(r"<>"), "`<>` operator"),
    (re.compile(r"\bur[\"']"), "ur'' literal"),
]


def decode_source(source: str | bytes, path: str) -> tuple[str | None, InputError | None]:
    """Decode bytes honouring a PEP 263 cookie or BOM; report the line of the first bad byte."""
    if isinstance(source, str):
        return source, None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError as exc:  # unknown codec named in the cookie
        return None, InputError(path, 1, f"cannot decode: {exc}")
    try:
        codecs.lookup(encoding)
        text = source.decode(encoding)
    except UnicodeDecodeError as exc:
        line = source.count(b"\n", 0, exc.start) + 1
        return None, InputError(path, line, f"cannot decode as {encoding}: {exc.reason}")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None


def parse_text(text: str, path: str) -> tuple[ast.Module | None, InputError | None]:
    """The ast of `text`, or an InputError for text that is not a processable Python 3 module."""
    if not text.strip():
        return None, InputError(path, 1, "empty file")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        return None, InputError(path, line, "source contains a null byte")
    try:
        tree = compile(text, path, "exec", ast.PyCF_ONLY_AST)
    except SyntaxError as exc:
        line = exc.lineno or 1
        hint = _python2_hint(text, line)
        if hint:
            return None, InputError(path, line, f"Python 2 code is not supported ({hint})")
        return None, InputError(path, line, f"syntax error ({exc.msg})")
    except (ValueError, MemoryError, RecursionError) as exc:
        return None, InputError(path, 1, f"cannot parse ({exc})")
    return tree, None


def import_table(tree: ast.Module) -> dict[str, str]:
    """Bound name -> qualified name for every import in the file (`optim` -> `torch.optim`)."""
    table: dict[str, str] = {}
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    table[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    table[head] = head
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    table[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        else:
            for name in ("body", "orelse", "finalbody"):
                stack.extend(getattr(node, name, ()))
            for handler in getattr(node, "handlers", ()):
                stack.extend(handler.body)
    return table


def _python2_hint(text: str, line: int) -> str | None:
    lines = text.splitlines()
    if 1 <= line <= len(lines):
        for pattern, hint in _PY2_HINTS:
            if pattern.search(lines[line - 1]):
                return hint
    return None
