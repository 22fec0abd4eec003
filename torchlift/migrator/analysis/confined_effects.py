"""Does a method of the script touch anything but its own objects?

A logger's methods (`MetricLogger.update`, `SmoothedValue.update`, `log_every`) may keep
state on `self` and on objects they create, print and read the clock; a conversion that drops
the logger drops exactly that. What it must not drop: random numbers drawn (torch's, Python's),
tensors or other objects of the caller changed in place, global state, files, exceptions
raised. `confinement_problem` answers for one function, following the methods of the file's
classes it calls (all definitions of that method name: the receiver's type is not known) and
the `__init__` of the classes it creates. Not followed: what formatting runs (`f"{self}"`
calls `__str__`, read-only by convention).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .names import collect_names

# calls that draw no random numbers and change nothing but what they return or print
SAFE_CALLS = frozenset(
    {
        f"builtins.{name}"
        for name in (
            "print len str int float round min max abs isinstance enumerate range list dict "
            "tuple sorted sum zip repr format bool hasattr"
        ).split()
    }
    | {
        "time.time",
        "time.perf_counter",
        "time.monotonic",
        "time.process_time",
        "datetime.timedelta",
        "datetime.datetime.now",
        "collections.defaultdict",
        "collections.deque",
        "collections.OrderedDict",
        "torch.cuda.is_available",
        "torch.cuda.max_memory_allocated",
        "torch.cuda.memory_allocated",
    }
)
# methods that only read their receiver (a tensor's `.item()`, a dict's `.items()`, a
# string's `.format()` / `.join()`): allowed on anything
READ_METHODS = frozenset("item items keys values get format join size dim numel flatten".split())
# methods that change a container in place: allowed on the function's own objects only
CONTAINER_METHODS = frozenset(
    "append appendleft extend add update setdefault pop popleft clear".split()
)
_FORBIDDEN = (
    cst.Global,
    cst.Nonlocal,
    cst.Del,
    cst.Try,
    cst.With,
    cst.While,
    cst.Raise,
    cst.Import,
    cst.ImportFrom,
    cst.FunctionDef,
    cst.ClassDef,
    cst.Lambda,
    cst.Await,
)


def file_classes(module: cst.Module) -> dict[str, cst.ClassDef]:
    return {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}


def method(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    for item in cls.body.body:
        if isinstance(item, cst.FunctionDef) and item.name.value == name:
            return item
    return None


def confinement_problem(ctx, function: cst.FunctionDef, visited: set | None = None) -> str | None:
    """None when `function` (a method) only changes `self` and the objects it creates, prints
    and reads the clock; otherwise what it does (for a refusal)."""
    visited = set() if visited is None else visited
    if id(function) in visited:
        return None
    visited.add(id(function))
    name = function.name.value
    if function.decorators or function.asynchronous is not None:
        return f"`{name}` is decorated or async"
    for node in _nodes(function.body):
        if isinstance(node, _FORBIDDEN):
            return f"`{name}` holds `{type(node).__name__}`"
    owned = _owned_locals(ctx, function)
    for node in _nodes(function.body):
        for part in _stored_into(node):
            if root_name(part) not in owned:
                shown = ctx.module.code_for_node(part)
                return f"`{name}` assigns to `{shown}`, not its own object"
        if isinstance(node, cst.Call):
            problem = _call_problem(ctx, node, owned, name, visited)
            if problem:
                return problem
    return None


def self_change(ctx, function: cst.FunctionDef) -> str | None:
    """What in `function` (a method) may change its own object (`self.x = ...`,
    `self.meters[k].update(...)`), as code; None when it only reads `self`."""
    for node in _nodes(function.body):
        for part in _stored_into(node):
            if root_name(part) == "self":
                return ctx.module.code_for_node(part)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if root_name(node.func.value) == "self" and node.func.attr.value not in READ_METHODS:
                return ctx.module.code_for_node(node.func)
    return None


def _call_problem(ctx, call: cst.Call, owned: set[str], where: str, visited: set) -> str | None:
    classes = file_classes(ctx.module)
    if isinstance(call.func, cst.Name) and call.func.value in classes:
        init = method(classes[call.func.value], "__init__")
        return confinement_problem(ctx, init, visited) if init is not None else None
    if ctx.call_qualnames(call) & SAFE_CALLS:
        return None
    shown = ctx.module.code_for_node(call.func)
    if not isinstance(call.func, cst.Attribute):
        return f"`{where}` calls `{shown}`"
    attr = call.func.attr.value
    defined = _defined_methods(classes, attr)
    if attr in READ_METHODS and not defined:
        return None
    mine = root_name(call.func.value) in owned
    if mine and defined:
        for found in defined:
            problem = confinement_problem(ctx, found, visited)
            if problem:
                return problem
        return None
    if mine and attr in CONTAINER_METHODS:
        return None
    return f"`{where}` calls `{shown}`"


def _defined_methods(classes: dict, name: str) -> list[cst.FunctionDef]:
    return [f for cls in classes.values() if (f := method(cls, name)) is not None]


def _owned_locals(ctx, function: cst.FunctionDef) -> set[str]:
    """`self` and the locals every binding of which creates a new object (a class of the
    file, a container)."""
    classes = file_classes(ctx.module)
    created: dict[str, bool] = {}
    for node in _nodes(function.body):
        pairs = []
        if isinstance(node, cst.Assign):
            pairs = [(t.target, node.value) for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)):
            pairs = [(node.target, None)]
        for target, value in pairs:
            new = _creates(ctx, value, classes)
            for bound in collect_names(cst.AssignTarget(target)).writes:
                created[bound] = created.get(bound, True) and new
    return {"self"} | {name for name, new in created.items() if new}


def _creates(ctx, value, classes: dict) -> bool:
    if isinstance(value, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp)):
        return True
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Name) and value.func.value in classes:
        return True
    return bool(
        ctx.call_qualnames(value)
        & {"collections.defaultdict", "collections.deque", "builtins.list", "builtins.dict"}
    )


def _stored_into(node) -> list:
    """The attributes and items an assignment statement `node` stores into (`self.x`,
    `d[k]`; not plain names)."""
    targets = []
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        targets = [node.target]
    parts = [p for target in targets for p in _target_parts(target)]
    return [p for p in parts if not isinstance(p, cst.Name)]


def _target_parts(target) -> list:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [p for e in target.elements for p in _target_parts(e.value)]
    if isinstance(target, cst.StarredElement):
        return _target_parts(target.value)
    return [target]


def root_name(expr) -> str | None:
    """`self` of `self.meters[k].window`; None for a call's result or a literal."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _nodes(node):
    """Every node under `node`, nested functions included (they are refused)."""
    return m.findall(node, m.MatchIfTrue(lambda _: True))
