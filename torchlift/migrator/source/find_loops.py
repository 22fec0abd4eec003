"""Find training-loop candidates from the `ast` tree CPython already built, before any libcst.

A candidate is the outermost loop (per function) around a `.backward(` call, or a loop that
calls a module-level helper containing such a loop once per iteration (`train(...)` per epoch),
or a closure doing so that a module-level function defines in its body. A loop calling
backward() only for the gradient of a model's input (Langevin sampling, an adversarial attack:
analysis/input_gradients.py) trains nothing and is no candidate: code calling it is the
training loop's to plan (patterns/input_gradients.py).
Walking statements only (never expressions) keeps this far cheaper than a libcst visitor.
The ast loops are then paired with libcst loops by source order (both trees list statements
in the order they appear in the file).
"""

from __future__ import annotations

import ast
import bisect
import re

import libcst as cst

from ..analysis.input_gradients import FileFacts, samples_inputs

_BACKWARD = re.compile(r"\.\s*backward\s*\(")
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_LIGHTNING_BASES = {"LightningModule", "LightningDataModule"}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_numbers(text: str, offsets) -> set[int]:
    """The 1-based lines of `offsets`, counting line breaks as CPython's tokenizer does
    (CRLF, LF and a lone CR each end a line), so they agree with the ast's `lineno`."""
    breaks = [m.start() for m in _LINE_BREAK.finditer(text)]
    return {bisect.bisect_left(breaks, offset) + 1 for offset in offsets}


def _children(stmt: ast.stmt):
    for name in ("body", "orelse", "finalbody"):
        yield from getattr(stmt, name, ())
    for handler in getattr(stmt, "handlers", ()):
        yield from handler.body
    for case in getattr(stmt, "cases", ()):
        yield from case.body


def _walk(stmts, function, out):
    for stmt in stmts:
        out.append((stmt, function))
        inner = stmt if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
        _walk(_children(stmt), inner, out)


def find_candidates(tree: ast.Module, text: str) -> tuple[list[ast.stmt], bool]:
    """Candidate loops (ast nodes, source order) and whether the file already uses Lightning."""
    statements: list = []
    _walk(tree.body, None, statements)
    uses_lightning = "Lightning" in text and any(
        isinstance(s, ast.ClassDef)
        and any(
            (b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", None)) in _LIGHTNING_BASES
            for b in s.bases
        )
        for s, _ in statements
    )
    lines = sorted(line_numbers(text, (hit.start() for hit in _BACKWARD.finditer(text))))
    if not lines:
        return [], uses_lightning

    def has_backward(node) -> bool:
        end = node.end_lineno or node.lineno
        return any(node.lineno <= line <= end for line in lines)

    outer: list = []
    owner: dict[int, ast.AST | None] = {}
    taken: list = []  # (function, loop) already covered by an outer loop
    facts = None
    for stmt, function in statements:
        if not isinstance(stmt, _LOOPS) or not has_backward(stmt):
            continue
        if any(f is function and _inside(stmt, loop) for f, loop in taken):
            continue
        facts = facts or FileFacts(tree)
        if samples_inputs(stmt, facts):  # a sampler or an attack, not a training loop
            continue
        taken.append((function, stmt))
        outer.append(stmt)
        owner[id(stmt)] = function
    top_functions = {id(s): s for s in tree.body if isinstance(s, ast.FunctionDef)}
    # closures: functions a module-level function defines in its own body, called from its
    # epoch loop (patterns/helpers.py inlines them like module-level helpers)
    top_functions.update(
        {
            id(s): s
            for f in list(top_functions.values())
            for s in f.body
            if isinstance(s, ast.FunctionDef)
        }
    )
    # a function holding a whole run (an epoch loop around a loop calling backward) is no
    # per-epoch helper: a loop calling it is a loop over runs, its epoch loop the candidate
    helpers = {
        owner[id(loop)].name
        for loop in outer
        if owner[id(loop)] is not None
        and id(owner[id(loop)]) in top_functions
        and not _holds_a_training_loop(loop, has_backward)
    }
    if not helpers:
        return outer, uses_lightning
    all_helpers = {
        f.name for f in top_functions.values() if any(isinstance(n, _LOOPS) for n in _loops_in(f))
    }
    callers, called = [], set()
    for stmt, _ in statements:
        if not isinstance(stmt, (ast.For, ast.AsyncFor)):
            continue
        names = set().union(*(_called_names(s) for s in stmt.body)) & all_helpers
        if names & helpers:
            called |= names
            callers.append(stmt)
    kept = [loop for loop in outer if owner[id(loop)] is None or owner[id(loop)].name not in called]
    for loop in callers:
        if not any(other is not loop and _inside(loop, other) for other in callers):
            kept.append(loop)
    kept.sort(key=lambda n: (n.lineno, n.col_offset))
    return kept, uses_lightning


def _holds_a_training_loop(loop, has_backward) -> bool:
    """`loop` is a `for` loop with a loop calling backward() in its body (an epoch loop)."""
    if not isinstance(loop, ast.For):
        return False
    inner = [s for s, _ in _walk_into(loop.body) if isinstance(s, _LOOPS)]
    return any(has_backward(s) for s in inner)


def _walk_into(stmts):
    found: list = []
    _walk(stmts, None, found)
    return found


def _loops_in(func):
    found = []
    _walk(func.body, func, found)
    return [s for s, _ in found if isinstance(s, _LOOPS)]


def _called_names(stmt) -> set[str]:
    """The names called in a simple statement (`train(...)`, also its result used within it:
    `losses.append(train(...))`, which patterns/helpers.py binds to a name first)."""
    value = getattr(stmt, "value", None)
    if not isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign)) or value is None:
        return set()
    return {
        node.func.id
        for node in ast.walk(value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }


def _inside(node, container) -> bool:
    end = container.end_lineno or container.lineno
    return (container.lineno, container.col_offset) < (node.lineno, node.col_offset) and (
        node.end_lineno or node.lineno
    ) <= end


# -- pairing with libcst -----------------------------------------------------------------------


def iter_cst_statements(body, out):
    """libcst statements in source (pre-)order, like _walk over the ast."""
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, cst.SimpleStatementLine):
            continue
        for block in _cst_blocks(stmt):
            iter_cst_statements(block, out)
    return out


