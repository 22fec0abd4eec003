"""Which code iterates a DataLoader, or may: a draw from torch's global generator.

    images, labels = next(iter(train_loader))       # iter(): the iterator's base seed
    n = sum(1 for _ in train_loader)                # the same, and the sampler's seed
    total = len(list(val_loader))
    for i, b in enumerate(loader): ...              # enumerate() calls iter() at once

A DataLoader's iterator draws its base seed from torch's generator when it is made, and a
RandomSampler its permutation's seed at the first batch (a loader given its own `generator=`
draws from that one). So does every builtin that iterates its argument (`list`, `tuple`, `set`,
`dict`, `sorted`, `sum`, `any`, `all`, `min`/`max` of one iterable, `enumerate`, `zip`, `map`,
`filter`, `iter`, `next`, `reversed`, `str.join`, `itertools`), a comprehension's `for`, a
`for` statement, `x in loader`, `*loader`, unpacking `a, b = loader`, a tqdm.auto bar (its
`__init__` calls iter()), and a function the migrator cannot see into given a loader.

What may be a loader is followed by data flow over the file, a name read where it is bound by
the innermost scope binding it (every scope's union for code the conversion made). A value is
a set of what it may be: LOADER (iterating it may draw: a DataLoader, a sampler, an iterator or
a bar over one), ITEM (a container with a loader among its items: iterating it draws nothing,
its items may), DEEP (a container of such containers: `summ[0]` of a list of dicts); PLAIN
when none (numbers, tensors, torch objects, containers of those), UNKNOWN when all. A name is
the union of every binding of it (assignments, loop targets, `with ... as`, `append` or
`d[k] = v` into it); a parameter of a module function the union of the arguments of its calls (UNKNOWN when the
function is passed around, or for methods and lambdas); a call of a module function the union
of its returns. Library calls: torch (but torch.utils.data), numpy and other namespaces that
make no loader give PLAIN values; any other callee gives UNKNOWN. An attribute of `self` read
in a method of the file's own class without a base is the union of every binding of that
attribute name in the file (`self.shadow = {}`, `self.shadow[k] = v`, `obj.shadow.append(v)`):
no library code sets it (UNKNOWN when the file calls `setattr` / `vars` or reads `__dict__`). A
parameter of such a class's method (not a dunder, static or class method) is the union of the
arguments of its calls, `ema.store(model.parameters())`, when the file names the method only
to call it.
"""

from __future__ import annotations

from functools import lru_cache

import libcst as cst
import libcst.matchers as m

from .confined_effects import root_name
from .qualnames import ITERATING_BARS, TQDM, TRANGE

PLAIN, LOADER, ITEM, DEEP, UNKNOWN = 0, 1, 2, 4, 7  # a union is `|`

# builtins iterating their first positional argument (`sum(x, start)`: only `x`)
_ITERATE_FIRST = frozenset(
    "list tuple set frozenset sorted sum any all iter next reversed enumerate dict".split()
)
_ITERATE_ALL = frozenset({"zip"})
_ITERATE_REST = frozenset({"map", "filter"})  # the first is the function
# builtins whose result neither is nor holds a loader, whatever they are given
_PLAIN_BUILTINS = frozenset(
    "len int float str bool round abs sum any all isinstance issubclass range print repr "
    "format hasattr id hash ord chr bin hex oct divmod pow callable open input sorted".split()
)
# builtins that never iterate what they are given (a loader handed to them draws nothing)
_NOT_ITERATING = _PLAIN_BUILTINS - {"sum", "any", "all", "sorted"} | {"type", "getattr"}
# library namespaces that make no loader (torch.utils.data and torchvision.datasets excepted)
_PLAIN_LIBRARIES = frozenset(
    "torch numpy math time os sys json pickle random collections argparse logging datetime "
    "pathlib re shutil warnings string statistics csv glob gc platform typing dataclasses "
    "torchvision matplotlib pandas scipy sklearn PIL yaml wandb transformers timm torchmetrics "
    "einops accelerate".split()
)
_DATA_NAMESPACES = ("torch.utils.data.", "torchvision.datasets.")
# libraries whose functions iterate no loader they are given (numpy's make an object array)
_NOT_ITERATING_LIBRARIES = frozenset(
    "torch numpy math time os sys json pickle random logging argparse datetime pathlib re "
    "shutil warnings".split()
)
# methods returning a view of their receiver (a dict's items of loaders holds loaders)
_VIEWS = frozenset("items values keys copy".split())
# torch.nn.Module's methods listing its own tensors and submodules: no loader among them,
# whatever the model's class (`for p in net.parameters()` with `from models import *`)
_MODULE_METHODS = frozenset(
    "parameters named_parameters children named_children modules named_modules buffers "
    "named_buffers state_dict".split()
)
# methods putting their argument into their receiver
_PUTTING = frozenset("append appendleft add insert setdefault extend extendleft update".split())


