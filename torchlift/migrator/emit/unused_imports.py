"""Imports the conversion left unused: `from tqdm import tqdm` once the loop's bar is gone.

A module-level import name is dropped when the original file read it (in any scope) and the
converted file no longer does. A name the original never read stays: it may be imported for
its side effects, re-exported, or the user's own business. Names listed in `__all__` stay,
and so do `__future__` imports and imports guarded by `try`/`if`. A comment above a dropped
import goes with it; blank lines stay.
"""

from __future__ import annotations

import symtable

import libcst as cst

from .apply import _carried, _prepend_lines


def drop_unused_imports(original: str, converted: cst.Module, path: str) -> cst.Module:
    before = _referenced(original, path)
    after = _referenced(converted.code, path)
    if before is None or after is None:
        return converted
    unused = {name for name in before - after if name != "*"}
    if not unused:
        return converted
    body, carry = [], []
    for stmt in converted.body:
        if _is_import_line(stmt):
            kept = _without(stmt, unused)
            if kept is None:
                carry = _carried(stmt, True, carry)
                continue
            stmt = kept
        if carry:
            stmt = _prepend_lines(stmt, carry)
            carry = []
        body.append(stmt)
    return converted.with_changes(body=body)


def _referenced(text: str, path: str) -> set[str] | None:
    """Module-level names read anywhere in the file (a nested scope's own locals excluded);
    names of `__all__` count as read."""
    try:
        root = symtable.symtable(text, path, "exec")
    except SyntaxError:
        return None
    names: set[str] = set()
    stack = [root]
    while stack:
        table = stack.pop()
        for symbol in table.get_symbols():
            if not symbol.is_referenced():
                continue
            if table is root or symbol.is_global() or symbol.is_free():
                names.add(symbol.get_name())
        stack.extend(table.get_children())
    if "__all__" in root.get_identifiers():
        names.add("*")  # re-exports: keep every import (see _without)
    return names


def _is_import_line(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
    )


def _bound(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return alias.asname.name.value
    name = alias.name
    while isinstance(name, cst.Attribute):  # `import a.b` binds `a`
        name = name.value
    return name.value


def _without(stmt: cst.SimpleStatementLine, unused: set[str]):
    """The import line without the aliases bound to `unused` names; None when none is left."""
    smalls = []
    for small in stmt.body:
        if isinstance(small, cst.ImportFrom):
            module = small.module
            if isinstance(module, cst.Name) and module.value == "__future__":
                smalls.append(small)
                continue
            if isinstance(small.names, cst.ImportStar):
                smalls.append(small)
                continue
        aliases = [a for a in small.names if _bound(a) not in unused]
        if len(aliases) == len(small.names):
            smalls.append(small)
        elif aliases:
            aliases[-1] = aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            changes = {"names": aliases}
            if isinstance(small, cst.ImportFrom) and len(aliases) == 1:
                changes.update(lpar=None, rpar=None)
            smalls.append(small.with_changes(**changes))
    if not smalls:
        return None
    smalls[-1] = smalls[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return stmt.with_changes(body=smalls)
