"""Callbacks registered on a trainer class and triggered at one place: inlined there (TL155).

    class Trainer:                                      class Trainer:
        def __init__(self, model):                          def __init__(self, model):
            self.model = model                                  self.model = model
            self.callbacks = defaultdict(list)
        def add_callback(self, onevent, callback):          def run(self):
            self.callbacks[onevent].append(callback)            for x, y in loader:
        def trigger_callbacks(self, onevent):      ->               ...
            for callback in self.callbacks.get(onevent, []):        self.loss = loss
                callback(self)                                      if self.iter_num % 10 == 0:
        def run(self):                                                  print(self.loss.item())
            for x, y in loader:                                     self.iter_num += 1
                ...
                self.loss = loss                        trainer = Trainer(model)
                self.trigger_callbacks("on_batch_end")  trainer.run()
                self.iter_num += 1

    def batch_end_callback(trainer):
        if trainer.iter_num % 10 == 0:
            print(trainer.loss.item())

    trainer = Trainer(model)
    trainer.add_callback("on_batch_end", batch_end_callback)
    trainer.run()

minGPT's trainer keeps its callbacks in a dict of lists, filled by the script before the run
and called with the trainer itself at one place of the step loop. The callbacks are then
calls at that place: each one's body, its parameter read as `self`, replaces the trigger
(in the order they were registered; a trigger of an event nothing registered is removed),
the registrations and the registry go. The result is a trainer class like any other,
inlined by trainer_inline.py, and it is never written itself.

The registry is recognised by what it does, not by its names: an attribute `__init__` sets to
`defaultdict(list)` (or `{}`), used only by methods whose whole body appends one callback to
an event's list (`self.R[e].append(f)`, `self.R.setdefault(e, []).append(f)`), replaces the
list by one (`self.R[e] = [f]`), or calls each of an event's callbacks with `self`
(`for c in self.R.get(e, []): c(self)`).

Refused (TL156, naming the line): a registration that is not a statement of the block
creating the instance, before it runs, with a literal event and a function of the module
defined once; a trigger that is not `self.trigger("event")` as a statement of a method; an
event triggered at several places, or a callback registered twice; a callback with other
parameters than the trainer, a `yield`, `global` or a nested scope, a `return` other than a
bare one skipping the rest of its body (minGPT's `if trainer.iter_num % 100 != 0: return`
is inlined as `if not (...): <the rest>`, source/guard_returns.py), a decorator, or a global
it reads that the method binds. Its locals that the method also spells get fresh names
(`x` -> `x_2`), unless it calls `locals()`, `vars()`, `eval` or `exec`.
"""

from __future__ import annotations

import ast
import symtable
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

from ..analysis.names import (
    bound_names,
    collect_names,
    file_identifiers,
    only_module_binding,
    rename,
)
from ..emit.unused_imports import drop_unused_imports
from ..rule import Rule, Unsupported
from ..source.guard_returns import without_returns
from .step_inline import _Replace
from .trainer_inline import (
    _attribute_locals,
    _same_object,
    bind_call,
    line_origin,
    run_blocks,
)
from .trainer_shared import _stores

_EXAMPLE_CLASS = """
from collections import defaultdict


class Runner:
    def __init__(self, net, data):
        self.net = net
        self.data = data
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
        self.callbacks = defaultdict(list)
        self.step = 0

    def add_callback(self, onevent, callback):
        self.callbacks[onevent].append(callback)

    def trigger_callbacks(self, onevent):
        for callback in self.callbacks.get(onevent, []):
            callback(self)

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.data:
                self.opt.zero_grad()
                self.loss = criterion(self.net(x), y)
                self.loss.backward()
                self.opt.step()
                self.trigger_callbacks("on_batch_end")
                self.step += 1


"""

CALLBACKS_INLINED = Rule(
    "TL155",
    "callbacks registered on a trainer class were inlined where the class triggers them",
    """The trainer keeps callbacks in a dict of lists (minGPT's `add_callback` /
    `trigger_callbacks`), registered by the script before the run and called with the trainer
    at one place: each callback's body, its parameter read as `self`, replaces that trigger,
    in the order of registration. The registrations and the registry are removed; then the
    class is inlined (TL170) and the loop converted.""",
    "Nothing to do; review the diff.",
    _EXAMPLE_CLASS
    + """def report(trainer):
    if trainer.step % 2 == 0:
        print(trainer.step, trainer.loss.item())


runner = Runner(model, loader)
runner.add_callback("on_batch_end", report)
runner.fit(2)
""",
    converts=True,
)