def loader_iterations(ctx, node) -> list[cst.CSTNode]:
    """The places in `node` whose evaluation iterates something that may be a loader drawing
    from torch's global generator (see the docstring), in source order."""
    flow = _flow(ctx.module, ctx.names)
    return [site for site, value in _iterated(ctx, node) if flow.origin(value) & LOADER]


def _iterated(ctx, node):
    """(site, the expression it iterates) for every iteration in `node`."""
    for found in m.findall(node, m.For() | m.CompFor()):
        yield found, found.iter
    for found in m.findall(node, m.Comparison()):
        for target in found.comparisons:
            if isinstance(target.operator, (cst.In, cst.NotIn)):
                yield found, target.comparator
    for found in m.findall(node, m.StarredElement() | m.Arg(star="*")):
        yield found, found.value
    for found in m.findall(node, m.Yield(value=m.From())):
        yield found, found.value.item
    for found in m.findall(node, m.Assign()):
        if not isinstance(found.value, (cst.Tuple, cst.List)) and any(
            isinstance(t.target, (cst.Tuple, cst.List)) for t in found.targets
        ):
            yield found, found.value  # `a, b = value` iterates it
    for call in m.findall(node, m.Call()):
        for value in _call_iterates(ctx, call):
            yield call, value


def _call_iterates(ctx, call: cst.Call) -> list:
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    names = ctx.call_qualnames(call)
    builtin = next((q[len("builtins.") :] for q in names if q.startswith("builtins.")), None)
    if builtin is not None and _bound_in_file(ctx, builtin):
        builtin = None  # the script's own `list`
    if builtin in _ITERATE_FIRST:
        return positional[:1]
    if builtin in ("min", "max"):
        return positional if len(positional) == 1 else []
    if builtin in _ITERATE_ALL:
        return positional
    if builtin in _ITERATE_REST:
        return positional[1:]
    if names & ITERATING_BARS:  # its __init__ calls iter() on what it wraps
        return positional[:1]
    if any(q.startswith("itertools.") for q in names):
        return positional
    func = call.func
    if not names and isinstance(func, cst.Attribute) and func.attr.value == "join":
        return positional[:1]  # `", ".join(values)`
    if _unseen(ctx, call, names, builtin):
        # a function the migrator cannot see into may iterate a loader it is given
        return [a.value for a in call.args]
    return []


def _unseen(ctx, call, names, builtin) -> bool:
    """A callee whose code the migrator does not read: not a builtin that iterates nothing,
    not torch's, numpy's or the standard library's that iterate nothing (nor a bar's that
    iterates nothing when built), not a function or class of the script (their bodies are
    read: torch_draws.functions_drawing)."""
    if builtin is not None:
        return builtin not in _NOT_ITERATING
    if any(q.split(".")[0] in _NOT_ITERATING_LIBRARIES for q in names):
        return False
    if names & (TQDM - ITERATING_BARS):
        return False
    if any(q.endswith(".write") and q[: -len(".write")] in TQDM for q in names):
        return False  # the bars' classmethod printing a line
    func = call.func
    flow = _flow(ctx.module, ctx.names)
    if isinstance(func, cst.Name) and (func.value in flow.functions or func.value in flow.classes):
        return False
    if isinstance(func, cst.Attribute) and not names:
        # a method of a value: a tensor's, a list's... (PLAIN receivers make no loader)
        return bool(flow.origin(func.value) & LOADER)
    return True


