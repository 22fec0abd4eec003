"""The model's train/eval mode along a piece of code, in the order Python runs it.

    model.train()                          TRAIN
    for epoch in range(4):
        for x, y in loader:
            loss = loss_fn(model(x), y)    TRAIN in the first epoch, EVAL in the later ones
            ...
        evaluate(model, val_loader)        # its body calls model.eval(), nothing switches back

A mode is a term, so that two runs of code (the script's, its conversion's) can be compared:
- TRAIN / EVAL: set by `model.train()`, `model.train(True)`, `model.eval()`,
  `model.train(False)`, or by building a module (every new module is in train mode);
- INITIAL: whatever the model was in when the traced code began (the same object in both runs);
- CALLED: a call the tracer cannot look into, applied to the mode before it
  (`model.train(flag)`, `ema.update(model)` of a library, `net.apply(fn)`): the same call at
  the same place leaves the same mode; applied twice in a row it counts once;
- EITHER: the modes the branches of an `if` (or the iterations of a loop) may leave, equal in
  two runs whose alternatives are the same;
- UNKNOWN: the model rebound to something else, a loop whose mode does not settle
  (settle()): equal to nothing, not even itself.

Calls are followed into the script's own functions and methods (a parameter handed the model
is the model there, a global model read there is too, `self` in a method of the model's class;
decorated by nothing but torch), a few levels deep; a callee that only takes the model's state
(analysis/model_handoff.py) or a builtin, torch function or copy given the model switches
nothing, nor does calling a submodule of a model class of the file (`self.lstm(x)`). Not
followed: the mode of a submodule (`model.backbone.eval()`), kept as written by both runs.

Runs of the model are recorded where they happen, call by call in the order Python makes them:
a function of the script a statement calls records its own runs, in the modes it finds
(`print(f"{accuracy(model):.3f}")` where `accuracy` calls `net.eval()` first runs the model in
eval mode, whatever mode the statement found), those of every branch and loop iteration (the
first, then the later ones); a call the tracer cannot follow, or other reads of the mode
(`model.training`), where they stand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import libcst as cst
import libcst.matchers as m

from ..source.code_text import code_of
from .function_reads import names_reading
from .model_handoff import callee_of, only_reads_state
from .names import definition_reads, only_module_binding

TRAIN, EVAL, INITIAL = "train", "eval", "initial"
CALLED, EITHER, UNKNOWN = "called", "either", "unknown"
_DEPTH = 4  # callees followed through; deeper calls are opaque
_ROUNDS = 4  # iterations of a loop followed until its mode settles

# methods of a torch module that never switch its mode
MODE_KEEPING_METHODS = frozenset(
    {
        *("parameters", "named_parameters", "buffers", "named_buffers", "state_dict"),
        *("modules", "named_modules", "children", "named_children", "load_state_dict"),
        *("zero_grad", "requires_grad_", "to", "cuda", "cpu", "float", "double", "half"),
        *("bfloat16", "forward", "register_buffer", "register_forward_hook", "type"),
        *("register_forward_pre_hook", "register_full_backward_hook", "get_submodule"),
        *("get_parameter", "get_buffer", "extra_repr", "share_memory", "__call__"),
    }
)


# methods every torch module has that may switch modes (`net.apply(set_bn_eval)`)
_SWITCHING_MODULE_METHODS = frozenset({"apply", "train", "eval", "__setstate__"})


@dataclass(frozen=True, eq=False)
class Mode:
    """A mode term (see the module's docstring); `origin` is the statement that set it."""

    kind: str
    key: str = ""  # CALLED: the call's code
    before: Mode | None = None  # CALLED: the mode it was applied to
    alternatives: frozenset = frozenset()  # EITHER: the modes it may be
    origin: object = field(default=None, compare=False)
    calls: tuple = field(default=(), compare=False)  # CALLED: the calls' code (said in messages)

    def _term(self) -> tuple:
        return (self.kind, self.key, self.before, self.alternatives)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Mode) or UNKNOWN in (self.kind, other.kind):
            return False
        return self._term() == other._term()

    def __hash__(self) -> int:
        return hash(self._term()) if self.kind != UNKNOWN else id(self)


