"""A step closure defined before its loop, read as if defined in the loop, right before the step.

    def closure():                            for i in range(steps):
        optimizer.zero_grad()                     print("STEP", i)
        loss = criterion(seq(x), y)       ->      def closure():
        loss.backward()                               ...
        return loss                               optimizer.step(closure)
    for i in range(steps):
        print("STEP", i)
        optimizer.step(closure)

The same function either way: a `def` only binds its name, and the closure's free names are
looked up when it is called (LBFGS calls it inside `step`), in the same scope. So it is moved
only when nothing can tell the difference: the `def` has no decorator and no default value
(both evaluated where the `def` runs), holds no string spanning lines (re-indenting would change
it), and nothing else in the file spells its name: no code between the two, after the loop or
in another scope reads it. The loop calls `<optimizer>.step(<name>)` once, as a statement of its
own body. patterns/closure_step.py then reads the closure as the step.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..rule import Rule
from .find_loops import _BACKWARD, _LOOPS

MOVED_CLOSURE = Rule(
    "TL138",
    "a step closure defined before its loop was read as defined in the loop",
    """`optimizer.step(closure)` calls the closure inside the step; where its `def` stands
    changes nothing when the `def` has no decorator or default value and nothing else uses its
    name. The conversion reads it as written right before the step, where the loop's other
    closures are read (patterns/closure_step.py), and converts that loop.""",
    "Nothing to do; review the diff.",
    """
    def closure():
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        return loss

    for step in range(10):
        optimizer.step(closure)
    """,
    converts=True,
)

RULES = (MOVED_CLOSURE,)


@dataclass
class MovedClosure:
    """The script with the closure moved, where each of its lines came from, and what the
    change log says (shapes/trainer_inline.remap_lines' arguments)."""

    text: str
    origin: list[int]
    indent: list[int]
    at: tuple[int, int]  # the `def`'s line and column
    message: str


def closure_into_loop(tree: ast.Module, text: str) -> MovedClosure | None:
    """The script with its one step closure defined before its loop moved into it; None when
    there is no such closure, or moving it could change what the script does."""
    lines = text.splitlines(keepends=True)
    for body in _bodies(tree):
        for at, function in enumerate(body):
            if not isinstance(function, ast.FunctionDef) or not _movable(function, text):
                continue
            for loop in body[at + 1 :]:
                step = _step_statement(loop, function.name)
                if step is not None and _only_uses(tree, function.name):
                    return _moved(lines, function, loop, step)
    return None


def _bodies(tree: ast.Module):
    """Every statement list of the file: the module's, and those of its compound statements."""
    stack = [tree.body]
    while stack:
        body = stack.pop()
        yield body
        for stmt in body:
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    stack.append(inner)
            stack.extend(handler.body for handler in getattr(stmt, "handlers", ()))


def _movable(function: ast.FunctionDef, text: str) -> bool:
    source = ast.get_source_segment(text, function) or ""
    args = function.args
    return (
        bool(_BACKWARD.search(source))
        and not function.decorator_list
        and not args.defaults
        and not any(args.kw_defaults)
        and not any(
            isinstance(node, (ast.Constant, ast.JoinedStr)) and node.lineno != node.end_lineno
            for node in ast.walk(function)
        )
    )


def _step_statement(loop, name: str) -> ast.Expr | None:
    """The statement `<optimizer>.step(<name>)` of the loop's own body (not nested), when the
    loop has exactly one."""
    if not isinstance(loop, _LOOPS):
        return None
    steps = [
        stmt
        for stmt in loop.body
        if isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == "step"
        and isinstance(stmt.value.func.value, ast.Name)
        and [a.id for a in stmt.value.args if isinstance(a, ast.Name)] == [name]
        and len(stmt.value.args) == 1
        and not stmt.value.keywords
    ]
    return steps[0] if len(steps) == 1 else None


def _only_uses(tree: ast.Module, name: str) -> bool:
    """Whether the file spells `name` exactly twice: the `def` and the step's argument."""
    spelled = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            spelled += node.id == name
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            spelled += node.name == name
        elif isinstance(node, ast.arg):
            spelled += node.arg == name
        elif isinstance(node, ast.Attribute):
            spelled += node.attr == name
        elif isinstance(node, ast.keyword):
            spelled += node.arg == name
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            spelled += name in node.names
        elif isinstance(node, ast.alias):
            spelled += name in (node.name, node.asname)
    return spelled == 2


def _moved(
    lines: list[str], function: ast.FunctionDef, loop, step: ast.Expr
) -> MovedClosure | None:
    first, last = function.lineno, function.end_lineno or function.lineno
    old = _indent(lines[first - 1])
    new = _indent(lines[step.lineno - 1])
    block = lines[first - 1 : last]
    if any(line.strip() and not line.startswith(old) for line in block):
        return None  # a line less indented than the `def` (a continuation): not moved
    if step.lineno == loop.lineno or step.col_offset != len(new):
        return None  # the step shares a line (`for i in r: opt.step(closure)`): no line of its own
    moved = [new + line[len(old) :] if line.strip() else line for line in block]
    after = last  # the blank lines that set the `def` apart go with it
    while after < len(lines) and not lines[after].strip():
        after += 1
    kept = list(range(1, first)) + list(range(after + 1, len(lines) + 1))
    at = kept.index(step.lineno)
    origin = [*kept[:at], *range(first, last + 1), *kept[at:]]
    indent = [*[0] * at, *[len(old) - len(new)] * len(block), *[0] * (len(kept) - at)]
    out = [lines[n - 1] for n in kept[:at]] + moved + [lines[n - 1] for n in kept[at:]]
    name = function.name
    message = (
        f"`{name}()`, the closure the loop at line {loop.lineno} steps with, read as "
        f"defined right before its `.step({name})`: the same function (nothing else uses it)"
    )
    return MovedClosure("".join(out), origin, indent, (first, function.col_offset), message)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]