def _bound_in_file(ctx, name: str) -> bool:
    return name in _flow(ctx.module, ctx.names).keys


@lru_cache(maxsize=8)
def _flow(module: cst.Module, names) -> _Flow:
    return _Flow(module, names)


class _Flow:
    """The origin of every name of the file, to a fixed point (see the docstring)."""

    def __init__(self, module: cst.Module, names) -> None:
        self.module = module
        self.names = names
        self.functions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
        self.classes = {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}
        self.calls: dict[str, list] = {}
        self.bindings: dict[tuple, list] = {}  # (scope, name) -> its bindings
        self.keys: dict[str, list] = {}  # name -> its (scope, name) keys
        self.chains: dict[int, tuple] = {}  # id(Name read) -> its scopes, innermost first
        self.method_calls: dict[str, list | None] = {}
        self.own_attributes: set[int] = set()  # id(`self.x` read in a plain class's method)
        self.dynamic_attributes = bool(
            m.findall(module, m.Call(func=m.Name("setattr") | m.Name("vars")) | m.Name("__dict__"))
        )
        self.state: dict = {}
        _Bindings(self).collect()
        self._solve()

    # -- the fixed point -----------------------------------------------------------------
    def _solve(self) -> None:
        for _ in range(4 * len(self.bindings) + 8):  # each origin only grows: 2 bits a key
            changed = False
            for key, found in self.bindings.items():
                new = self.state.get(key, PLAIN)
                for kind, payload in found:
                    new |= self._binding_origin(kind, payload)
                if new != self.state.get(key, PLAIN):
                    self.state[key], changed = new, True
            for fname, function in self.functions.items():
                new = self._returns(function)
                if new != self.state.get(("return", fname), PLAIN):
                    self.state[("return", fname)], changed = new, True
            if not changed:
                return

    def _binding_origin(self, kind, payload) -> int:
        if kind == "value":
            value, steps = payload
            found = self.origin(value)
            for step in steps:
                found = _element(found) if step == "element" else _container(found)
            return found
        if kind == "param":
            return self._parameter(*payload)
        if kind == "method_param":
            return self._method_parameter(*payload)
        return payload  # "origin"

    def _returns(self, function: cst.FunctionDef) -> int:
        if m.findall(function.body, m.Yield()):
            return UNKNOWN  # a generator: iterating it runs code that may iterate a loader
        found = PLAIN
        for ret in m.findall(function.body, m.Return()):
            if ret.value is not None:
                found |= self.origin(ret.value)
        return found

    def _parameter(self, fname: str, param: cst.Param) -> int:
        calls = self.calls.get(fname)
        if calls is None:
            return UNKNOWN  # passed around: called with anything
        params = self.functions[fname].params
        position = [p.name.value for p in [*params.posonly_params, *params.params]]
        return self._given(calls, position, param)

    def _given(self, calls: list, position: list[str], param: cst.Param) -> int:
        """What `param` (positional ones in the order `position`) receives from `calls`: the
        union of its arguments' origins and its default's."""
        found = self.origin(param.default) if param.default is not None else PLAIN
        name = param.name.value
        for call in calls:
            positional = [a for a in call.args if a.keyword is None]
            for k, arg in enumerate(positional):
                if arg.star:  # `f(*args)`, `f(**kwargs)`: any parameter
                    found |= UNKNOWN
                elif k < len(position) and position[k] == name:
                    found |= self.origin(arg.value)
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == name:
                    found |= self.origin(arg.value)
        return found

    def _method_parameter(self, cls: str, method: cst.FunctionDef, param: cst.Param) -> int:
        """A method's parameter: its calls' arguments (the class's calls for `__init__`)."""
        name = method.name.value
        calls = self._class_calls(cls) if name == "__init__" else self._method_calls(name)
        if calls is None:
            return UNKNOWN
        params = method.params
        position = [p.name.value for p in [*params.posonly_params, *params.params]][1:]
        if param.name.value not in position and param not in params.kwonly_params:
            return UNKNOWN  # `self`: its attributes are followed by name (`origin`)
        return self._given(calls, position, param)

    def _method_calls(self, name: str):
        """Every call of a method named `name` (`x.name(...)`), or None when the file names it
        otherwise too (passed around, `getattr`): then it may be called with anything."""
        if name not in self.method_calls:
            self.method_calls[name] = self._find_method_calls(name)
        return self.method_calls[name]

    def _class_calls(self, cls: str):
        """Every call of the file's class `cls`, or None when it is named otherwise too."""
        calls = m.findall(self.module, m.Call(func=m.Name(cls)))
        mentions = [n for n in m.findall(self.module, m.Name(cls)) if id(n) in self.chains]
        definition = self.classes[cls].name
        named = [n for n in mentions if n is not definition]
        return calls if len(named) == len(calls) else None

    def _find_method_calls(self, name: str):
        mentions = m.findall(self.module, m.Attribute(attr=m.Name(name)))
        calls = m.findall(self.module, m.Call(func=m.Attribute(attr=m.Name(name))))
        if len(mentions) != len(calls) or m.findall(self.module, m.Name("getattr")):
            return None
        return calls

    # -- expressions ---------------------------------------------------------------------
    def origin(self, expr) -> int:
        if isinstance(expr, cst.Name):
            return self._name(expr)
        if isinstance(expr, (cst.Attribute, cst.Subscript)):
            if isinstance(expr, cst.Attribute) and self._qualified(expr):
                return PLAIN  # `torch.float32`, `sys.stdout`
            if id(expr) in self.own_attributes and not self.dynamic_attributes:
                key = ("attribute", expr.attr.value)
                if key in self.bindings:
                    return self.state.get(key, PLAIN)
            value = self.origin(expr.value)
            if value == PLAIN:
                return PLAIN
            if isinstance(expr, cst.Subscript) and not any(
                isinstance(e.slice, cst.Slice) for e in expr.slice
            ):
                return _element(value)  # `summ[0]`, `loaders["train"]`
            return UNKNOWN
        if isinstance(expr, cst.Call):
            return self._call(expr)
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            return _container(_union(self._item(e) for e in expr.elements))
        if isinstance(expr, cst.Dict):
            return _container(_union(self._item(e) for e in expr.elements))
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return _container(self.origin(expr.elt))
        if isinstance(expr, cst.DictComp):
            return _container(self.origin(expr.value))
        if isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation)):
            return self.origin(expr.left) | self.origin(expr.right)
        if isinstance(expr, cst.IfExp):
            return self.origin(expr.body) | self.origin(expr.orelse)
        if isinstance(expr, cst.NamedExpr):
            return self.origin(expr.value)
        if isinstance(expr, (cst.Await, cst.Yield)):
            return UNKNOWN
        return PLAIN  # literals, strings, comparisons, lambdas, `not x`, `-x`

    def _name(self, name: cst.Name) -> int:
        """The binding of the innermost scope binding it, seen from where it is read (every
        scope's, for a node made by the conversion: not in the file)."""
        keys = self.keys.get(name.value)
        if not keys:
            return PLAIN if self.names.of(name) else UNKNOWN  # a builtin, or not seen bound
        chain = self.chains.get(id(name))
        if chain is not None:
            for scope in chain:
                if (scope, name.value) in self.bindings:
                    return self.state.get((scope, name.value), PLAIN)
        return _union(self.state.get(key, PLAIN) for key in keys)

    def _item(self, element) -> int:
        if isinstance(element, (cst.StarredElement, cst.StarredDictElement)):
            return _element(self.origin(element.value))
        if isinstance(element, cst.DictElement):
            return self.origin(element.key) | self.origin(element.value)
        return self.origin(element.value)

    def _qualified(self, expr) -> bool:
        names = self.names.of(expr)
        return bool(names) and not any(q.startswith(_DATA_NAMESPACES) for q in names)

    def _call(self, call: cst.Call) -> int:
        func = call.func
        values = [a.value for a in call.args]
        given = _union(self.origin(v) for v in values)
        if isinstance(func, cst.Name) and func.value in self.functions:
            return self.state.get(("return", func.value), PLAIN)
        if isinstance(func, cst.Name) and func.value in self.classes:
            return self._instance(self.classes[func.value])
        names = self.names.of(func)
        if names and not (isinstance(func, cst.Name) and _shadowed(self, func.value)):
            return _union(self._library(q, call, values, given) for q in names)
        if isinstance(func, cst.Name):
            callee = self.origin(func)  # `model(x)`, `criterion(out, y)`
            return PLAIN if callee == PLAIN and given == PLAIN else UNKNOWN
        if isinstance(func, cst.Attribute):  # a method of a value of the script
            if func.attr.value in _MODULE_METHODS:
                return PLAIN
            receiver = self.origin(func.value)
            if receiver == PLAIN:
                return PLAIN if given == PLAIN else UNKNOWN
            if func.attr.value == "items":  # (key, value) pairs
                return _container(_container(_element(receiver)))
            return receiver if func.attr.value in _VIEWS else UNKNOWN
        return UNKNOWN

    def _library(self, name: str, call: cst.Call, values: list, given: int) -> int:
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        module, _, last = name.rpartition(".")
        if module == "builtins":
            if last in ("iter", "reversed", "filter", "map"):
                return given  # an iterator over what it is given
            if last in ("enumerate", "zip"):  # tuples of their items
                iterated = _union(self.origin(v) & LOADER for v in positional)
                items = _union(_element(self.origin(v)) for v in positional)
                return iterated | _container(_container(items))
            if last == "next" or last in ("min", "max") and len(positional) == 1:
                return _element(self.origin(positional[0])) if positional else UNKNOWN
            if last in ("min", "max"):
                return given
            if last in ("list", "tuple", "set", "frozenset"):
                return _container(_element(self.origin(positional[0]))) if positional else PLAIN
            if last == "dict":
                return _container(given)
            return PLAIN if last in _PLAIN_BUILTINS else UNKNOWN
        if name in TQDM:
            return self.origin(positional[0]) if positional else PLAIN
        if name in TRANGE:
            return PLAIN
        if name.startswith(_DATA_NAMESPACES):
            if last.endswith(("DataLoader", "Sampler")):
                return PLAIN if _own_generator(call) else LOADER
            return PLAIN if last == "TensorDataset" else UNKNOWN
        if module.startswith("itertools") or name in ("copy.copy", "copy.deepcopy"):
            return given
        if name.split(".")[0] in _PLAIN_LIBRARIES:
            return PLAIN
        return UNKNOWN

    def _instance(self, cls: cst.ClassDef) -> int:
        """A class of the file: a module of torch's makes no loader; a DataLoader subclass is
        one; any other may make one (a wrapper iterating the loader it is given)."""
        bases = {q for base in cls.bases for q in self.names.of(base.value)}
        if any(q.endswith("DataLoader") for q in bases):
            return LOADER
        local = [b.value.value for b in cls.bases if isinstance(b.value, cst.Name)]
        if any(q.startswith("torch.nn.") for q in bases) or any(
            name in self.classes and self._instance(self.classes[name]) == PLAIN
            for name in local
            if name != cls.name.value
        ):
            return PLAIN
        return UNKNOWN