def _cst_blocks(stmt):
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.BaseSuite):
        yield _suite_body(body)
    for handler in getattr(stmt, "handlers", ()):
        yield _suite_body(handler.body)
    for case in getattr(stmt, "cases", ()):
        yield _suite_body(case.body)
    orelse = getattr(stmt, "orelse", None)
    if isinstance(orelse, cst.If):
        yield [orelse]
    elif orelse is not None:
        yield _suite_body(orelse.body)
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        yield _suite_body(final.body)


def _suite_body(suite):
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    if isinstance(suite, cst.SimpleStatementSuite):
        return []  # `if x: y` on one line: no nested statements of interest
    return []


def pair_loops(module: cst.Module, loops: list[ast.stmt], tree: ast.Module) -> list[cst.CSTNode]:
    """The libcst For/While nodes matching `loops` (ast), by their rank among all loops."""
    ast_statements: list = []
    _walk(tree.body, None, ast_statements)
    ast_loops = sorted(
        (s for s, _ in ast_statements if isinstance(s, _LOOPS)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    cst_loops = [
        s for s in iter_cst_statements(module.body, []) if isinstance(s, (cst.For, cst.While))
    ]
    if len(ast_loops) != len(cst_loops):
        raise RuntimeError("loop count differs between ast and libcst")
    rank = {id(n): i for i, n in enumerate(ast_loops)}
    return [cst_loops[rank[id(loop)]] for loop in loops]


class LineIndex:
    """Line numbers of libcst statements, from the ast (libcst's PositionProvider costs a
    full extra pass). Built only when a finding needs a line."""

    def __init__(self, module: cst.Module, tree: ast.Module) -> None:
        self.lines: dict[int, tuple[int, int]] = {}
        self._module = module
        self._pair(list(module.body), list(tree.body))

    def _pair(self, cst_body, ast_body) -> None:
        queue = list(ast_body)
        for stmt in cst_body:
            if not queue:
                return
            if isinstance(stmt, cst.SimpleStatementLine):
                first = queue[0]
                self.lines[id(stmt)] = (first.lineno, first.col_offset)
                for small in stmt.body:
                    if queue:
                        self.lines[id(small)] = (queue[0].lineno, queue[0].col_offset)
                        queue.pop(0)
                continue
            node = queue.pop(0)
            self.lines[id(stmt)] = (node.lineno, node.col_offset)
            cst_blocks = list(_cst_blocks(stmt))
            ast_blocks = [list(getattr(node, "body", []))]
            ast_blocks += [h.body for h in getattr(node, "handlers", [])]
            ast_blocks += [c.body for c in getattr(node, "cases", [])]
            if getattr(node, "orelse", None):
                ast_blocks.append(node.orelse)
            if getattr(node, "finalbody", None):
                ast_blocks.append(node.finalbody)
            for c_block, a_block in zip(cst_blocks, ast_blocks):
                self._pair(c_block, a_block)

    def alias(self, new: cst.CSTNode, old: cst.CSTNode) -> None:
        """`new`, a node made to stand for `old` (source/tuple_bindings.py), is on its line."""
        if id(old) in self.lines:
            self.lines[id(new)] = self.lines[id(old)]

    def rebase(self, module: cst.Module) -> None:
        """Look nodes up in `module`, the tree rebuilt around the aliased nodes. The old tree
        is kept alive: its nodes' ids stay keys here and must not be reused."""
        self._replaced = getattr(self, "_replaced", []) + [self._module]
        self._module = module

    def position(self, node, default: tuple[int, int]) -> tuple[int, int]:
        """The line of `node`, or of the innermost statement holding it (a finding about a
        call or a lambda names the line it is on), else `default`."""
        if node is None or id(node) in self.lines:
            return self.lines.get(id(node), default)
        found = default
        stack = [self._module]
        while stack:  # depth first: a statement holding `node` is met before its inner ones
            current = stack.pop()
            if current is node:
                return found
            if id(current) in self.lines:
                if not cst_contains(current, node):
                    continue  # nor does anything inside it
                found = self.lines[id(current)]
                stack = list(reversed(current.children))
                continue
            stack.extend(reversed(current.children))
        return default


def cst_contains(container: cst.CSTNode, node: cst.CSTNode) -> bool:
    """`node` is `container` or a node somewhere inside it (by identity)."""
    stack = [container]
    while stack:
        current = stack.pop()
        if current is node:
            return True
        stack.extend(current.children)
    return False
