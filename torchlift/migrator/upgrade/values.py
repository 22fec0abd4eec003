"""Literal values of argument expressions, read without running the user's code."""

from __future__ import annotations

import ast

import libcst as cst

UNKNOWN = object()  # the expression is not a literal (a name, a call, an f-string ...)


def literal(module: cst.Module, node: cst.BaseExpression):
    """The Python value of a literal expression (`2`, `"0,1"`, `[0]`, `None`, `-1`), else
    UNKNOWN."""
    try:
        return ast.literal_eval(module.code_for_node(node).strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return UNKNOWN


def source(module: cst.Module, node: cst.CSTNode) -> str:
    return module.code_for_node(node).strip()