CALLBACK_SHAPE = Rule(
    "TL156",
    "a callback registered on the trainer class cannot be inlined where it is triggered",
    """A callback is inlined at the one place its event is triggered (TL155) only when that is
    a plain call at that place: registered by a statement of the block creating the instance,
    before the run, with a literal event and a function of the module defined once (a
    registration in a loop, under an `if`, after the run, or a function bound again may call
    something else); triggered by one statement `self.trigger("event")` (two places would
    need two copies); a function taking only the trainer, without `yield`, `global` or a
    nested function, returning early only by a bare `return` that skips the rest of its body
    (in an `if` of it: the rest then runs in the branch that goes on; not in a loop, a `with`
    or a `try`), whose globals the method holding the trigger does not bind (inlined, they
    would meet; its locals that the method spells get fresh names, unless it calls
    `locals()`, `vars()`, `eval` or `exec`).""",
    """Call the function where the trainer triggers the event (`report(self)`), or rename the
    names that meet.""",
    _EXAMPLE_CLASS
    + """def report(trainer):
    for every in (2, 3):
        if trainer.step % every == 0:
            return
    print(trainer.step, trainer.loss.item())


runner = Runner(model, loader)
runner.add_callback("on_batch_end", report)
runner.fit(2)
""",
)

RULES = (CALLBACKS_INLINED, CALLBACK_SHAPE)

_SELF_ATTR = m.Attribute(value=m.Name("self"))
_DEFAULTDICT = m.Call(
    func=m.Name("defaultdict") | m.Attribute(m.Name("collections"), m.Name("defaultdict")),
    args=[m.Arg(m.Name("list"), keyword=None)],
)
_EMPTY_DICT = m.Dict(elements=[]) | m.Call(func=m.Name("dict"), args=[])


@dataclass
class InlinedCallbacks:
    """The script with the callbacks in place, where each line came from, the report."""

    text: str
    origin: list[int]
    indent: list[int]
    at: tuple[int, int]  # the first trigger's line and column
    message: str


@dataclass
class _Registry:
    attr: str  # `self.callbacks`
    created: cst.SimpleStatementLine  # `self.callbacks = defaultdict(list)` in `__init__`
    adds: set[str] = field(default_factory=set)  # methods appending one callback
    sets: set[str] = field(default_factory=set)  # methods replacing an event's list by one
    triggers: set[str] = field(default_factory=set)  # methods calling an event's callbacks


def inline_callbacks(module: cst.Module, cls: cst.ClassDef) -> InlinedCallbacks | None:
    """The script with the callbacks the class triggers inlined, None when the class keeps no
    callback registry that its methods trigger, Unsupported (TL156) when they cannot be."""
    methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    registry = _registry(methods)
    if registry is None:
        return None
    owner = cls.name.value
    triggers = _trigger_sites(owner, methods, registry)
    if not triggers:
        return None
    creations = [
        (block, stmt, loops or not isinstance(scope, (cst.Module, cst.If)), scope)
        for block, scope, loops in run_blocks(module)
        for stmt in block
        if m.matches(
            stmt,
            m.SimpleStatementLine(
                [m.Assign([m.AssignTarget(m.Name())], m.Call(func=m.Name(owner)))]
            ),
        )
    ]
    if len(creations) != 1:
        return None  # trainer_inline.py says why the class is not used once (TL171)
    block, created, local, scope = creations[0]
    instance = created.body[0].targets[0].target.value
    registrations, events = _registrations(module, owner, instance, block, created, registry)
    functions = _callbacks(module, owner, events, registrations, block, scope)
    replaced: dict[int, list | None] = {id(s): [] for s, _ in registrations}
    pairs: list = []
    placed = []
    taken = file_identifiers(module.code, "<callbacks>")  # fresh names for meeting locals
    for event, sites in triggers.items():
        callbacks = events.get(event, [])
        if callbacks and len(sites) > 1:
            raise Unsupported(
                CALLBACK_SHAPE,
                f"event {event!r} is triggered at {len(sites)} places of `{owner}`: its callbacks "
                "would be inlined twice",
                sites[1][0],
            )
        for stmt, method in sites:
            new = []  # (statement placed, the callback's statement it came from)
            for name in callbacks:
                held = set() if local else _held_globals(module, methods, method, stmt, created)
                top, inner, fresh = _inlined_body(
                    owner, functions[name], method, stmt, held, taken
                )
                new += top
                pairs += inner  # statements an early return's rewrite moved into a branch
                taken |= set(fresh.values())
                shown = ", ".join(f"`{a}` -> `{b}`" for a, b in fresh.items())
                placed.append(f"`{name}` ({event!r}{'; its ' + shown if shown else ''})")
            if new:
                first, source = new[0]
                new[0] = (first.with_changes(leading_lines=stmt.leading_lines), source)
            elif _alone(method, stmt):  # the block needs a statement
                new = [(cst.SimpleStatementLine([cst.Pass()], stmt.leading_lines), stmt)]
            pairs += new
            replaced[id(stmt)] = [placed_stmt for placed_stmt, _ in new]
    init = methods["__init__"]
    if len([s for s in init.body.body if not _docstring(s)]) > 1:
        replaced[id(registry.created)] = []
    for name, function in functions.items():
        if not _other_uses(module, function, registrations):
            replaced[id(function)] = []
    flat = module.visit(_Replace(replaced, pairs))
    # `from collections import defaultdict` of the registry alone goes with it
    flat = drop_unused_imports(module.code, flat, "<callbacks>")
    origin, indent = line_origin(module, flat, pairs)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    first = min(
        (positions[s].start for sites in triggers.values() for s, _ in sites),
        key=lambda p: (p.line, p.column),
    )
    message = (
        f"callbacks registered on `{instance}` inlined where `{owner}` triggers them: "
        + (", ".join(placed) if placed else "none registered")
        + "; the registrations and the registry removed"
    )
    return InlinedCallbacks(flat.code, origin, indent, (first.line, first.column), message)


