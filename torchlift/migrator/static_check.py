"""The last gate before a conversion is returned: would it fail on a name at its first step?

Valid syntax is not enough. A conversion is refused (the file stays byte-identical) when it
- reads a name that nothing defines or imports, and the input did not already read it so
  (a helper or binding the conversion removed, a loop variable left behind in a hook):
  TL150, at the first line reading it;
- reads `self.<attr>` in a generated LightningModule when no method assigns that attribute, the
  class does not define it and LightningModule does not provide it: TL151. (A hook must find
  it assigned by a hook Lightning calls first: validation's come before training's unless the
  script turns the sanity check off and never calls `.validate()`.)

Names are resolved with Python's own scoping rules (stdlib `symtable`: comprehensions, lambdas,
nested functions and classes, `global`/`nonlocal`), never by matching text.

What it does not prove: that a name read before its assignment on every path is bound (an
`UnboundLocalError` in straight-line code), that attributes read through another object exist,
or anything about types. Files with `from x import *` or calls to `exec`/`eval`/`globals()`
get no undefined-name check: their names cannot be known statically.
"""

from __future__ import annotations

import ast
import builtins
import symtable
from dataclasses import dataclass

from .lightning_module_api import HOOK_FIRST_CALL_ORDER, LIGHTNING_MODULE_ATTRIBUTES
from .result import Finding
from .rule import Rule

UNDEFINED_NAME = "TL150"
UNASSIGNED_SELF_ATTRIBUTE = "TL151"

RULES = (
    Rule(
        UNDEFINED_NAME,
        "the conversion would read a name that nothing defines; file left unchanged",
        """The converted script was checked before being returned, with Python's scoping rules
        (symtable), and some code in it reads a name that nothing defines or imports while the
        original script did not: a helper or binding the conversion removed, or a loop variable
        left behind in a hook. Running it would raise NameError, so the file is left unchanged.
        The message names the variable and the line of the conversion that reads it.""",
        """Please report it with the script: it is a bug of the migrator. Meanwhile, the
        variable often belongs to code the loop shares with what comes after it; moving that
        code into a function called inside the loop usually lets the loop convert.""",
    ),
    Rule(
        UNASSIGNED_SELF_ATTRIBUTE,
        "the conversion would read a `self.` attribute that nothing assigns; file left unchanged",
        """The generated LightningModule reads `self.<name>` in a hook before any hook that
        runs earlier (in Lightning's order: __init__, configure_optimizers, validation sanity
        check, train epoch start, training_step, ...) or an earlier line of the same hook
        assigns it. Its first call would raise AttributeError, so the file is left unchanged.""",
        """Please report it with the script: it is a bug of the migrator. Meanwhile, giving the
        name a value before the training loop (so it becomes an argument of the module) usually
        lets the loop convert.""",
    ),
)

_BUILTINS = frozenset(dir(builtins)) | {
    "__file__",
    "__name__",
    "__doc__",
    "__builtins__",
    "__spec__",
    "__loader__",
    "__package__",
    "__path__",
    "__annotations__",
    "__dict__",
    "__module__",
    "__qualname__",
}
_DYNAMIC_NAME_CALLS = frozenset({"exec", "eval", "globals", "locals", "vars", "__import__"})


@dataclass(frozen=True)
class Problem:
    """One reason the conversion would fail at run time."""

    code: str
    line: int
    column: int
    message: str


def check(original: str, converted: str, path: str) -> list[Finding]:
    """The engine's check stage (engine.CHECKS): every problem refuses the conversion."""
    return [
        Finding(path, p.line, p.column, p.code, f"{p.message} (line {p.line} of the conversion)",
                "warning")
        for p in check_conversion(original, converted, path)
    ]


def check_conversion(original: str, converted: str, path: str = "<string>") -> list[Problem]:
    """Problems the converted text has that the original did not have (empty: safe to return)."""
    converted_tree = ast.parse(converted, path)
    problems = _new_undefined_names(original, converted, converted_tree, path)
    original_classes = _class_sources(original)
    order = _first_call_order(converted_tree)
    for node in ast.walk(converted_tree):
        if isinstance(node, ast.ClassDef) and _is_lightning_module(node):
            if ast.unparse(node) not in original_classes:
                problems.extend(_unassigned_self_attributes(node, order))
    return sorted(problems, key=lambda p: (p.line, p.column, p.code))


