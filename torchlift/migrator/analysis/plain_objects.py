"""`.step()` calls that are no optimizer's: the script's own plain objects (an RL environment).

    class CorridorEnv:                  # no base class, no torch step anywhere in it
        def step(self, action): ...
    env = CorridorEnv()                 # the only binding of `env` in the file
    ...
    state, reward, done, _ = env.step(action)     -> not an optimizer call

Every reinforcement-learning script steps its environment with `env.step(action)`, which
spells an optimizer call (`names.node_kinds` tells calls apart by their method name only).
A name bound nowhere but by module-level `name = C(...)` statements holds such an object in
every scope reading it when `C` is a class of the script defined once, with no base (or
`object`), metaclass or decorator, whose code calls no `.backward()` and no `.step()` /
`.zero_grad()` but its own, and reads no global but imported names, builtins, literals bound
once, parsed command-line arguments and other such classes (nothing through which it could
reach a model or an optimizer): its `.step()` is the class's own and trains nothing.
Parsed arguments are a name bound once, at module level, to `parser.parse_args(...)` and read
everywhere else only as `args.field` or in `print(args)` (`RandomState(args.seed)`): nothing
stores into that Namespace (`args.model = model`) or hands it on (`vars(args)`, `f(args)`),
so its fields hold the command line's values. Anything else (a base class, another
binding, a local or parameter of the same name anywhere, a `global` rebinding it) keeps the
call an optimizer call, as before.
"""

from __future__ import annotations

import ast
import builtins
import symtable

import libcst as cst
import libcst.matchers as m

from .names import collect_names
from .statements import BACKWARD, OPTIMIZER_CALL, contains

_STEP_CALL = m.Call(func=m.Attribute(attr=m.Name("step") | m.Name("zero_grad")))

_LAST: list = [None, frozenset()]  # the last module asked about and its answer


def optimizer_calls(module: cst.Module, node: cst.CSTNode) -> bool:
    """Whether `node` holds a `.backward()`-free `.step()` / `.zero_grad()` call that may be an
    optimizer's (or a scheduler's): one not made on a plain object of the script."""
    if not contains(node, OPTIMIZER_CALL):
        return False
    plain = plain_instances(module)
    for call in m.findall(node, _STEP_CALL):
        receiver = call.func.value
        if not (isinstance(receiver, cst.Name) and receiver.value in plain):
            return True
    return False


def plain_instances(module: cst.Module) -> frozenset:
    """The module's names that hold an instance of a plain class of the script wherever read."""
    if _LAST[0] is not module:  # one module per migration: asked once per statement
        _LAST[:] = [module, frozenset(_plain_instances(module))]
    return _LAST[1]


def _plain_instances(module: cst.Module) -> set[str]:
    classes = _plain_classes(module)
    if not classes:
        return set()
    bound: dict[str, bool] = {}  # name -> every module-level binding is `name = C(...)`
    for stmt in module.body:
        for name in collect_names(stmt).writes:
            bound[name] = bound.get(name, True) and _instance_of(stmt, name, classes)
    candidates = {name for name, plain in bound.items() if plain}
    if not candidates:
        return set()
    try:
        top = symtable.symtable(module.code, "<module>", "exec")
    except SyntaxError:
        return set()
    stack = list(top.get_children())
    while stack:  # a local of that name, or a `global` write, elsewhere: not surely the object
        table = stack.pop()
        stack.extend(table.get_children())
        for symbol in table.get_symbols():
            if symbol.get_name() in candidates and (
                symbol.is_local() or symbol.is_assigned() or symbol.is_parameter()
            ):
                candidates.discard(symbol.get_name())
    return candidates


def _instance_of(stmt, name: str, classes: set[str]) -> bool:
    """`stmt` is exactly `name = C(...)`, C one of `classes`."""
    if not m.matches(stmt, m.SimpleStatementLine([m.Assign([m.AssignTarget(m.Name(name))])])):
        return False
    value = stmt.body[0].value
    return m.matches(value, m.Call(func=m.Name())) and value.func.value in classes


def _plain_classes(module: cst.Module) -> set[str]:
    """Module-level classes defined once, with no base but `object`, no metaclass or
    decorator, whose code calls no `.backward()` and no `.step()` / `.zero_grad()` but its
    own, and reads no global but imported modules and names, builtins, literals bound once
    and other such classes: nothing through which it could reach a model or an optimizer."""
    return _class_verdicts(module)[0]