def _shadowed(flow: _Flow, name: str) -> bool:
    """A builtin's name the file binds otherwise than by an import."""
    return any(
        kind != "origin" for key in flow.keys.get(name, ()) for kind, _ in flow.bindings[key]
    ) or name in (flow.functions.keys() | flow.classes.keys())


def _own_generator(call: cst.Call) -> bool:
    """`generator=` given and no sampler of the script's: it draws from that one only."""
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    return "generator" in keywords and not keywords & {"sampler", "batch_sampler"}


def _element(origin: int) -> int:
    """What an item of a value may be: a loader's items are batches (PLAIN); an ITEM
    container's may be loaders; a DEEP one's, containers of any depth."""
    found = LOADER if origin & ITEM else PLAIN
    return found | (ITEM | DEEP if origin & DEEP else PLAIN)


def _container(origin: int) -> int:
    """What a container of such values may be."""
    found = ITEM if origin & LOADER else PLAIN
    return found | (DEEP if origin & (ITEM | DEEP) else PLAIN)


def _union(origins) -> int:
    found = PLAIN
    for origin in origins:
        found |= origin
    return found


class _Bindings(cst.CSTVisitor):
    """Every binding of every name of the file, for _Flow: (kind, payload) pairs, kind one of
    "value" (payload: (expression, steps), steps "element" / "container" applied in turn to its
    origin), "param" ((function, parameter)), "origin" (a constant)."""

    def __init__(self, flow: _Flow) -> None:
        self.flow = flow
        self.scopes: list[tuple[int, frozenset]] = [(0, frozenset())]  # (id, its globals)
        self.uses: dict[str, int] = {}  # name -> how many Name nodes spell it (no attributes)
        # per class entered: the node when it is the file's own, with no base, else None
        self.plain_classes: list[cst.ClassDef | None] = []
        self.methods: list[cst.FunctionDef | None] = []  # per function entered: its class's?

    def collect(self) -> None:
        self.flow.module.visit(self)
        for name in self.flow.functions:
            calls = m.findall(self.flow.module, m.Call(func=m.Name(name)))
            if self.uses.get(name) == len(calls) + 1:  # the `def` itself, and calls only
                self.flow.calls[name] = calls

    def _add(self, name: str, kind: str, payload, scope: int | None = None) -> None:
        if scope is None:
            scope, declared = self.scopes[-1]
            scope = 0 if name in declared else scope
        key = (scope, name)
        if key not in self.flow.bindings:
            self.flow.keys.setdefault(name, []).append(key)
        self.flow.bindings.setdefault(key, []).append((kind, payload))

    def _enter(self, node, body) -> None:
        declared = {n.name.value for g in m.findall(body, m.Global()) for n in g.names}
        self.scopes.append((id(node), frozenset(declared)))

    def visit_Name(self, node) -> None:
        self.flow.chains[id(node)] = tuple(scope for scope, _ in reversed(self.scopes))
        self.uses[node.value] = self.uses.get(node.value, 0) + 1

    def visit_Attribute(self, node) -> bool:
        inside = bool(self.plain_classes) and self.plain_classes[-1] is not None
        if m.matches(node.value, m.Name("self")) and inside and any(self.methods):
            self.flow.own_attributes.add(id(node))  # in a plain class's method, or nested
        node.value.visit(self)  # `model.train()`'s `train` names no variable
        return False

    def _add_attribute(self, target, kind: str, payload) -> None:
        """`obj.x = v` (or `obj.x[k] = v`, `obj.x.append(v)`): a binding of every `x`."""
        if isinstance(target, cst.Attribute):
            key = ("attribute", target.attr.value)
            self.flow.bindings.setdefault(key, []).append((kind, payload))

    def visit_Arg(self, node) -> bool:
        node.value.visit(self)  # nor does a keyword
        return False

    def _target(self, target, value, steps: tuple = ()) -> None:
        if isinstance(target, cst.Name):
            self._add(target.value, "value", (value, steps))
        elif isinstance(target, (cst.Tuple, cst.List)):
            items = target.elements
            if (
                not steps
                and isinstance(value, (cst.Tuple, cst.List))
                and len(value.elements) == len(items)
                and not any(isinstance(e, cst.StarredElement) for e in [*items, *value.elements])
            ):  # `a, b = x, y`
                for item, part in zip(items, value.elements):
                    self._target(item.value, part.value)
                return
            for item in items:
                if isinstance(item, cst.StarredElement):  # a list of the items
                    self._target(item.value, value, (*steps, "element", "container"))
                else:
                    self._target(item.value, value, (*steps, "element"))
        elif isinstance(target, cst.StarredElement):
            self._target(target.value, value, (*steps, "element", "container"))
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            root = root_name(target)
            if root is not None:  # `d[k] = v`, `obj.attr = v`: it holds the value
                self._add(root, "value", (value, (*steps, "container")))
            if isinstance(target, cst.Attribute):
                self._add_attribute(target, "value", (value, steps))
            else:
                self._add_attribute(target.value, "value", (value, (*steps, "container")))

    # assignments and loop targets
    def visit_Assign(self, node) -> None:
        for target in node.targets:
            self._target(target.target, node.value)

    def visit_AnnAssign(self, node) -> None:
        if node.value is not None:
            self._target(node.target, node.value)

    def visit_AugAssign(self, node) -> None:
        self._target(node.target, node.value)

    def visit_For(self, node) -> None:
        self._target(node.target, node.iter, ("element",))

    def visit_CompFor(self, node) -> None:
        self._target(node.target, node.iter, ("element",))

    def visit_WithItem(self, node) -> None:
        if node.asname is not None:
            self._target(node.asname.name, node.item)

    def visit_NamedExpr(self, node) -> None:
        self._target(node.target, node.value)

    def visit_ExceptHandler(self, node) -> None:
        if node.name is not None and isinstance(node.name.name, cst.Name):
            self._add(node.name.name.value, "origin", PLAIN)

    def visit_ImportAlias(self, node) -> None:
        bound = node.asname.name if node.asname else node.name
        while isinstance(bound, cst.Attribute):
            bound = bound.value
        if isinstance(bound, cst.Name):
            self._add(bound.value, "origin", PLAIN)

    def visit_FunctionDef(self, node) -> None:
        self._add(node.name.value, "origin", PLAIN)
        module_level = any(s is node for s in self.flow.module.body)
        method = self._plain_method(node)
        cls = self.plain_classes[-1] if self.plain_classes else None
        self.methods.append(
            node if cls is not None and any(s is node for s in cls.body.body) else None
        )
        params = node.params
        for param in _params(params):
            starred = param is params.star_arg or param is params.star_kwarg
            if module_level and not starred:
                self._add(param.name.value, "param", (node.name.value, param), id(node))
            elif method and not starred:
                payload = (self.plain_classes[-1].name.value, node, param)
                self._add(param.name.value, "method_param", payload, id(node))
            else:  # a method's, a nested function's, `*args`: given anything
                self._add(param.name.value, "origin", UNKNOWN, id(node))
        self._enter(node, node.body)

    def _plain_method(self, node: cst.FunctionDef) -> bool:
        """`node` is a method of the file's own class without a base, called by name only."""
        name = node.name.value
        cls = self.plain_classes[-1] if self.plain_classes else None
        return (
            cls is not None
            and any(s is node for s in cls.body.body)
            and (name == "__init__" or not (name.startswith("__") and name.endswith("__")))
            and not node.decorators
            and bool(node.params.params)
        )

    def leave_FunctionDef(self, node) -> None:
        self.scopes.pop()
        self.methods.pop()

    def visit_Lambda(self, node) -> None:
        for param in _params(node.params):
            self._add(param.name.value, "origin", UNKNOWN, id(node))
        self._enter(node, node.body)

    def leave_Lambda(self, node) -> None:
        self.scopes.pop()

    def visit_ClassDef(self, node) -> None:
        self._add(node.name.value, "origin", PLAIN)
        self._enter(node, node.body)
        bases = [b.value for b in node.bases]
        plain = all(m.matches(b, m.Name("object")) for b in bases) and not node.keywords
        own = plain and any(s is node for s in self.flow.module.body)
        self.plain_classes.append(node if own else None)

    def leave_ClassDef(self, node) -> None:
        self.scopes.pop()
        self.plain_classes.pop()

    def visit_Call(self, node) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _PUTTING:
            root = root_name(func.value)
            if root is not None:  # `history.append(x)`: it holds x
                for arg in node.args:
                    self._add(root, "value", (arg.value, ("container",)))
                    self._add_attribute(func.value, "value", (arg.value, ("container",)))


def _params(params: cst.Parameters) -> list[cst.Param]:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    kwargs = [params.star_kwarg] if params.star_kwarg is not None else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *kwargs]