# -- the registry -----------------------------------------------------------------------------


def _registry(methods: dict[str, cst.FunctionDef]) -> _Registry | None:
    """The attribute `__init__` makes a dict of callback lists, when every method using it is
    one of the three registry methods; None otherwise (not a registry: the class is inlined,
    or refused, as it is)."""
    init = methods.get("__init__")
    if init is None:
        return None
    for stmt in init.body.body:
        if not m.matches(
            stmt,
            m.SimpleStatementLine(
                [m.Assign([m.AssignTarget(_SELF_ATTR)], _DEFAULTDICT | _EMPTY_DICT)]
            ),
        ):
            continue
        attr = stmt.body[0].targets[0].target.attr.value
        found = _Registry(attr, stmt)
        keyed = m.matches(stmt.body[0].value, _DEFAULTDICT)  # `self.R[e]` needs the default
        uses = m.Attribute(m.Name("self"), m.Name(attr))
        for name, method in methods.items():
            mentions = len(m.findall(method, uses))
            if name == "__init__":
                if mentions == 1:
                    continue
                break
            if not mentions:
                continue
            kind = _registry_method(method, attr, keyed)
            if kind is None:
                break
            getattr(found, kind).add(name)
        else:
            if found.triggers and (found.adds or found.sets):
                return found
    return None


def _registry_method(method: cst.FunctionDef, attr: str, keyed: bool) -> str | None:
    """ "adds", "sets" or "triggers" for a method that does only that with `self.<attr>`."""
    body = [s for s in method.body.body if not _docstring(s)]
    params = method.params
    if (
        len(body) != 1
        or method.decorators
        or params.star_arg not in (None, cst.MaybeSentinel.DEFAULT)
    ):
        return None
    if params.kwonly_params or params.star_kwarg or params.posonly_params:
        return None
    names = [p.name.value for p in params.params]
    if any(p.default is not None for p in params.params):
        return None
    registry = m.Attribute(m.Name("self"), m.Name(attr))
    stmt = body[0]
    if names[:1] == ["self"] and len(names) == 3:
        event, callback = m.Name(names[1]), m.Name(names[2])
        list_of_event = (
            m.Subscript(value=registry, slice=[m.SubscriptElement(slice=m.Index(value=event))])
            if keyed
            else m.MatchIfTrue(lambda _: False)  # a plain dict has no list to append to
        )
        defaulted = m.Call(
            m.Attribute(registry, m.Name("setdefault")),
            [m.Arg(event, keyword=None), m.Arg(m.List([]), keyword=None)],
        )
        append = m.Call(
            m.Attribute(list_of_event | defaulted, m.Name("append")),
            [m.Arg(callback, keyword=None)],
        )
        if m.matches(stmt, m.SimpleStatementLine([m.Expr(append)])):
            return "adds"
        replace = m.Assign(
            [
                m.AssignTarget(
                    m.Subscript(
                        value=registry, slice=[m.SubscriptElement(slice=m.Index(value=event))]
                    )
                )
            ],
            m.List([m.Element(callback)]),
        )
        if m.matches(stmt, m.SimpleStatementLine([replace])):
            return "sets"
    if names[:1] == ["self"] and len(names) == 2 and isinstance(stmt, cst.For):
        event = m.Name(names[1])
        listed = m.Call(
            m.Attribute(registry, m.Name("get")),
            [m.Arg(event, keyword=None), m.Arg(m.List([]) | m.Tuple([]), keyword=None)],
        )
        if keyed:
            listed = listed | m.Subscript(
                value=registry, slice=[m.SubscriptElement(slice=m.Index(value=event))]
            )
        if not (m.matches(stmt.target, m.Name()) and m.matches(stmt.iter, listed)):
            return None
        called = m.Call(m.Name(stmt.target.value), [m.Arg(m.Name("self"), keyword=None)])
        if stmt.orelse is None and m.matches(
            stmt.body, m.IndentedBlock([m.SimpleStatementLine([m.Expr(called)])])
        ):
            return "triggers"
    return None