# --- names -----------------------------------------------------------------------------------


def _new_undefined_names(original: str, converted: str, tree: ast.Module, path: str):
    if _has_dynamic_names(tree):
        return []
    before = _undefined_names(symtable.symtable(original, path, "exec"))
    after = _undefined_names(symtable.symtable(converted, path, "exec"))
    new = after - before
    if not new:
        return []
    problems = []
    for name, node in _first_loads(tree, new).items():
        problems.append(
            Problem(
                UNDEFINED_NAME,
                node.lineno,
                node.col_offset,
                f"the conversion would read `{name}`, which nothing defines or imports",
            )
        )
    return problems


def _undefined_names(module_table: symtable.SymbolTable) -> set[str]:
    """Names read somewhere that resolve to no binding: not global, not builtin, not enclosing."""
    defined_globally = _module_bindings(module_table)
    undefined = set()
    for table in _tables(module_table):
        for symbol in table.get_symbols():
            if not symbol.is_referenced():
                continue
            name = symbol.get_name()
            if table is module_table:
                resolves_globally = not _binds(symbol)
            elif table.get_type() == "class":  # class bodies see enclosing functions, then globals
                resolves_globally = not _binds(symbol) and not symbol.is_free()
            else:  # function scopes: locals and free (enclosing) names are bound by construction
                resolves_globally = symbol.is_global()
            if resolves_globally and name not in defined_globally and name not in _BUILTINS:
                undefined.add(name)
    return undefined


def _module_bindings(module_table: symtable.SymbolTable) -> set[str]:
    names = {s.get_name() for s in module_table.get_symbols() if _binds(s)}
    for table in _tables(module_table):  # `global x` + assignment inside a function binds x
        for symbol in table.get_symbols():
            if symbol.is_declared_global() and symbol.is_assigned():
                names.add(symbol.get_name())
    return names


def _binds(symbol: symtable.Symbol) -> bool:
    return (
        symbol.is_assigned()
        or symbol.is_imported()
        or symbol.is_namespace()
        or symbol.is_parameter()
        or symbol.is_annotated()
    )


def _tables(table: symtable.SymbolTable):
    yield table
    for child in table.get_children():
        yield from _tables(child)


def _has_dynamic_names(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _DYNAMIC_NAME_CALLS
        ):
            return True
    return False


def _first_loads(tree: ast.Module, names: set[str]) -> dict[str, ast.Name]:
    first: dict[str, ast.Name] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
            known = first.get(node.id)
            if known is None or (node.lineno, node.col_offset) < (known.lineno, known.col_offset):
                first[node.id] = node
    return first


# --- self attributes -------------------------------------------------------------------------


def _is_lightning_module(node: ast.ClassDef) -> bool:
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)
        if name == "LightningModule":
            return True
    return False


def _class_sources(text: str) -> set[str]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    return {ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}


_FIRST_CALL_ORDER = HOOK_FIRST_CALL_ORDER
_ANYTIME = len(_FIRST_CALL_ORDER)  # methods called from anywhere (forward, helpers, other hooks)
_VALIDATION_HOOKS = _FIRST_CALL_ORDER[
    _FIRST_CALL_ORDER.index("on_validation_start") : _FIRST_CALL_ORDER.index("on_train_start")
]
# without the sanity check, `fit` first validates after the first epoch's training batches,
# before `on_train_epoch_end`
_EPOCH_END = _FIRST_CALL_ORDER.index("on_train_epoch_end")
_ORDER_WITHOUT_SANITY_CHECK = (
    *(hook for hook in _FIRST_CALL_ORDER[:_EPOCH_END] if hook not in _VALIDATION_HOOKS),
    *_VALIDATION_HOOKS,
    *_FIRST_CALL_ORDER[_EPOCH_END:],
)


def _first_call_order(tree: ast.Module) -> tuple[str, ...]:
    """Lightning's first-call order for this script: validation after training when every
    Trainer it makes turns the sanity check off (`num_sanity_val_steps=0`) and it calls no
    `.validate(...)` (which could run before `fit`)."""
    trainers, validates = [], False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name == "Trainer":
                trainers.append(node)
            validates |= isinstance(func, ast.Attribute) and name == "validate"
    if trainers and not validates and all(
        any(
            k.arg == "num_sanity_val_steps"
            and isinstance(k.value, ast.Constant)
            and k.value.value == 0
            for k in call.keywords
        )
        for call in trainers
    ):
        return _ORDER_WITHOUT_SANITY_CHECK
    return _FIRST_CALL_ORDER