def join(a: Mode, b: Mode, origin=None) -> Mode:
    """The mode after code that may have left either: EITHER of their alternatives, taken
    as equal in two runs when they are (the same branches of the same statement)."""
    if a == b:
        return a
    if UNKNOWN in (a.kind, b.kind):
        return Mode(UNKNOWN, origin=origin or b.origin or a.origin)
    alternatives = _alternatives(a) | _alternatives(b)
    # the origin said in messages: the branch's that is not the way it came in
    return Mode(EITHER, alternatives=alternatives, origin=b.origin or a.origin or origin)


def _alternatives(mode: Mode) -> frozenset:
    return mode.alternatives if mode.kind == EITHER else frozenset({mode})


def called(key: str, before: Mode, origin) -> Mode:
    """The mode a call the tracer cannot look into leaves, applied to `before`."""
    if before.kind == CALLED and before.key == key:
        return before  # the same call again: it counts once
    if before.kind == UNKNOWN:
        return Mode(UNKNOWN, origin=origin)
    if before.kind == EITHER:  # applied to either mode: either result
        results = [called(key, mode, origin) for mode in before.alternatives]
        joined = results[0]
        for result in results[1:]:
            joined = join(joined, result, origin)
        return joined
    return Mode(CALLED, key, before, origin=origin, calls=(key,))


def settle(step: Callable[[Mode], Mode], entry: Mode) -> Mode:
    """The mode the second and later iterations of a loop start in, the first having left
    `entry`; `step` runs one iteration. Any mode an iteration may leave, while that settles
    in a few rounds; else, when each iteration only applies the same calls the tracer
    cannot look into (`model.step_hook(x)`), those calls repeated after `entry`: the same
    term in two runs making the same calls; else UNKNOWN."""
    current = entry
    for _ in range(_ROUNDS):
        joined = join(current, step(current))
        if joined == current:
            return current
        current = joined
    keys, calls = [], []
    applied = step(_VAR)
    while applied.kind == CALLED:
        keys.append(applied.key)
        calls.extend(reversed(applied.calls or (applied.key,)))
        applied = applied.before
    if applied is _VAR and keys:
        key = "(" + "; ".join(reversed(keys)) + ")*"
        return Mode(CALLED, key, entry, origin=entry.origin, calls=tuple(reversed(calls)))
    return Mode(UNKNOWN, origin=current.origin)


_VAR = Mode("var")  # stands for the mode an iteration starts in (settle())


@dataclass
class Run:
    """A statement running the model, and the mode it found the model in."""

    stmt: cst.CSTNode
    mode: Mode