# -- where they are triggered and registered --------------------------------------------------


def _trigger_sites(owner: str, methods, registry: _Registry) -> dict[str, list]:
    """event -> [(statement `self.trigger("event")`, the method holding it)], in class order."""
    sites: dict[str, list] = {}
    registry_methods = registry.adds | registry.sets | registry.triggers
    for name, method in methods.items():
        if name in registry_methods:
            continue
        statements = {
            id(s.body[0].value): s
            for s in m.findall(method, m.SimpleStatementLine([m.Expr(m.Call())]))
        }
        for use in m.findall(method, m.Attribute(m.Name("self"), m.Name())):
            called = use.attr.value
            if called not in registry_methods:
                continue
            call = next((c for c in m.findall(method, m.Call(func=use)) if c.func is use), None)
            stmt = statements.get(id(call)) if call is not None else None
            event = _event(call.args[0].value) if call is not None and len(call.args) == 1 else None
            if called not in registry.triggers or stmt is None or not isinstance(event, str):
                raise Unsupported(
                    CALLBACK_SHAPE,
                    f"`{owner}.{name}` uses `self.{called}` other than as a statement "
                    f'`self.{called}("event")` triggering a literal event',
                    next(
                        (
                            s
                            for s in m.findall(method, m.SimpleStatementLine())
                            if any(a is use for a in m.findall(s, m.Attribute()))
                        ),
                        method,
                    ),
                )
            sites.setdefault(event, []).append((stmt, method))
    return sites


def _registrations(module, owner: str, instance: str, block: list, created, registry):
    """[(statement, its call)] of the script's registrations, and event -> the names of the
    functions registered for it, in the order the trigger calls them."""
    registering = registry.adds | registry.sets
    calls = [
        c
        for c in m.findall(module, m.Call(func=m.Attribute(m.Name(instance), m.Name())))
        if c.func.attr.value in registering
    ]
    position = {id(s): k for k, s in enumerate(block)}
    start = position[id(created)]
    # the first statement after the creation calling anything else on the instance: the run
    ran = next(
        (
            k
            for k, s in enumerate(block)
            if k > start
            and any(
                c.func.attr.value not in registering
                for c in m.findall(s, m.Call(func=m.Attribute(m.Name(instance), m.Name())))
            )
        ),
        len(block),
    )
    found, events = [], {}
    by_call = {
        id(s.body[0].value): s for s in block if m.matches(s, m.SimpleStatementLine([m.Expr()]))
    }
    for call in calls:
        method = call.func.attr.value
        stmt = by_call.get(id(call))
        where = stmt if stmt is not None else created
        if stmt is None or not start < position[id(stmt)] < ran:
            raise Unsupported(
                CALLBACK_SHAPE,
                f"`{instance}.{method}(...)` is not a statement of the block creating "
                f"`{instance}`, between `{instance} = {owner}(...)` and its run",
                where,
            )
        args = call.args
        event = _event(args[0].value) if len(args) == 2 else None
        if (
            any(a.keyword is not None or a.star for a in args)
            or not isinstance(event, str)
            or not isinstance(args[1].value, cst.Name)
        ):
            raise Unsupported(
                CALLBACK_SHAPE,
                f"`{instance}.{method}(...)` does not register a function by its name for a "
                "literal event",
                stmt,
            )
        name = args[1].value.value
        if method in registry.sets:
            events[event] = [name]
        else:
            events.setdefault(event, []).append(name)
        found.append((stmt, call))
    return found, events


