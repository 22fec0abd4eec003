"""Code that calls backward() for the gradient of an input, not to train: Langevin / SGLD
sampling, adversarial attacks (FGSM, PGD), feature visualization, DeepDream.

    for _ in range(steps):                       # SGLD: the samples move, the model does not
        energy = model(x)
        energy.sum().backward()
        x.data += -step_size * x.grad + noise * torch.randn_like(x)
        x.grad.zero_()

A piece of code is such input-gradient code when it calls `.backward()`, reaches no `.step()`
call (its own or through a function or method of the file it calls, followed by name), and
every tensor it updates from a gradient (`t -= lr * t.grad`, `t.data.add_(-a * t.grad)`,
`t.data = (t + a * t.grad.sign()).clamp(...)`, `t = t - a * t.grad`) is an input of a model:
it appears in the arguments of a call of a model, a name (or attribute) the file calls
`.parameters()`, `.named_parameters()`, `.eval()`, `.train()` or `.zero_grad()` on. A tensor
updated by hand that no model receives (`weights -= lr * weights.grad`, the nn tutorial's
from-scratch model) is trained, as a parameter from `model.parameters()` is: that code is a
training loop (patterns/hand_update.py says what becomes of it).

Read on the `ast` (source/find_loops.py asks before libcst parses anything; a pattern asks
with the few statements of its batch loop, parsed again on their own).
"""

from __future__ import annotations

import ast
import textwrap
from functools import cached_property

_MODEL_METHODS = {"parameters", "named_parameters", "eval", "train", "zero_grad"}
_IN_PLACE = {"add_", "sub_", "copy_", "mul_", "addcmul_", "addcdiv_", "clamp_", "set_"}


