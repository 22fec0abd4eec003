"""Why a file whose `.backward()` sits in no loop still trains: a loop calls, once per
iteration, a function or method holding the step (the char-RNN tutorial's
`train(category_tensor, line_tensor)` called from `for iter in range(1, n_iters + 1)`).

Such a step is inlined into the loop (shapes/step_inline.py); these finders say where it is,
and why when it is not inlined: saying so, at the loop, is more use to the user than "no
training loop found".
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .find_loops import _BACKWARD, _LOOPS, _inside, line_numbers


def per_step_helper(tree: ast.Module, text: str) -> tuple[int, str] | None:
    """(line of the calling loop, why it is not converted), or None."""
    lines = line_numbers(text, (hit.start() for hit in _BACKWARD.finditer(text)))
    helpers = {
        stmt.name: stmt
        for stmt in tree.body
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno) for line in lines)
    }
    if not helpers:
        return None
    loops = [node for node in ast.walk(tree) if isinstance(node, _LOOPS)]
    calls = sorted(
        (
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in helpers
        ),
        key=lambda node: (node.lineno, node.col_offset),
    )
    for call in calls:  # the first call made from a loop, its innermost loop
        around = [loop for loop in loops if _inside(call, loop)]
        if not around:
            continue
        loop = max(around, key=lambda node: (node.lineno, node.col_offset))
        helper = helpers[call.func.id]
        why = (
            f"the training step (`.backward()`) is in `{helper.name}()` (line {helper.lineno}), "
            f"which this loop calls once per iteration: a step inside a function called per "
            f"step is not converted (a helper holding the batch loop, called once per epoch, "
            f"is); write the step in the loop's body"
        )
        if not _steps_an_optimizer(helper):
            why += (
                f"; `{helper.name}()` also updates the parameters by hand (no optimizer "
                f"`.step()`): written in the loop's body, that update converts to manual "
                f"optimization"
            )
        return loop.lineno, why
    return None


def _steps_an_optimizer(function) -> bool:
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "step"
        for node in ast.walk(function)
    )


def per_batch_step_function(tree: ast.Module) -> tuple[str, int, int] | None:
    """(name, line of its `def`, line of the loop) of a function calling `.backward()` that a
    loop calls by name (`train_step(x, y)`, `self._run_batch(x, y)`): a training loop the
    candidates miss, since the backward() is not inside the loop's own text."""
    stepping = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            isinstance(c, ast.Call)
            and isinstance(c.func, ast.Attribute)
            and c.func.attr == "backward"
            for c in ast.walk(node)
        ):
            stepping.setdefault(node.name, node.lineno)
    if not stepping:
        return None
    for loop in ast.walk(tree):
        if not isinstance(loop, _LOOPS):
            continue
        for call in ast.walk(loop):
            if not isinstance(call, ast.Call):
                continue
            func = call.func
            if isinstance(func, ast.Name):
                name = func.id
            elif _self_method(func):
                name = func.attr
            else:
                continue
            if name in stepping:
                return name, stepping[name], loop.lineno
    return None


def _self_method(func: ast.expr) -> bool:
    """`self.<method>` (a call of the instance's own method)."""
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    )


def per_step_method_loop(tree: ast.Module) -> ast.stmt | None:
    """The loop, in a method of a module-level class, that calls a method of the same class
    holding `.backward()` (`self._run_batch(source, targets)`), or None: the loop the trainer
    class is inlined for, after which the method is a function the loop calls."""
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        methods = [s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        stepping = {
            method.name
            for method in methods
            if any(
                isinstance(c, ast.Call)
                and isinstance(c.func, ast.Attribute)
                and c.func.attr == "backward"
                for c in ast.walk(method)
            )
        }
        for method in methods:
            for loop in ast.walk(method):
                if not isinstance(loop, _LOOPS):
                    continue
                for call in ast.walk(loop):
                    if (
                        isinstance(call, ast.Call)
                        and _self_method(call.func)
                        and call.func.attr in stepping
                    ):
                        return loop
    return None


@dataclass(frozen=True)
class DrivenStep:
    """What driven_step_class found: the class, the method the loop calls (`forward` when the
    loop calls the instance itself), the line of its `def`, where the loop is (line, column),
    the instance."""

    cls: ast.ClassDef
    method: str
    defined: int
    loop: tuple[int, int]
    instance: str
    called: bool  # `instance(...)`: a torch module's `__call__` running `forward`


_MOVES = ("to", "cuda", "cpu", "double", "float")


def driven_step_class(tree: ast.Module) -> DrivenStep | None:
    """The loop outside any class that trains through an object of a module-level class
    (`model = Pix2PixModel(opt)` ... `model.optimize_parameters()`, whose `self.backward_D()`
    calls `.backward()`; or `maml(x_spt, ...)` running a torch module's `forward` that does),
    or None. The backward may be any number of `self.method()` calls deep: the candidates
    miss such a loop, since no `.backward()` is in its text."""
    classes = {stmt.name: stmt for stmt in tree.body if isinstance(stmt, ast.ClassDef)}
    stepping = {name: _stepping_methods(cls) for name, cls in classes.items()}
    instances: dict[str, str] = {}  # instance name -> its class, `x = Class(...)[.to(...)]`
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            while (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr in _MOVES
            ):
                value = value.func.value
            if (
                isinstance(target, ast.Name)
                and isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and stepping.get(value.func.id)
            ):
                instances[target.id] = value.func.id
    if not instances:
        return None
    outside = [stmt for stmt in tree.body if not isinstance(stmt, ast.ClassDef)]
    loops = [n for stmt in outside for n in ast.walk(stmt) if isinstance(n, _LOOPS)]
    for loop in sorted(loops, key=lambda n: (n.lineno, n.col_offset)):
        for call in ast.walk(loop):
            if not isinstance(call, ast.Call):
                continue
            func = call.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                name, method = func.value.id, func.attr
            elif isinstance(func, ast.Name):
                name, method = func.id, "forward"  # the instance called: its `__call__`
                owner = instances.get(name)
                if owner is not None and "__call__" in stepping[owner]:
                    method = "__call__"  # a plain callable object (timm's `NativeScaler`)
            else:
                continue
            owner = instances.get(name)
            if owner is not None and method in stepping[owner]:
                cls = classes[owner]
                defined = next(
                    s.lineno
                    for s in cls.body
                    if isinstance(s, ast.FunctionDef) and s.name == method
                )
                called = isinstance(func, ast.Name) and method == "forward"
                return DrivenStep(
                    cls, method, defined, (loop.lineno, loop.col_offset), name, called
                )
    return None


def _stepping_methods(cls: ast.ClassDef) -> set[str]:
    """The methods of `cls` calling `.backward()`, or calling through `self.m(...)` one that
    does (at any depth)."""
    methods = {
        s.name: s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    calls: dict[str, set[str]] = {}
    found = set()
    for name, method in methods.items():
        calls[name] = set()
        for node in ast.walk(method):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "backward":
                    found.add(name)
                elif _self_method(node.func) and node.func.attr in methods:
                    calls[name].add(node.func.attr)
    changed = True
    while changed:
        changed = False
        for name, called in calls.items():
            if name not in found and called & found:
                found.add(name)
                changed = True
    return found