def _callbacks(
    module, owner: str, events: dict, registrations, block, scope
) -> dict[str, cst.FunctionDef]:
    """The functions registered (each once), checked to run the same inlined: a function the
    module defines once, or one the block creating the instance defines once (chargpt's
    callback under `if __name__ == "__main__":`, or in a `main()`)."""
    named = [n for names in events.values() for n in names]
    at = {r[1].args[1].value.value: r[0] for r in registrations}
    functions = {}
    for name in named:
        stmt = at[name]
        if named.count(name) > 1:
            raise Unsupported(
                CALLBACK_SHAPE, f"`{name}` is registered more than once: it would run twice", stmt
            )
        function = only_module_binding(module, name)
        if function is scope or scope is not module and function is None:
            function = _defined_in_block(block, scope, name)
        if not isinstance(function, cst.FunctionDef) or _declared_global(module, name):
            raise Unsupported(
                CALLBACK_SHAPE,
                f"`{name}` is not a function the module defines once (which object the "
                "registration holds is not known)",
                stmt,
            )
        _check_shape(function)
        functions[name] = function
    return functions


def _defined_in_block(block: list, scope, name: str) -> cst.FunctionDef | None:
    """The `def` of `name` in `block` (the `if __name__ == "__main__":` body, or a function's)
    when it is the only statement of its scope binding `name`: for the `if`, the module
    binds it nowhere else (the caller checked the `if` is the module's only binding); for a
    function, no other statement of its body does (nested blocks included)."""
    binders = [s for s in block if name in bound_names(s)]
    if len(binders) != 1 or not isinstance(binders[0], cst.FunctionDef):
        return None
    if isinstance(scope, cst.FunctionDef):
        everywhere = [s for s in scope.body.body if name in bound_names(s)]
        if everywhere != binders or name in {p.name.value for p in scope.params.params}:
            return None
    return binders[0]


def _check_shape(function: cst.FunctionDef) -> None:
    name = function.name.value
    params = function.params
    why = None
    if function.decorators or function.asynchronous:
        why = "is decorated or async"
    elif (
        len(params.params) != 1
        or params.posonly_params
        or params.kwonly_params
        or params.star_kwarg is not None
        or isinstance(params.star_arg, cst.Param)
        or params.params[0].default is not None
    ):
        why = "takes other parameters than the trainer"
    elif m.findall(function.body, m.Yield() | m.Global() | m.Nonlocal()):
        why = "has a `yield`, `global` or `nonlocal`"
    elif m.findall(function.body, m.FunctionDef() | m.ClassDef() | m.Lambda()):
        why = "defines a nested function, class or lambda"
    elif without_returns(function.body.body) is None:  # source/guard_returns.py
        why = (
            "returns other than by a bare `return` skipping the rest of its body (in a loop, "
            "a `with` or a `try`, with a value, or before code two branches would run)"
        )
    elif "self" in collect_names(function.body).all():
        why = "uses the name `self`, which its parameter becomes"
    if why is not None:
        raise Unsupported(CALLBACK_SHAPE, f"callback `{name}()` {why}: not inlined", function)


def _inlined_body(owner: str, function, method, trigger, held: set[str], taken: set[str]):
    """(statement, the function's statement it came from): the function's statements with
    its parameter read as `self`, its locals that the names of `method` where they land
    would meet given fresh names (`x` -> `x_2`: a local is the function's alone), and its
    bare `return`s made blocks (guard_returns.py); then the same pairs for the statements a
    rewritten `if` holds now, for the line origins; and the locals renamed. A global it
    reads that the method binds is refused (`held`: names the method binds to the module's
    object of that name, see _held_globals)."""
    param = function.params.params[0].name.value
    original = [s for s in function.body.body if not _docstring(s)]
    body = original
    own = collect_names(*body)
    local = _own_locals(function) - {param}
    there = collect_names(method.body)
    bound_there = there.writes | {p.name.value for p in method.params.params}
    frees = own.reads - own.writes
    meets = sorted(frees & bound_there - held)
    meeting = sorted(local & (there.all() | bound_there))
    if meeting and m.findall(function.body, _DYNAMIC):  # `locals()` would show the renaming
        meets = meeting
    if meets:
        raise Unsupported(
            CALLBACK_SHAPE,
            f"callback `{function.name.value}()` inlined into `{owner}.{method.name.value}` "
            f"would share `{meets[0]}` with it (a local of one, or a global the other binds)",
            trigger,
        )
    fresh: dict[str, str] = {}
    for name in meeting:
        fresh[name] = _fresh(name, taken | there.all() | set(fresh.values()))
    if fresh:
        body = [rename(stmt, {a: cst.Name(b) for a, b in fresh.items()}) for stmt in body]
    renamed = [(rename(new, {param: cst.Name("self")}), old) for new, old in zip(body, original)]
    placed = without_returns([new for new, _ in renamed])
    source = {id(new): stmt for new, stmt in renamed}
    # the one `if` rewritten stands where the first statement holding a return stood
    rewritten = next((stmt for stmt in original if m.findall(stmt, m.Return())), None)
    top = [(new, source.get(id(new), rewritten)) for new in placed]
    inner = [pair for pair in renamed if id(pair[0]) not in {id(n) for n in placed}]
    return top, inner, fresh