class ModeTracer:
    """Follows the mode of the names `models` (one model) through statements.

    `observes(call, names)`: whether the call itself (its arguments aside) runs the model held
    by `names` (its mode is recorded there, or where the script's function it calls runs it:
    `print(accuracy(model))` runs it in the mode `accuracy` sets first); `reads(node, names)`:
    whether code there observes the mode otherwise (`model.training`, the model object handed
    on), recorded where the simple statement or the head holding it starts;
    `harmless(call, name)`: whether handing model `name` to `call` cannot switch its mode
    (builtins, torch, copies, device moves); `builds_module(value, position)`: whether the
    value (its element `position` when unpacked) is a new module, in train mode;
    `model_class`: the model's class of the file,
    whose methods are followed; `nonempty`: ids of loops known to run at least once."""

    def __init__(
        self,
        ctx,
        models: set[str],
        *,
        observes: Callable[[cst.Call, frozenset], bool] | None = None,
        reads: Callable[[cst.CSTNode, frozenset], bool] | None = None,
        harmless: Callable[[cst.Call, str], bool] | None = None,
        builds_module: Callable[[cst.BaseExpression, int | None], bool] | None = None,
        model_class: cst.ClassDef | None = None,
        nonempty: set[int] | None = None,
        depth: int = _DEPTH,
        every_statement: bool = False,
    ) -> None:
        self.ctx = ctx
        self.models = frozenset(models)
        self.observes = observes  # None: nothing recorded
        self.reads = reads or (lambda node, models: False)
        self.harmless = harmless or (lambda call, name: False)
        self.builds_module = builds_module or (lambda value, position: False)
        self.model_class = model_class
        self.nonempty = nonempty or set()
        self.depth = depth
        # definitions and statements not followed (`match`) recorded too when they run the model
        # (code after training, where a definition running the model may be run by anything)
        self.every_statement = every_statement
        # a function of the script followed for its runs: the model object going where the
        # tracer does not follow it (an alias, a lambda) counts as a run there
        self.escapes = False
        self._traced = False  # the last call was followed into, its runs recorded
        self.recorded: list[Run] = []
        self.returned: list[Mode] = []  # modes at `return` statements (a callee's)
        self._cls: cst.ClassDef | None = None  # the class whose method is traced

    # -- statements -------------------------------------------------------------------------
    def block(self, stmts, mode: Mode) -> Mode:
        for stmt in stmts:
            mode = self.statement(stmt, mode)
        return mode

    def statement(self, stmt, mode: Mode) -> Mode:
        if self.every_statement and not isinstance(stmt, cst.SimpleStatementLine):
            self._record_head(stmt, mode)
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            if self.escapes and _escapes(stmt, self.models):  # (run when called, if ever)
                self.recorded.append(Run(stmt, mode))
            return mode  # a definition runs nothing until it is called
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                mode = self.watched(small, mode, stmt)
                if isinstance(small, cst.Return):
                    self.returned.append(mode)
                if _assigned_names(small) & self.models:
                    mode = self.bound(small, mode, stmt)
            return mode
        if isinstance(stmt, cst.If):
            mode = self.watched(stmt.test, mode, stmt)
            taken = self.block(stmt.body.body, mode)
            other = self._orelse(stmt.orelse, mode)
            return join(taken, other, stmt)
        if isinstance(stmt, (cst.For, cst.While)):
            head = stmt.iter if isinstance(stmt, cst.For) else stmt.test
            mode = self.watched(head, mode, stmt)
            after = self.loop(stmt.body.body, mode, at_least_once=id(stmt) in self.nonempty)
            return self._orelse(stmt.orelse, after) if stmt.orelse is not None else after
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                mode = self.watched(item.item, mode, stmt)
            return self.block(stmt.body.body, mode)
        if isinstance(stmt, cst.Try):
            done = self.block(stmt.body.body, mode)
            if stmt.orelse is not None:
                done = self.block(stmt.orelse.body.body, done)
            anywhere = join(mode, done, stmt)  # a handler may start at any point of the body
            for handler in stmt.handlers:
                done = join(done, self.block(handler.body.body, anywhere), stmt)
            if stmt.finalbody is not None:
                done = self.block(stmt.finalbody.body.body, done)
            return done
        if self.switches_in(stmt, mode):
            return Mode(UNKNOWN, origin=stmt)  # (match, async statements: not followed)
        return mode

    def _record_head(self, stmt, mode: Mode) -> None:
        """Records a statement the tracer does not look into (a definition, `match`) that runs
        the model anywhere (the heads of the others are watched as they are traced)."""
        if isinstance(stmt, (cst.If, cst.While, cst.For, cst.With, cst.Try)):
            return
        if self.observes is None:
            return
        calls = m.findall(stmt, m.Call())
        if self.reads(stmt, self.models) or any(self.observes(c, self.models) for c in calls):
            self.recorded.append(Run(stmt, mode))

    def _orelse(self, orelse, mode: Mode) -> Mode:
        if orelse is None:
            return mode
        if isinstance(orelse, cst.If):
            return self.statement(orelse, mode)
        return self.block(orelse.body.body, mode)

    def loop(self, body, mode: Mode, at_least_once: bool = False) -> Mode:
        """The mode after a loop over `body` entered in `mode`. The runs of its first
        iteration are recorded, then those of the later ones, entered in any mode an
        earlier iteration may leave (settle())."""
        later = settle(lambda entry: self.quietly(body, entry), self.block(body, mode))
        self.block(body, later)
        return later if at_least_once else join(mode, later, later.origin)

    def quietly(self, body, mode: Mode) -> Mode:
        """The mode after `body`, its runs not recorded."""
        mark = len(self.recorded)
        end = self.block(body, mode)
        del self.recorded[mark:]
        return end

    def bound(self, small, mode: Mode, stmt) -> Mode:
        """The mode after `small` binds a model name: a new module is in train mode, the
        same model keeps its mode, anything else is in the mode its code gives it."""
        value = small.value if isinstance(small, cst.Assign) else None
        if value is None or len(small.targets) != 1:
            return Mode(UNKNOWN, origin=stmt)
        target, position = small.targets[0].target, None
        if isinstance(target, (cst.Tuple, cst.List)):  # `model, opt = get_model()`
            names = [e.value for e in target.elements]
            found = [
                i for i, n in enumerate(names) if m.matches(n, m.Name()) and n.value in self.models
            ]
            if len(found) != 1 or any(isinstance(e, cst.StarredElement) for e in target.elements):
                return Mode(UNKNOWN, origin=stmt)
            position = found[0]
        elif self._same_object(small):
            return mode
        if self.builds_module(value, position):
            return Mode(TRAIN, origin=stmt)
        return called(code_of(small, self.ctx.module), Mode(INITIAL), stmt)

    def _same_object(self, small) -> bool:
        """`model = model.to(device)`, `model = nn.DataParallel(model)`, `raw = model.module`:
        the name still holds the model (a chain of its own methods, the module its wrapper
        holds, or a harmless wrapper given it)."""
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
            return False
        value = small.value
        while m.matches(value, m.Call(func=m.Attribute())) and (
            value.func.attr.value in MODE_KEEPING_METHODS | {"train", "eval"}
        ):
            value = value.func.value
        while m.matches(value, m.Attribute(attr=m.Name("module"))):
            value = value.value  # the module a DataParallel / DDP wrapper of the model holds
        if isinstance(value, cst.Name):
            return value.value in self.models
        if isinstance(value, cst.Call):
            handed = [a.value for a in value.args if isinstance(a.value, cst.Name)]
            names = [n.value for n in handed if n.value in self.models]
            return bool(names) and all(self.harmless(value, n) for n in names)
        return False

    # -- expressions ------------------------------------------------------------------------
    def watched(self, node, mode: Mode, stmt) -> Mode:
        """The mode after `node` (a simple statement's part, a head), its runs recorded."""
        if self.observes is None:
            return self.expression(node, mode, stmt)
        if self.reads(node, self.models) or (self.escapes and _escapes(node, self.models)):
            self.recorded.append(Run(stmt, mode))  # (where `node` starts: nothing switched)
        maybe = self._conditional(node)
        for call in self._calls(node):
            before = mode
            if not self.observes(call, self.models):
                mode = self.call(call, mode, stmt)
            else:
                mark, self._traced = len(self.recorded), False
                mode = self.call(call, mode, stmt, record=True)
                if not self._traced:  # run here, or in code the tracer does not see
                    del self.recorded[mark:]
                    self.recorded.append(Run(stmt, before))
            if id(call) in maybe:
                mode = join(before, mode, stmt)
        return mode

    def expression(self, node, mode: Mode, stmt) -> Mode:
        maybe = self._conditional(node)
        for call in self._calls(node):
            after = self.call(call, mode, stmt)
            mode = join(mode, after, stmt) if id(call) in maybe else after
        return mode

    def _conditional(self, node) -> set[int]:
        """Ids of the calls in `node` Python may not make: on the right of `and` / `or`, in a
        branch of `a if c else b`, in a comprehension (`flag and model.train()`)."""
        found = self.ctx.found.setdefault("conditional_calls", {})
        if id(node) not in found:
            parts = [b.right for b in m.findall(node, m.BooleanOperation())]
            parts += [p for e in m.findall(node, m.IfExp()) for p in (e.body, e.orelse)]
            parts += m.findall(node, m.ListComp() | m.SetComp() | m.GeneratorExp() | m.DictComp())
            ids = {id(c) for part in parts for c in m.findall(part, m.Call())}
            found[id(node)] = (node, ids)  # (node kept: its id stays its own)
        return found[id(node)][1]

    def _calls(self, node) -> list[cst.Call]:
        """_calls_in_order, found once per node (each loop body is traced several times)."""
        found = self.ctx.found.setdefault("calls_in_order", {})
        if id(node) not in found:
            found[id(node)] = (node, _calls_in_order(node))  # (node kept: its id stays its own)
        return found[id(node)][1]

    def switches_in(self, node, mode: Mode) -> bool:
        return any(self.call(call, mode, node) != mode for call in self._calls(node))

    def call(self, call: cst.Call, mode: Mode, stmt, record: bool = False) -> Mode:
        """The mode after `call`; with `record`, the runs of the script's function it calls
        recorded (as runs of `stmt`)."""
        func = call.func
        if m.matches(func, m.Attribute(value=m.Name(), attr=m.Name())) and (
            func.value.value in self.models
        ):
            return self.method(call, func.attr.value, mode, stmt, record)
        handed = [
            a.value.value
            for a in call.args
            if isinstance(a.value, cst.Name) and a.value.value in self.models
        ]
        if handed and all(self.harmless(call, name) for name in handed):
            return mode
        if not handed and not self._may_read_models(func):
            return mode  # no model name reaches it
        target = self.callee(call)
        if target is None:
            return called(code_of(call, self.ctx.module), mode, stmt) if handed else mode
        function, owner = target
        inner = set(_handed_parameters(call, function, owner, self.models))
        inner |= definition_reads(function) & self.models  # a global model it reads
        if not inner:
            return mode
        if handed and only_reads_state(self.ctx, call, self.models):
            return mode
        return self.follow(function, owner, inner, mode, call, stmt, record)

    def _may_read_models(self, func) -> bool:
        """A function of the script (a method of the traced class too) whose body mentions
        a model name, directly or through another: it may reach a global model."""
        if isinstance(func, cst.Name):
            return func.value in self._readers()
        if self._cls is not None and m.matches(func, m.Attribute(m.Name("self"), m.Name())):
            return func.attr.value in self._readers()
        return False

    def _readers(self) -> set[str]:
        cache = self.ctx.found.setdefault("mode_readers", {})
        if self.models not in cache:
            functions = m.findall(self.ctx.module, m.FunctionDef())
            cache[self.models] = names_reading(functions, set(self.models))
        return cache[self.models]

    def method(self, call: cst.Call, name: str, mode: Mode, stmt, record: bool = False) -> Mode:
        """`model.<name>(...)`."""
        if name == "eval" and not call.args:
            return Mode(EVAL, origin=stmt)
        if name == "train":
            flag = train_flag(call)
            if flag is not None:
                return Mode(TRAIN if flag else EVAL, origin=stmt)
            return called(code_of(call, self.ctx.module), mode, stmt)  # `model.train(flag)`
        if name in MODE_KEEPING_METHODS:
            return mode
        receiver = call.func.value.value
        cls = self._cls if receiver == "self" and self._cls is not None else self.model_class
        if cls is None:
            return called(code_of(call, self.ctx.module), mode, stmt)
        method, known = _lookup(self.ctx, cls, name)
        if method is None:
            if known and name not in _SWITCHING_MODULE_METHODS:
                return mode  # a submodule or an attribute of the class: its call keeps the mode
            return called(code_of(call, self.ctx.module), mode, stmt)
        if not _plain(self.ctx, method) or not method.params.params:
            return called(code_of(call, self.ctx.module), mode, stmt)
        receiver = {method.params.params[0].name.value}
        return self.follow(method, cls, receiver, mode, call, stmt, record)

    def callee(self, call: cst.Call):
        """(def, its class or None) of a function of the script the call runs."""
        func = call.func
        if self._cls is not None and m.matches(func, m.Attribute(m.Name("self"), m.Name())):
            method = _method(self.ctx, self._cls, func.attr.value)
            return (method, self._cls) if method is not None else None
        found = callee_of(self.ctx, call, None)
        if found is not None:
            return found
        if isinstance(func, cst.Name):  # decorated by torch (`@torch.no_grad()`), or nested
            defs = _functions_named(self.ctx).get(func.value, [])
            if len(defs) == 1 and _plain(self.ctx, defs[0]):
                return defs[0], None
        return None

    def follow(
        self, function, owner, models: set[str], mode: Mode, call, stmt, record: bool = False
    ) -> Mode:
        """The mode after `call` runs `function` with the model as `models` there; with
        `record`, its runs recorded as runs of `stmt`, in the modes they find there."""
        if self.depth == 0 or m.findall(function.body, m.Yield()):
            return called(code_of(call, self.ctx.module), mode, stmt)
        inner = ModeTracer(
            self.ctx,
            models,
            observes=self.observes if record else None,
            reads=self.reads,
            harmless=self.harmless,
            builds_module=self.builds_module,
            model_class=self.model_class,
            depth=self.depth - 1,
            every_statement=self.every_statement,
        )
        inner._cls = owner
        inner.escapes = self._traced = record
        end = inner.block(function.body.body, mode)
        for run in inner.recorded:
            self.recorded.append(Run(stmt, self._through(run.mode, mode, stmt, function)))
        for returned in inner.returned:
            end = join(end, returned, stmt)
        return self._through(end, mode, stmt, function)

    @staticmethod
    def _through(found: Mode, entry: Mode, stmt, function) -> Mode:
        """`found`, a mode inside `function` called by `stmt` in mode `entry`: set by the
        caller's statement where the callee set it (said in messages)."""
        if found.origin is not None and found != entry:
            return _at(found, stmt, found.origin, function.name.value)
        return found