def _unassigned_self_attributes(cls: ast.ClassDef, order=_FIRST_CALL_ORDER) -> list[Problem]:
    provided = set(LIGHTNING_MODULE_ATTRIBUTES)
    methods = {}
    for stmt in cls.body:  # methods, properties, class attributes
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            provided.add(stmt.name)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.args.args:
                methods[stmt.name] = stmt
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                provided |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    uses = {name: _self_uses(method) for name, method in methods.items()}
    if any(use is None for use in uses.values()):
        return []  # setattr(self, ...) / self.__dict__: attributes cannot be known statically
    phase = _phases(methods, uses, order)
    problems = []
    for name, (stores, reads, _) in uses.items():
        for attr, node in reads.items():
            if attr in provided or _assigned_before(attr, node, name, stores, uses, phase):
                continue
            problems.append(
                Problem(
                    UNASSIGNED_SELF_ATTRIBUTE,
                    node.lineno,
                    node.col_offset,
                    f"`{cls.name}.{name}` would read `self.{attr}` before anything assigns it",
                )
            )
    return problems


def _self_uses(method):
    """(first store position per attribute, first read node per attribute, methods it calls)."""
    self_name = method.args.args[0].arg
    stores: dict[str, tuple[int, int]] = {}
    reads: dict[str, ast.Attribute] = {}
    calls: set[str] = set()
    # a comprehension binds its targets before it evaluates anything else
    comprehension_starts = {
        id(target): (comp.lineno, comp.col_offset)
        for comp in ast.walk(method)
        if isinstance(comp, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp))
        for generator in comp.generators
        for target in ast.walk(generator.target)
    }
    for node in ast.walk(method):
        if _sets_attributes_dynamically(node, self_name):
            return None
        if not (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == self_name
        ):
            continue
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            # a store is visible once its whole statement has run (`self.x = self.x.view()`)
            visible = comprehension_starts.get(id(node)) or _statement_end(method, node)
            stores[node.attr] = min(stores.get(node.attr, visible), visible)
        else:
            reads.setdefault(node.attr, node)
            calls.add(node.attr)
    return stores, reads, calls


def _statement_end(method, target: ast.AST) -> tuple[int, int]:
    for stmt in ast.walk(method):
        if isinstance(stmt, ast.stmt) and not isinstance(
            stmt,
            (
                ast.FunctionDef,
                ast.For,
                ast.While,
                ast.If,
                ast.With,
                ast.Try,
                ast.AsyncFor,
                ast.AsyncWith,
            ),
        ):
            if any(node is target for node in ast.walk(stmt)):
                return (stmt.end_lineno, stmt.end_col_offset)
    return (target.end_lineno, target.end_col_offset)


def _phases(methods, uses, order=_FIRST_CALL_ORDER) -> dict[str, int]:
    """When each method first runs: hooks by Lightning's order, helpers with their first caller."""
    phase = {name: order.index(name) if name in order else _ANYTIME for name in methods}
    changed = True
    while changed:  # a helper called from an early hook runs that early
        changed = False
        for caller, (_, _, calls) in uses.items():
            for callee in calls & methods.keys():
                if callee not in order and phase[caller] < phase[callee]:
                    phase[callee] = phase[caller]
                    changed = True
    return phase


def _assigned_before(attr, read, method, stores, uses, phase) -> bool:
    position = stores.get(attr)
    if position is not None and position <= (read.lineno, read.col_offset):
        return True
    if phase[method] == _ANYTIME:  # a helper: any assignment anywhere may precede its call
        return any(attr in other_stores for other_stores, _, _ in uses.values())
    return any(
        attr in other_stores and phase[other] < phase[method]
        for other, (other_stores, _, _) in uses.items()
    )


def _sets_attributes_dynamically(node: ast.AST, self_name: str) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in {"setattr", "vars"} and node.args:
            first = node.args[0]
            return isinstance(first, ast.Name) and first.id == self_name
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "__dict__"
        and isinstance(node.value, ast.Name)
        and node.value.id == self_name
    )