_DYNAMIC = m.Call(func=m.Name("locals") | m.Name("vars") | m.Name("eval") | m.Name("exec"))


def _own_locals(function: cst.FunctionDef) -> set[str]:
    """The function's locals by Python's scopes (not a comprehension's own variables)."""
    code = cst.Module(body=[function.with_changes(decorators=[])]).code
    table = next(iter(symtable.symtable(code, "<callback>", "exec").get_children()))
    return {s.get_name() for s in table.get_symbols() if s.is_local() or s.is_parameter()}


def _fresh(base: str, taken: set[str]) -> str:
    name, n = f"{base}_2", 3
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def _held_globals(module, methods, method, trigger, created) -> set[str]:
    """Names `method` binds, before the statement holding `trigger`, to the attribute of the
    same name (`model, config = self.model, self.config`) that holds the module's object of
    that name: `__init__` stores the parameter given the module's `model` (`self.model =
    model`, moved in place by `self.model = self.model.to(device)`), nothing else rebinds
    the attribute, and the module binds `model` once. A callback reading the global `model`
    reads the same object there, inlined. The instance is created at module level."""
    init = methods["__init__"]
    owner = created.body[0].value.func.value
    args = bind_call(init, created.body[0].value, owner, created, CALLBACK_SHAPE, skip=1)
    init_writes = collect_names(init.body).writes
    top = list(method.body.body)
    at = next(k for k, s in enumerate(top) if s is trigger or _holds(s, trigger))
    found = set()
    for param, value in args:
        name = value.value if isinstance(value, cst.Name) else None
        if name is None or param in init_writes:
            continue
        stores = _stores(init, name)
        rebound = any(_stores(other, name) for n, other in methods.items() if n != "__init__")
        first = [
            s.body[0]
            for s in init.body.body
            if m.matches(s, m.SimpleStatementLine([m.Assign()]))
            and any(s.body[0] is store for store in stores)
        ]
        if (
            rebound
            or not first
            or not m.matches(first[0].value, m.Name(param))
            or not all(_same_object(store, param) for store in stores)
            or name not in _attribute_locals(method, {name}, set())
            or only_module_binding(module, name) is None
            or _declared_global(module, name)
        ):
            continue
        binding = next(k for k, s in enumerate(top) if name in collect_names(s).writes)
        if binding < at:
            found.add(name)
    return found


def _holds(stmt, inner) -> bool:
    return any(s is inner for s in m.findall(stmt, m.SimpleStatementLine()))


def _alone(method: cst.FunctionDef, stmt) -> bool:
    """`stmt` is the only statement of its block (removed, the block would be empty)."""
    return any(
        len(block.body) == 1 and block.body[0] is stmt
        for block in m.findall(method, m.IndentedBlock())
    )


def _other_uses(module, function, registrations) -> bool:
    registered = {id(call.args[1].value) for _, call in registrations}
    name = function.name.value
    return any(
        id(n) not in registered and n is not function.name for n in m.findall(module, m.Name(name))
    )


def _declared_global(module: cst.Module, name: str) -> bool:
    """A function of the file declaring `global name`: a call could rebind it."""
    stack = list(symtable.symtable(module.code, "<callbacks>", "exec").get_children())
    while stack:
        table = stack.pop()
        if name in table.get_identifiers() and table.lookup(name).is_declared_global():
            return True
        stack.extend(table.get_children())
    return False


def _event(node: cst.BaseExpression):
    if isinstance(node, cst.SimpleString):
        return ast.literal_eval(node.value)
    return None


def _docstring(stmt) -> bool:
    return m.matches(stmt, m.SimpleStatementLine([m.Expr(m.SimpleString())]))
