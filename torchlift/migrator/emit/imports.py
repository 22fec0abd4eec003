"""The Lightning import the converted script needs."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m


def add_import(module: cst.Module, name: str, alias: str) -> cst.Module:
    """`import <name> as <alias>` (`import <name>` when alias is name) after the file's
    leading import block (like libcst's AddImportsVisitor, without its extra full-tree
    passes); nothing if already there."""
    wanted = f"import {name}" if alias == name else f"import {name} as {alias}"
    body = list(module.body)
    last = None
    for index, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine):
            small = stmt.body
            if all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in small):
                if module.code_for_node(stmt.with_changes(leading_lines=[])).strip() == wanted:
                    return module
                last = index
                continue
            if index == 0 and m.matches(stmt, m.SimpleStatementLine([m.Expr(m.SimpleString())])):
                continue  # module docstring
        break
    new_stmt = cst.parse_statement(wanted + "\n")
    at = 0 if last is None else last + 1
    if (
        last is None
        and body
        and m.matches(body[0], m.SimpleStatementLine([m.Expr(m.SimpleString())]))
    ):
        at = 1
    body.insert(at, new_stmt)
    return module.with_changes(body=body)
