"""A node's source text, as messages quote it and comparisons key it."""

from __future__ import annotations

import libcst as cst

_BARE = cst.Module(body=[])


def code_of(node: cst.CSTNode, module: cst.Module | None = None) -> str:
    """`node` as source. Given the script's `module`, in its own indentation and newlines (a
    script indented with tabs is quoted as written); else in libcst's defaults."""
    return (module or _BARE).code_for_node(node)


def first_line(node: cst.CSTNode, module: cst.Module | None = None) -> str:
    """The first line of `node`'s code that is neither blank nor a comment, stripped: what a
    one-line message quotes of a compound statement."""
    lines = (line.strip() for line in code_of(node, module).splitlines())
    return next((line for line in lines if line and not line.startswith("#")), "")