def _at(mode: Mode, stmt, inner, function: str) -> Mode:
    """`mode` set by `inner`, a statement of the callee `function`, through the caller's
    `stmt`."""
    return replace(mode, origin=Via(stmt, inner, function))


@dataclass(frozen=True)
class Via:
    """The origin of a mode set inside a callee: the caller's statement and the callee's."""

    stmt: cst.CSTNode
    inner: object  # a statement, or another Via
    function: str  # the callee's name

    def innermost(self):
        inner = self.inner
        while isinstance(inner, Via):
            inner = inner.inner
        return inner


def _escapes(node, models) -> bool:
    """The model object goes where the tracer does not follow it: a lambda or a definition
    reading it, or a model name read otherwise than called, as the receiver of a method call
    or handed to a call (those are runs): `alias = net`, `return net`, `net.fc.weight`."""
    nested = m.findall(node, m.Lambda() | m.FunctionDef() | m.ClassDef())
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        nested.append(node)
    for inner in nested:
        if any(n.value in models for n in m.findall(inner, m.Name())):
            return True
    kept = set()
    for call in m.findall(node, m.Call()):
        root = call.func
        while isinstance(root, (cst.Attribute, cst.Subscript)):
            root = root.value
        kept.add(id(root))
        kept |= {id(arg.value) for arg in call.args}
        kept |= {id(arg.keyword) for arg in call.args if arg.keyword is not None}
    for attribute in m.findall(node, m.Attribute()):
        kept.add(id(attribute.attr))
    for target in m.findall(node, m.AssignTarget() | m.AugAssign() | m.AnnAssign()):
        if isinstance(target.target, cst.Name):
            kept.add(id(target.target))
    return any(n.value in models and id(n) not in kept for n in m.findall(node, m.Name()))