class FileFacts:
    """What the questions need from the whole file: the names of the functions and methods
    reaching a `.step()` call, of those reaching a `.backward()` call, and the names models
    are called by."""

    def __init__(self, tree: ast.Module) -> None:
        self._tree = tree  # read on the first question: most loops are answered without it

    @cached_property
    def _functions(self) -> list:
        return [
            n
            for n in ast.walk(self._tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]

    @cached_property
    def _called(self) -> dict[int, tuple[set, set]]:
        """Per function, walked once: (the names it calls, the methods it calls); a nested
        function's calls count for the function holding it too."""
        found = {}
        for f in self._functions:
            calls = [n for n in ast.walk(f) if isinstance(n, ast.Call)]
            methods = {c.func.attr for c in calls if isinstance(c.func, ast.Attribute)}
            found[id(f)] = ({_callee_key(c.func) for c in calls}, methods)
        return found

    @cached_property
    def models(self) -> set[str]:
        calls = [node for node in ast.walk(self._tree) if isinstance(node, ast.Call)]
        models = {
            _last_name(call.func.value)
            for call in calls
            if isinstance(call.func, ast.Attribute) and call.func.attr in _MODEL_METHODS
        } - {None}
        # calls to the file's own functions only: no other can hand a model to a parameter
        keys = self._keys
        own_calls = [c for c in calls if _callee_key(c.func) in set(keys.values())]
        return models | _model_parameters(self._functions, own_calls, models, keys)

    @cached_property
    def stepping(self) -> set[str]:
        return self._reaching("step")

    @cached_property
    def backwarding(self) -> set[str]:
        return self._reaching("backward")

    @cached_property
    def _keys(self) -> dict[int, str]:
        """Per function, how a call names it: `langevin` for a function, `.sample` for a
        method (called on an object or its class), so `model.train()` is no call of a
        function `train()`."""
        methods = {
            id(s)
            for c in ast.walk(self._tree)
            if isinstance(c, ast.ClassDef)
            for s in c.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        return {id(f): ("." if id(f) in methods else "") + f.name for f in self._functions}

    def _reaching(self, method: str) -> set[str]:
        called = self._called
        return _reaching(
            self._functions,
            self._keys,
            lambda f, found: method in called[id(f)][1] or bool(called[id(f)][0] & found),
        )


def _model_parameters(functions, calls, models: set[str], keys: dict[int, str]) -> set[str]:
    """Parameters of the file's functions given a model at some call (`langevin(energy, x)`
    with `def langevin(energy_fn, x)`: `energy_fn`), followed until nothing new is found."""
    by_key: dict[str, list] = {}
    for f in functions:
        by_key.setdefault(keys[id(f)], []).append(f)
    found: set[str] = set()
    while True:
        more = set()
        for call in calls:
            for f in by_key.get(_callee_key(call.func) or "", ()):
                params = [a.arg for a in (*f.args.posonlyargs, *f.args.args)]
                if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
                    params = params[1:]  # `buffer.langevin(x)`: `self` is the receiver
                given = list(zip(params, call.args))
                given += [(k.arg, k.value) for k in call.keywords if k.arg is not None]
                more |= {p for p, arg in given if _last_name(arg) in models | found}
        if more <= found:
            return found
        found |= more


def _reaching(functions, keys: dict[int, str], does) -> set[str]:
    """Names of the `functions` doing something themselves or through another; a name counts
    when any function spelled so does it (two classes' methods may share one)."""
    found: set[str] = set()
    while True:
        more = {keys[id(f)] for f in functions if keys[id(f)] not in found and does(f, found)}
        if not more:
            return found
        found |= more


def calls_backward_through(node: ast.AST, facts: FileFacts) -> bool:
    """`node` calls a function or method of the file that calls `.backward()` (itself or
    through another) and reaches no `.step()`: `fake = buffer.sample()`, whose Langevin loop
    does. A call reaching a step too is a training helper's, for other patterns to read."""
    return _calls_named(node, facts.backwarding - facts.stepping) and not _steps(
        node, facts.stepping
    )


def _calls_named(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Call) and _callee_key(n.func) in names for n in ast.walk(node))


def samples_inputs(node: ast.AST, facts: FileFacts) -> bool:
    """`node` (a loop, a statement) calls `.backward()` only for input gradients: it calls
    backward(), reaches no `.step()`, and updates from gradients only tensors a model takes
    as input (at least one)."""
    if not _calls(node, "backward") or _calls(node, "step"):
        return False
    updated = _updated_from_gradients(node)  # local questions first, the file's last
    if not updated or _steps(node, facts.stepping):
        return False
    return updated <= _model_inputs(node, facts.models)


def parse_statement(code: str) -> ast.stmt | None:
    """One statement given as source text (indented as in its file), as an ast node."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return None
    return tree.body[0] if len(tree.body) == 1 else None


def _steps(node: ast.AST, stepping: set[str]) -> bool:
    """`node` calls `.step(...)`, or a function or method named like one that does."""
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        key = _callee_key(call.func)
        if key == ".step" or key in stepping:
            return True
    return False


def _calls(node: ast.AST, method: str) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method
        for n in ast.walk(node)
    )


def _updated_from_gradients(node: ast.AST) -> set[str]:
    """The root names of tensors whose `.grad` a write in `node` reads: what it updates by
    hand (`x.data.add_(-a * x.grad)`, `delta.data = (delta + a * delta.grad.sign())...`)."""
    updated: set[str] = set()
    for stmt in ast.walk(node):
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and stmt.value:
            updated |= _grad_roots(stmt.value)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            if isinstance(call.func, ast.Attribute) and call.func.attr in _IN_PLACE:
                for arg in [*call.args, *(k.value for k in call.keywords)]:
                    updated |= _grad_roots(arg)
    return updated


def _grad_roots(expr: ast.AST) -> set[str]:
    return {
        root
        for n in ast.walk(expr)
        if isinstance(n, ast.Attribute) and n.attr == "grad"
        for root in [_root_name(n.value)]
        if root is not None
    }


def _model_inputs(node: ast.AST, models: set[str]) -> set[str]:
    """Names read in the arguments of calls of a model in `node` (`model(x + delta)`)."""
    found: set[str] = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and _last_name(call.func) in models:
            for arg in [*call.args, *(k.value for k in call.keywords)]:
                found |= {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
    return found


def _last_name(expr: ast.AST) -> str | None:
    """`model` for `model`, `self.model`, `sampler.model`."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return None


def _callee_key(func: ast.AST) -> str | None:
    """`langevin` for `langevin(...)`, `.sample` for `buffer.sample(...)` (see _keys)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return "." + func.attr
    return None


def _root_name(expr: ast.AST) -> str | None:
    """`x` for `x`, `x.data`, `x[0]`."""
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None