def _class_verdicts(module: cst.Module) -> tuple[set[str], dict[str, str]]:
    """(the plain classes, why each other module-level class is not, in words)."""
    defs: dict[str, list] = {}
    for stmt in module.body:
        for name in collect_names(stmt).writes:
            defs.setdefault(name, []).append(stmt)
    why: dict[str, str] = {}
    classes = {}
    for s in module.body:
        if isinstance(s, cst.ClassDef):
            if len(defs.get(s.name.value, ())) == 1:
                classes[s.name.value] = s
            else:
                why[s.name.value] = "is bound more than once in the file"
    safe = {
        name for name, stmts in defs.items() if len(stmts) == 1 and _import_or_literal(stmts[0])
    } | _parsed_namespaces(module, defs)
    try:
        tables = {
            t.get_name(): t
            for t in symtable.symtable(module.code, "<module>", "exec").get_children()
            if t.get_type() == "class"
        }
    except SyntaxError:
        return set(), why
    builtin = {name for name in dir(builtins) if name not in defs}
    reads = {}
    for name, stmt in list(classes.items()):
        bases = [a for a in stmt.bases if not m.matches(a, m.Arg(m.Name("object"), keyword=None))]
        if bases or stmt.keywords or stmt.decorators or name not in tables:
            why[name] = "has a base class, a metaclass or a decorator"
            del classes[name]
        elif contains(stmt, BACKWARD) or contains(stmt, OPTIMIZER_CALL) and _steps_other(stmt):
            why[name] = "calls `.backward()` or another object's `.step()` / `.zero_grad()`"
            del classes[name]
        else:
            reads[name] = _global_reads(tables[name]) - builtin
    found = set(classes)
    changed = True
    while changed:  # a class reading another class keeps it only while that one stays plain
        changed = False
        for name in sorted(found):
            unknown = sorted(reads[name] - safe - found)
            if unknown:
                found.discard(name)
                why[name] = (
                    f"reads the global `{unknown[0]}` (followed: imports, builtins, literals, "
                    "`args.field` of `parser.parse_args()`, other such classes)"
                )
                changed = True
    return found, why


def why_may_step(module: cst.Module, node: cst.CSTNode) -> str | None:
    """In words, a `.step()` call in `node` on an object of a class of the script that is not
    known to be plain, and why: "`env.step(a)`, which may be an optimizer's step: `env` holds
    a `ToyEnv`, which reads ...". None when the first call that may be an optimizer's is on
    anything else (an optimizer, an attribute): the plain wording fits."""
    if not contains(node, OPTIMIZER_CALL):
        return None
    plain = plain_instances(module)
    for call in m.findall(node, _STEP_CALL):
        receiver = call.func.value
        if isinstance(receiver, cst.Name) and receiver.value in plain:
            continue
        why = _why_not_plain(module, receiver.value) if isinstance(receiver, cst.Name) else None
        if why is None:
            return None
        return f"`{module.code_for_node(call)}`, which may be an optimizer's step: {why}"
    return None


def _why_not_plain(module: cst.Module, name: str) -> str | None:
    """Why `name`, bound only to objects of the script's classes, is not a plain instance;
    None when it is bound to anything else."""
    plain, why = _class_verdicts(module)
    created = set()
    for stmt in module.body:
        if name not in collect_names(stmt).writes:
            continue
        if not _instance_of(stmt, name, set(plain) | set(why)):
            return None
        created.add(stmt.body[0].value.func.value)
    for cls in sorted(created):
        if cls in why:
            return f"`{name}` holds a `{cls}`, which {why[cls]}"
    if created:
        return f"`{name}` is also a local, a parameter or a `global` rebinding in a function"
    return None


def _global_reads(table: symtable.SymbolTable) -> set[str]:
    """Global names read in a class's body or its methods (and scopes nested in them)."""
    found = {s.get_name() for s in table.get_symbols() if s.is_global() and s.is_referenced()}
    for child in table.get_children():
        found |= _global_reads(child)
    return found


_PARSE_ARGS = m.SimpleStatementLine(
    [
        m.Assign(
            [m.AssignTarget(m.Name())],
            value=m.Call(func=m.Attribute(attr=m.Name("parse_args"))),
        )
    ]
)


def _parsed_namespaces(module: cst.Module, defs: dict) -> set[str]:
    """Names bound once, at module level, to `parser.parse_args(...)` and read everywhere else
    only as `name.field` loads or printed whole (a parameter or local of the same name anywhere,
    `vars(args)`, `args.lr = ...` or `del args.x` keep it unsafe): a Namespace argparse fills."""
    parsed = {
        name for name, stmts in defs.items() if len(stmts) == 1 and m.matches(stmts[0], _PARSE_ARGS)
    }
    if not parsed:
        return set()
    try:
        tree = ast.parse(module.code)
    except SyntaxError:
        return set()
    bare = dict.fromkeys(parsed, 0)  # uses of the name not as `name.field` loads
    printed = {  # `print(args)`: the Namespace's repr, nothing stored into it
        id(arg)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
        and "print" not in defs
        for arg in node.args
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in bare:
            bare[node.id] += 0 if id(node) in printed else 1
        elif isinstance(node, ast.arg) and node.arg in bare:
            bare[node.arg] += 2  # a parameter of that name: never one binding
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in bare:
                bare[node.value.id] += -1 if isinstance(node.ctx, ast.Load) else 2
    return {name for name, count in bare.items() if count == 1}  # the binding alone


def _import_or_literal(stmt) -> bool:
    """An import statement, or `name = <number or string>`."""
    if m.matches(stmt, m.SimpleStatementLine([m.Import() | m.ImportFrom()])):
        return True
    if not m.matches(stmt, m.SimpleStatementLine([m.Assign([m.AssignTarget(m.Name())])])):
        return False
    return isinstance(stmt.body[0].value, (cst.Integer, cst.Float, cst.SimpleString))


def _steps_other(classdef: cst.ClassDef) -> bool:
    """Whether the class calls `.step()` / `.zero_grad()` on anything but `self` (its own
    `self.step()` is its own method)."""
    for call in m.findall(classdef, _STEP_CALL):
        if not m.matches(call.func.value, m.Name("self")):
            return True
    return False