def train_flag(call: cst.Call) -> bool | None:
    """True / False for the arguments of `train()`, `train(True)`, `train(mode=False)`, ...;
    None for any other (`train(flag)`)."""
    if not call.args:
        return True
    (arg,) = call.args if len(call.args) == 1 else (None,)
    if arg is None or arg.star or not (arg.keyword is None or arg.keyword.value == "mode"):
        return None
    if m.matches(arg.value, m.Name("True") | m.Name("False")):
        return arg.value.value == "True"
    return None


def mode_set(call: cst.Call) -> str | None:
    """TRAIN / EVAL when `call` is `<x>.train()` / `<x>.eval()` or `<x>.train(<True/False>)`."""
    if not m.matches(call.func, m.Attribute(attr=m.Name())):
        return None
    if call.func.attr.value == "eval" and not call.args:
        return EVAL
    if call.func.attr.value == "train":
        flag = train_flag(call)
        return None if flag is None else TRAIN if flag else EVAL
    return None


def _calls_in_order(node) -> list[cst.Call]:
    """The calls in `node` in the order Python runs them (arguments before the call), not
    those in lambdas or nested definitions (they run later, if ever)."""
    found: list[cst.Call] = []

    def walk(current) -> None:
        if isinstance(current, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            return
        for child in current.children:
            walk(child)
        if isinstance(current, cst.Call):
            found.append(current)

    walk(node)
    return found


def _method(ctx, cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    """Method `name` of `cls` or of a class of the file it derives from, when a call runs
    its body as written (undecorated, or decorated by torch)."""
    method, _ = _lookup(ctx, cls, name)
    if method is None or not _plain(ctx, method) or not method.params.params:
        return None
    return method


def _lookup(ctx, cls: cst.ClassDef, name: str) -> tuple[cst.FunctionDef | None, bool]:
    """(the `def` of method `name` in `cls` or the classes of the file it derives from, or
    None; whether every class it derives from is of the file or torch.nn's: then no method
    but torch.nn.Module's can come from elsewhere)."""
    seen = set()
    while cls is not None and id(cls) not in seen:
        seen.add(id(cls))
        for item in cls.body.body:
            if isinstance(item, cst.FunctionDef) and item.name.value == name:
                return item, True
        following = None
        for base in cls.bases:
            found = None
            if isinstance(base.value, cst.Name):
                found = only_module_binding(ctx.module, base.value.value)
            if isinstance(found, cst.ClassDef) and following is None:
                following = found
            elif not any(q.startswith("torch.nn.") for q in ctx.qualnames(base.value)):
                return None, False
        cls = following
    return None, True


def _assigned_names(small) -> set[str]:
    """Names a simple statement binds by assignment (`a = ...`, `a, b = ...`, `a += ...`)."""
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
    elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
        targets = [small.target]
    else:
        return set()
    names = set()
    while targets:
        target = targets.pop()
        if isinstance(target, cst.Name):
            names.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            targets += [e.value for e in target.elements]
        elif isinstance(target, cst.StarredElement):
            targets.append(target.value)
    return names


def _functions_named(ctx) -> dict[str, list[cst.FunctionDef]]:
    """Every `def` of the file (nested ones and methods too) by name, found once."""
    found = ctx.found.get("functions_named")
    if found is None:
        found = {}
        for function in m.findall(ctx.module, m.FunctionDef()):
            found.setdefault(function.name.value, []).append(function)
        ctx.found["functions_named"] = found
    return found


def _plain(ctx, function: cst.FunctionDef) -> bool:
    """No decorator but torch's own (`@torch.no_grad()`, `@torch.inference_mode()`): the
    body is what a call runs."""
    for decorator in function.decorators:
        names = ctx.qualnames(decorator.decorator)
        if isinstance(decorator.decorator, cst.Call):
            names = names | ctx.call_qualnames(decorator.decorator)
        if not names or not all(q.startswith("torch.") for q in names):
            return False
    return True


def _handed_parameters(call: cst.Call, function: cst.FunctionDef, owner, models) -> list[str]:
    params = [p.name.value for p in function.params.params]
    if owner is not None and params:
        params = params[1:]  # self
    handed = []
    for index, arg in enumerate(call.args):
        if arg.star or not (isinstance(arg.value, cst.Name) and arg.value.value in models):
            continue
        if arg.keyword is not None:
            handed.append(arg.keyword.value)
        elif index < len(params):
            handed.append(params[index])
    return handed
