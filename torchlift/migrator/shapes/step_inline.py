"""A training step in a function called once per iteration, inlined into its loop (TL181).

    def train_step(model, optimizer, x, y):         for it in range(max_iters):
        optimizer.zero_grad()                           xb, yb = get_batch("train")
        loss = F.cross_entropy(model(x), y)    ->       optimizer.zero_grad()
        loss.backward()                                 loss = F.cross_entropy(model(xb), yb)
        optimizer.step()                                loss.backward()
        return loss.item()                              optimizer.step()
                                                        loss = loss.item()
    for it in range(max_iters):
        xb, yb = get_batch("train")
        loss = train_step(model, optimizer, xb, yb)

Why: the loop shapes read a step written in the loop's body; tutorials and research code put
it in a function (`loss_batch(model, loss_func, xb, yb, opt)`, `train_step(...)`, a trainer
class's `_run_batch`, which trainer_inline.py first turns into such a function). The call is
replaced by the function's body, the result is a flat script the loop shapes convert, and it
is never written itself (like trainer_inline.py's, whose line mapping it reuses).

How, with Python's scopes (`symtable`): parameters become the call's arguments (positional,
keyword, literal defaults); a parameter the body rebinds, or given an argument that is not a
name, constant or attribute of a name, is bound to a local first, in the order Python
evaluates arguments. An `if` on a parameter whose value the call fixes is resolved: `None`
given or defaulted, a literal, or a name the function calls `.step()` on (an optimizer: the
conversion goes on only if the loop's bindings show it is one, never None). Only the call
whose resolved body calls `.backward()` is inlined; the other calls (evaluation,
`loss_batch(model, loss_func, xb, yb)`) stay, and so does the function for them. The final
`return` is assigned to the call's target (`loss = ...`, `a, b = ...`, `total += ...`). A
local of the function whose name the caller also uses is renamed `<function>_<name>`, except
the call's own target (the call rebinds it anyway).

What it leaves alone: TL182 (the function's shape: an early return, `yield`, recursion, a
nested function or lambda, `*args`, a non-literal default, a `global` it writes when inlined
into a function, a call inside an expression other than `losses.append(step(...))`), TL183
(the step called from several loops or twice; several functions holding a step, unless one
loop calls each once: then they are inlined one after the other, in the loop's order), TL184 (a name meaning something else where the function
would be inlined).
"""

from __future__ import annotations

import symtable
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

from ..analysis.branches import NONE, NOT_NONE, decide, resolve
from ..analysis.names import collect_names, function_uses, rename
from ..analysis.statements import BACKWARD, OPTIMIZER_CALL, contains
from ..rule import Rule, Unsupported
from ..source.code_text import code_of
from ..source.find_loops import _cst_blocks, cst_contains
from .trainer_inline import _literal, bind_call, bind_first, line_origin

_EXAMPLE_STEP = """
def train_step(x, y):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


"""

INLINED_STEP = Rule(
    "TL181",
    "a function holding the training step, called once per iteration, was inlined into its loop",
    """The call is replaced by the function's body: its parameters by the call's arguments,
    an `if` on a parameter the call fixes (`if opt is not None:`) by the branch taken, its
    final `return` by an assignment to the call's target. Then the loop is converted like
    any other. Calls that do not train (an evaluation `loss_batch(model, loss_func, xb, yb)`)
    keep calling the function, which stays for them.""",
    "Nothing to do; review the diff.",
    _EXAMPLE_STEP
    + """for epoch in range(2):
    for x, y in loader:
        loss = train_step(x, y)
""",
    converts=True,
)

STEP_SHAPE = Rule(
    "TL182",
    "the function holding the training step cannot be inlined into its loop",
    """A function called once per iteration that holds the step (`.backward()`) is inlined
    into the loop. That needs a plain function: parameters without `*args`/`**kwargs`,
    literal defaults, one `return`, at its end, no `yield`, no function or lambda defined
    inside, no call of itself, no `global` write when the loop is in a function; and a call
    that is a statement of the loop (`f(...)`, `x = f(...)`, `a, b = f(...)`, `x += f(...)`),
    not part of an expression (but the first argument handed to a call,
    `losses.append(f(...))`: its returned value takes the call's place).""",
    """Write the step in the loop's body, or give the function that shape (return once, at
    its end; assign its result to a name before using it).""",
    """
def train_step(x, y):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    if not torch.isfinite(loss):
        return None
    loss.backward()
    optimizer.step()
    return loss.item()


for epoch in range(2):
    for x, y in loader:
        loss = train_step(x, y)
""",
)

STEP_CALLS = Rule(
    "TL183",
    "the training step function is called from several places, or several functions step",
    """One loop, one step: the function holding the step is inlined only when one statement
    of one loop calls it (with arguments that make it step). Called from two loops, twice in
    a loop, or outside any loop too, there is no single training_step to write. Several
    functions that step (a GAN's critic step and generator step) are inlined one after the
    other only when one loop calls each once.""",
    """Call the step function from one loop (a warm-up loop and a main loop are two training
    runs: convert them separately), or write the step in the loop's body.""",
    _EXAMPLE_STEP
    + """for epoch in range(2):
    for x, y in loader:
        train_step(x, y)
for x, y in loader:
    train_step(x, y)
""",
)

STEP_NAMES = Rule(
    "TL184",
    "inlining the training step function would give a name two meanings",
    """Inlined, the function's locals share the caller's namespace and the names it reads
    as globals are read where the loop is. A local the caller also uses is renamed
    `<function>_<name>` (unless that is taken too); a global the function reads that the
    calling function binds for itself (a local `model` of `main()` beside the global one the
    step function trains) cannot be renamed.""",
    """Pass what the function reads as arguments (`train_step(model, optimizer, x, y)`), or
    rename the caller's local.""",
    """
def train_step(x, y):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()


def main():
    model = nn.Linear(4, 2)
    for epoch in range(2):
        for x, y in loader:
            train_step(x, y)


main()
""",
)

RULES = (INLINED_STEP, STEP_SHAPE, STEP_CALLS, STEP_NAMES)

_BACKWARD = m.Call(func=m.Attribute(attr=m.Name("backward")))
_NESTED = m.FunctionDef() | m.ClassDef() | m.Lambda()


@dataclass
class InlinedStep:
    """The flat script, where each of its lines came from, and what the change log says."""

    text: str
    origin: list[int]
    indent: list[int]
    at: tuple[int, int]  # the call's line and column
    message: str


@dataclass
class _Site:
    stmt: cst.SimpleStatementLine
    call: cst.Call
    loop: cst.CSTNode | None  # innermost loop around the call, in its own scope
    scope: cst.CSTNode  # the module or the function holding the call


def inline_step(
    module: cst.Module, path: str = "<string>", only=None, line_of=None
) -> InlinedStep | None:
    """The flat script with the one training call inlined, None when no function holding a
    step is called from a loop, or Unsupported (TL182-TL184) naming why it cannot be.
    `only`: the step functions still to inline (the others of a sequence, once the first is),
    `line_of`: the script's line of a line of `module` (for the change log)."""
    functions = _step_functions(module)
    if only is not None:  # the loop holding the first one inlined steps itself now
        functions = {name: f for name, f in functions.items() if name in only}
    if not functions:
        return None
    sites = _sites(module)
    training = []  # (function, site or None, call, bindings or None, known values)
    for name, function in functions.items():
        for call in m.findall(module, m.Call(func=m.Name(name))):
            site = sites.get(id(call))
            if cst_contains(function, call):
                raise Unsupported(STEP_SHAPE, f"`{name}()` calls itself", function)
            steps, args, known = _steps(function, call)
            if steps:
                training.append((function, site, call, args, known))
    if not training:
        return None
    names = sorted({f.name.value for f, *_ in training})
    rest = []
    if len(names) > 1:  # a GAN's critic step then generator step: each inlined in its place
        training, rest = _steps_in_sequence(module, training, names)
    function, site, call, args, known = training[0]
    name = function.name.value
    uses = _uses(module, function)
    called = {id(n) for n in uses}
    calls = [c for c in m.findall(module, m.Call(func=m.Name(name))) if id(c.func) in called]
    if len(uses) != len(calls):
        raise Unsupported(
            STEP_CALLS,
            f"`{name}()` is also used other than by a call (passed on or rebound): where else "
            "it trains cannot be seen",
            function,
        )
    if len(training) > 1:
        where = "several loops" if len({id(t[1] and t[1].loop) for t in training}) > 1 else "twice"
        raise Unsupported(
            STEP_CALLS,
            f"`{name}()` trains from {where}: there is no single loop to inline it into",
            training[1][1].stmt if training[1][1] is not None else function,
        )
    if site is None or site.loop is None:
        raise Unsupported(
            STEP_SHAPE,
            f"`{name}()` is called inside an expression or outside any loop; assign its "
            "result to a name in the loop's body",
            call if call is not None else function,  # the call's line, where to change it
        )
    if args is None:
        raise Unsupported(
            STEP_SHAPE,
            f"`{name}()` is called with `*args`/`**kwargs`, or with arguments its parameters "
            "do not take",
            site.stmt,
        )
    inliner = _Inliner(module, path, function, site, args, known)
    inliner.line_of = line_of or inliner.line_of
    inlined = inliner.run()
    if not rest:
        return inlined
    for later in rest:  # each refuses on the script's own lines before any is inlined
        _Inliner(module, path, *later).run()
    later = {f.name.value for f, *_ in rest}
    try:
        flat = cst.parse_module(inlined.text)
        following = inline_step(flat, path, later, lambda n: inlined.origin[n - 1])
    except Unsupported as why:  # its node is in the flat script: name the call instead
        raise Unsupported(why.rule, why.reason, rest[0][1].stmt) from None
    if following is None:  # never expected: the functions are still called from the loop
        raise RuntimeError(f"step functions {sorted(later)} not found once the first is inlined")
    return _composed(inlined, following)


def _steps_in_sequence(module, training, names):
    """Several functions each holding a step (a critic step then a generator step, each with
    its own optimizer): inlined one after the other, in the loop's order, when each is called
    to train once, by a statement of one same loop. ([the first], [the others]) in the order
    the loop calls them; Unsupported (TL183) otherwise."""
    sites = [t[1] for t in training]
    every = f"several functions hold a training step (`{'()`, `'.join(names)}()`)"
    if any(site is None or site.loop is None for site in sites):
        at = next(t for t in training if t[1] is None or t[1].loop is None)
        raise Unsupported(
            STEP_CALLS,
            f"{every}, `{at[0].name.value}()` called inside an expression or outside any loop: "
            "they are inlined one after the other only when one loop calls each, from its own "
            "statement",
            at[2],
        )
    if any(site.loop is not sites[0].loop for site in sites):
        other = next(t for t in training if t[1].loop is not sites[0].loop)
        raise Unsupported(
            STEP_CALLS,
            f"{every}, called from different loops: there is no single loop to inline them into",
            other[1].stmt,
        )
    for name in names:
        calls = [t for t in training if t[0].name.value == name]
        if len(calls) > 1:
            raise Unsupported(
                STEP_CALLS,
                f"`{name}()` trains twice in one loop: there is no single step to inline",
                calls[1][1].stmt,
            )
    order = [id(c) for c in m.findall(sites[0].loop, m.Call(func=m.Name()))]
    ordered = sorted(training, key=lambda t: order.index(id(t[2])))
    return ordered[:1], [(f, site, args, known) for f, site, _, args, known in ordered[1:]]


def _composed(first: InlinedStep, then: InlinedStep) -> InlinedStep:
    """Two inlinings one after the other, told in the lines of the script itself."""
    origin = [first.origin[line - 1] for line in then.origin]
    indent = [i + first.indent[line - 1] for i, line in zip(then.indent, then.origin)]
    return InlinedStep(then.text, origin, indent, first.at, f"{first.message}; {then.message}")


# -- finding the call -------------------------------------------------------------------------


def _step_functions(module: cst.Module) -> dict[str, cst.FunctionDef]:
    """Module-level functions whose own body (not a nested function's) calls `.backward()`."""
    found = {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and m.findall(stmt.body, _BACKWARD):
            nested = m.findall(stmt.body, _NESTED)
            own = [
                c
                for c in m.findall(stmt.body, _BACKWARD)
                if not any(cst_contains(n, c) for n in nested)
            ]
            if own:
                found[stmt.name.value] = stmt
    return found


def _sites(module: cst.Module) -> dict[int, _Site]:
    """Each call made by a simple statement `[target =] f(...)` (or `target += f(...)`) ->
    where it is: its statement, the innermost loop around it in its scope, the scope."""
    found: dict[int, _Site] = {}

    def walk(body, loop, scope) -> None:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for call in _statement_calls(stmt):
                    found[id(call)] = _Site(stmt, call, loop, scope)
                continue
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                inner = stmt if isinstance(stmt, cst.FunctionDef) else scope
                walk(_block(stmt.body), None, inner)
                continue
            if isinstance(stmt, (cst.For, cst.While)):
                walk(_block(stmt.body), stmt, scope)
                if stmt.orelse is not None:
                    walk(_block(stmt.orelse.body), loop, scope)
                continue
            for block in _cst_blocks(stmt):
                walk(block, loop, scope)

    walk(module.body, None, module)
    return found


def _block(suite) -> list:
    return list(suite.body) if isinstance(suite, cst.IndentedBlock) else []


def _statement_calls(stmt: cst.SimpleStatementLine) -> list[cst.Call]:
    """The call a simple statement makes, `[target =] f(...)`, and the one whose value it
    hands on first thing, `losses.append(f(...))`: nothing but the receiver `losses.append`
    is evaluated before it (see _handed_on)."""
    if len(stmt.body) != 1:
        return []
    small = stmt.body[0]
    if isinstance(small, cst.Expr) or (isinstance(small, cst.Assign) and len(small.targets) == 1):
        value = small.value
    elif isinstance(small, cst.AugAssign):
        value = small.value
    else:
        return []
    if not isinstance(value, cst.Call):
        return []
    found = [value] if isinstance(value.func, cst.Name) else []
    inner = _handed_on(value) if not isinstance(small, cst.AugAssign) else None
    return found + ([inner] if inner is not None else [])


def _handed_on(outer: cst.Call) -> cst.Call | None:
    """`f(...)` in `losses.append(f(...))` or `print(f(...), x)`: the first argument of a call
    of a name or of a name's attribute, so that inlined, the body runs where the call ran and
    its returned value takes the call's place."""
    receiver = outer.func
    while isinstance(receiver, cst.Attribute):
        receiver = receiver.value
    if not isinstance(receiver, cst.Name) or not outer.args:
        return None
    first = outer.args[0]
    if first.keyword is not None or first.star or not isinstance(first.value, cst.Call):
        return None
    return first.value if isinstance(first.value.func, cst.Name) else None


def _receiver(outer: cst.Call) -> str:
    receiver = outer.func
    while isinstance(receiver, cst.Attribute):
        receiver = receiver.value
    return receiver.value


def _steps(function: cst.FunctionDef, call: cst.Call):
    """(does this call step, its bindings, the parameters' known values). A call Python
    would reject, or with `*args`, is taken as one that may step."""
    unpacked = unpacked_argument(function, call)
    if unpacked is not None:  # `train(*random_example())`: each parameter from one unpacking
        args = [(param.name.value, unpacked) for param in function.params.params]
        known = {}
        body = list(function.body.body)
        return bool(m.findall(cst.IndentedBlock(body), _BACKWARD)), args, known
    try:
        if any(a.star for a in call.args):
            raise Unsupported(STEP_SHAPE, "*args", call)
        args = bind_call(function, call, f"{function.name.value}()", call, STEP_SHAPE)
    except Unsupported:
        return True, None, {}
    known = _known_values(function, args)
    body = resolve(list(function.body.body), lambda test: decide(test, known), [])
    return bool(m.findall(cst.IndentedBlock(body), _BACKWARD)), args, known


# -- branches the call decides ----------------------------------------------------------------


def unpacked_argument(function: cst.FunctionDef, call: cst.Call) -> cst.BaseExpression | None:
    """`value` of a call `f(*value)` to a function with positional parameters only and no
    defaults: the parameters are then `a, b, c = value`, which fails as the call would when
    `value` has another length."""
    params = function.params
    if not (len(call.args) == 1 and call.args[0].star == "*" and call.args[0].keyword is None):
        return None
    if (
        params.posonly_params
        or params.kwonly_params
        or isinstance(params.star_arg, cst.Param)
        or params.star_kwarg is not None
        or not params.params
        or any(p.default is not None for p in params.params)
    ):
        return None
    return call.args[0].value


def _known_values(function: cst.FunctionDef, args) -> dict[str, object]:
    """Parameter -> None, a literal's value, or NOT_NONE (a name the function calls `.step()`
    on: an optimizer), for the parameters whose value the call fixes."""
    stepped = {
        c.func.value.value
        for c in m.findall(function.body, m.Call(func=m.Attribute(m.Name(), m.Name("step"))))
    }
    rebound = collect_names(function.body).writes
    known: dict[str, object] = {}
    for param, value in args:
        if param in rebound:  # `opt = opt or default`: not the value the call gives
            continue
        if m.matches(value, m.Name("None")):
            known[param] = NONE
        elif m.matches(value, m.Name("True") | m.Name("False")):
            known[param] = value.value == "True"
        elif isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
            known[param] = bool(value.evaluated_value)
        elif isinstance(value, (cst.Name, cst.Attribute)) and param in stepped:
            known[param] = NOT_NONE
    return known


# -- the flat script --------------------------------------------------------------------------


class _Inliner:
    def __init__(self, module, path, function, site: _Site, args, known) -> None:
        self.module, self.path, self.function, self.site = module, path, function, site
        self.args, self.known = args, known
        self.unpacked = unpacked_argument(function, site.call)  # `f(*value)`
        self.name = function.name.value
        self.pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        # `losses.append(f(...))`: the call its value is handed to (None: a statement's call)
        value = site.stmt.body[0].value
        self.outer = value if value is not site.call else None
        self.line_of = lambda line: line  # the script's line of a line of `module`

    def run(self) -> InlinedStep:
        self._check_shape()
        decided: list = []
        body = [s for s in self.function.body.body if not _docstring(s)]
        final = (
            body[-1] if body and m.matches(body[-1], m.SimpleStatementLine([m.Return()])) else None
        )
        if final is not None:
            body = body[:-1]
        body = resolve(body, lambda test: decide(test, self.known), decided)
        body = self._guarded(body)
        mapping, bound = self._names(body, final)
        new = self._bindings(bound, mapping)
        new += [self._keep(stmt, mapping) for stmt in body if not m.matches(stmt, _GLOBAL_LINE)]
        new += self._result(final, mapping)
        if not new:
            new = [cst.SimpleStatementLine([cst.Pass()])]
            self.pairs.append((new[0], self.site.stmt))
        new[0] = self._moved(new[0], leading_lines=self.site.stmt.leading_lines)
        uses = _uses(self.module, self.function)
        removed = all(n is self.site.call.func for n in uses)
        replaced = {id(self.site.stmt): new, id(self.function): [] if removed else None}
        flat = self.module.visit(_Replace(replaced, self.pairs))
        positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        origin, indent = line_origin(self.module, flat, self.pairs)
        at = positions[self.site.stmt].start
        loop_line = self.line_of(positions[self.site.loop].start.line)
        return InlinedStep(
            flat.code,
            origin,
            indent,
            (at.line, at.column),
            self._message(loop_line, decided, final, removed),
        )

    def _guarded(self, body: list) -> list:
        """`if <test>: return` then the rest (the DQN tutorial's `if len(memory) <
        BATCH_SIZE: return` before the step) -> `if not <test>:` around the rest: inlined,
        the rest runs only when the call would have gone on, and the loop's code after the
        call runs either way, as after the call's early return."""
        guard = _guard(body)
        if guard is None:
            return body
        at = body.index(guard)
        test = guard.test
        if isinstance(test, (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)):
            test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        negated = cst.UnaryOperation(cst.Not(), test)
        rest = cst.IndentedBlock(body[at + 1 :] or [cst.SimpleStatementLine([cst.Pass()])])
        wrapped = guard.with_changes(test=negated, body=rest)
        self.pairs.append((wrapped, guard))
        return [*body[:at], wrapped]

    # checks ---------------------------------------------------------------------------
    def _check_shape(self) -> None:
        function, name = self.function, self.name
        params = function.params
        why, at = None, self.site.stmt
        if function.asynchronous or function.decorators:
            why = f"`{name}()` is async or decorated"
        elif isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
            why = f"`{name}()` takes `*args` or `**kwargs`"
        elif params.posonly_params:
            why = f"`{name}()` has positional-only parameters"
        elif nested := [n for n in m.findall(function.body, _NESTED) if not self._closed(n)]:
            what = "a lambda" if isinstance(nested[0], cst.Lambda) else f"`{nested[0].name.value}`"
            read = self._locals_read(nested[0])
            if read:
                kind = "local" if len(read) == 1 else "locals"
                what += f" reading its {kind} `{'`, `'.join(read)}`"
            at = nested[0]  # findings name the line of the statement holding it (LineIndex)
            why = (
                f"`{name}()` defines {what}: inlined, it would capture the loop's names "
                "instead of one call's"
            )
        elif m.findall(function.body, m.Yield() | m.Await() | m.Nonlocal()):
            why = f"`{name}()` uses `yield`, `await` or `nonlocal`"
        elif not (
            self.site.scope is self.module or any(self.site.scope is s for s in self.module.body)
        ):
            why = f"the loop calling `{name}()` is in a method or a nested function"
        if why is None:
            given = {id(v) for _, v in self.args}
            for param in [*params.params, *params.kwonly_params]:
                if param.default is not None and id(param.default) in given:
                    default = param.default
                    if not (_literal(default) or self._module_constant(default)):
                        why = (
                            f"`{name}()`'s default for `{param.name.value}` is not a literal "
                            "or a module constant (Python evaluated it once, when the "
                            "function was defined)"
                        )
        if why is None:
            body = [s for s in function.body.body if not _docstring(s)]
            returns = m.findall(function.body, m.Return())
            last_return = body and m.matches(body[-1], m.SimpleStatementLine([m.Return()]))
            guard = _guard(body)
            if len(returns) > int(bool(last_return)) + int(guard is not None):
                why = f"`{name}()` returns before its end"
                at = next(r for r in returns if not last_return or r is not body[-1].body[0])
            elif guard is not None and last_return and body[-1].body[0].value is not None:
                why = (
                    f"`{name}()` returns a value at its end but nothing at "
                    f"`if {code_of(guard.test)}: return`"
                )
                at = guard
            elif (self.outer is not None or not isinstance(self.site.stmt.body[0], cst.Expr)) and (
                not last_return or body[-1].body[0].value is None
            ):
                why = f"`{name}()` returns nothing, but the loop uses its result"
            elif self.outer is not None and _receiver(self.outer) in collect_names(
                function.body
            ).writes | {p.name.value for p in [*params.params, *params.kwonly_params]}:
                why = (
                    f"`{name}()` binds `{_receiver(self.outer)}`, which the call's value is "
                    "handed to: inlined, its body would run before that name is read"
                )
        if (
            why is None
            and m.findall(function.body, m.Global())
            and self.site.scope is not self.module
        ):
            why = (
                f"`{name}()` declares `global` names: inlined into "
                f"`{self.site.scope.name.value}()`, its writes would stay local"
            )
        if why is not None:
            raise Unsupported(STEP_SHAPE, why, at)

    def _own_names(self) -> set[str] | None:
        """The function's locals and parameters (its symbol table), None if not one table."""
        helper = _tables(self.module, self.path).function(self.name, None)
        if helper is None:
            return None
        return {s.get_name() for s in helper.get_symbols() if s.is_local() or s.is_parameter()}

    def _locals_read(self, node) -> list[str]:
        """The function's locals and parameters a lambda `node` reads in its body."""
        own = self._own_names() if isinstance(node, cst.Lambda) else None
        return sorted((_lambda_body_reads(node) or set()) & own) if own else []

    def _closed(self, node) -> bool:
        """`node` is a lambda whose body reads none of the function's locals or parameters
        (`map(lambda s: s is not None, batch.next_state)`): it reads its own parameters and
        globals, the same names wherever it is defined, so inlined it computes what it did
        in the call, however late it runs. One reading a local (a closure over one call's
        value) would read the loop's name instead, which later iterations rebind."""
        if not isinstance(node, cst.Lambda) or contains(node, BACKWARD | OPTIMIZER_CALL):
            return False
        own, free = self._own_names(), _lambda_body_reads(node)
        return own is not None and free is not None and not free & own

    def _module_constant(self, node) -> bool:
        """`node` is a name bound once, at module level before the function, to a literal,
        and bound nowhere else (`max_length=MAX_LENGTH`): its value when the function was
        defined is its value at the call."""
        if not isinstance(node, cst.Name):
            return False
        body = list(self.module.body)
        binders = [s for s in body if node.value in collect_names(s).writes]
        if len(binders) != 1 or body.index(binders[0]) > body.index(self.function):
            return False
        target = m.AssignTarget(m.Name(node.value))
        if not m.matches(binders[0], m.SimpleStatementLine([m.Assign([target])])):
            return False
        if not _literal(binders[0].body[0].value):
            return False
        scopes = m.findall(self.module, m.FunctionDef() | m.ClassDef())
        return not any(node.value in collect_names(*f.body.body).writes for f in scopes)

    # names ----------------------------------------------------------------------------
    def _names(self, body, final) -> tuple[dict[str, cst.BaseExpression], list[str]]:
        """The renaming of the body (parameters -> arguments, clashing locals -> prefixed
        names) and the parameters bound to a local first."""
        tables = _tables(self.module, self.path)
        helper = tables.function(self.name, None)
        caller = tables.scope(self.site.scope)
        if helper is None or caller is None:
            raise Unsupported(
                STEP_NAMES,
                f"`{self.name}()` or its caller is defined twice",
                self.site.stmt,
            )
        params = list(helper.get_parameters())
        declared = {s.get_name() for s in helper.get_symbols() if s.is_declared_global()}
        local = {
            s.get_name() for s in helper.get_symbols() if s.is_local() and not s.is_parameter()
        }
        taken = set(caller.get_identifiers())
        if caller.get_type() == "module":
            taken |= tables.global_uses()  # a name some function reads from the module
        else:
            # a function or comprehension inside the caller reading a global `v` would read a
            # local `v` of the caller once the step is inlined there
            taken |= _global_reads(caller)
            for glob in sorted(_global_reads(helper)):
                symbol = caller.lookup(glob) if glob in caller.get_identifiers() else None
                if symbol is not None and not symbol.is_global():
                    raise Unsupported(
                        STEP_NAMES,
                        f"`{self.name}()` reads the global `{glob}`, which "
                        f"`{self.site.scope.name.value}()` binds for itself: inlined, it would "
                        f"read that local instead",
                        self.site.stmt,
                    )
        simple = {p for p, v in self.args if simple_argument(v)} if self.unpacked is None else set()
        if m.findall(self.function.body, m.AssignTarget(target=m.Attribute() | m.Subscript())):
            simple = {p for p in simple if not isinstance(dict(self.args)[p], cst.Attribute)}
        rebound = {
            s.get_name() for s in helper.get_symbols() if s.is_parameter() and s.is_assigned()
        }
        arg_reads = set()
        for _, value in self.args:
            arg_reads |= (
                collect_names(value).reads if not isinstance(value, cst.Name) else {value.value}
            )
        bound = [p for p in params if p not in simple or p in rebound]
        targets = self._target_names()
        mapping: dict[str, cst.BaseExpression] = {p: v for p, v in self.args if p not in bound}
        if declared & arg_reads:
            raise Unsupported(
                STEP_NAMES,
                f"`{self.name}()` rebinds the global `{sorted(declared & arg_reads)[0]}` it is "
                "also given as an argument",
                self.site.stmt,
            )
        own = set(helper.get_identifiers())
        for local_name in sorted((local | set(bound)) - declared):
            if local_name not in taken:
                continue
            if local_name in targets and local_name not in arg_reads:
                continue  # the call's own target: the call rebinds it anyway
            renamed = f"{self.name.lstrip('_')}_{local_name}"
            if renamed in taken | own:
                raise Unsupported(
                    STEP_NAMES,
                    f"`{self.name}()`'s local `{local_name}` is a name of the caller too, and "
                    f"`{renamed}` is taken: rename one of them",
                    self.site.stmt,
                )
            mapping[local_name] = cst.Name(renamed)
        return mapping, bound

    def _target_names(self) -> set[str]:
        small = self.site.stmt.body[0]
        if isinstance(small, cst.Assign):
            target = small.targets[0].target
            if isinstance(target, cst.Name):
                return {target.value}
            if isinstance(target, (cst.Tuple, cst.List)):
                return {e.value.value for e in target.elements if isinstance(e.value, cst.Name)}
        return set()

    # code -----------------------------------------------------------------------------
    def _bindings(self, bound: list[str], mapping) -> list:
        """`param = argument` for the parameters bound to a local first, in the order Python
        evaluates the arguments (the argument is the caller's code: never renamed)."""
        if self.unpacked is not None:  # `a, b, c = value`: one evaluation, as the call's
            targets = [mapping.get(param, cst.Name(param)) for param, _ in self.args]
            elements = [cst.Element(target) for target in targets]
            target = cst.Tuple(elements, lpar=[], rpar=[])
            stmt = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], self.unpacked)])
            self.pairs.append((stmt, self.site.stmt))
            return [stmt]
        out = bind_first(self.args, {p: mapping.get(p, cst.Name(p)) for p in bound})
        self.pairs += [(stmt, self.site.stmt) for stmt in out]
        return out

    def _keep(self, stmt, mapping):
        new = rename(stmt, mapping)
        self.pairs.append((new, stmt))
        return new

    def _moved(self, stmt, leading_lines):
        new = stmt.with_changes(leading_lines=[*leading_lines, *stmt.leading_lines])
        self.pairs = [(new if n is stmt else n, s) for n, s in self.pairs]
        return new

    def _result(self, final, mapping) -> list:
        small = self.site.stmt.body[0]
        if final is None or final.body[0].value is None:
            return []
        value = rename(final.body[0].value, mapping)
        if self.outer is not None:  # `losses.append(f(...))` -> `losses.append(<returned>)`
            new = small.deep_replace(self.site.call, value)
        elif isinstance(small, cst.Assign):
            target = small.targets[0].target
            if len(small.targets) == 1 and _same_names(target, value):
                return []  # `acc, loss = acc, loss`: the body bound the call's targets already
            new = cst.Assign([cst.AssignTarget(target)], value)
        elif isinstance(small, cst.AugAssign):
            new = small.with_changes(value=value)
        elif _pure(value):
            return []
        else:
            new = cst.Expr(value)
        stmt = final.with_changes(body=[new])
        self.pairs.append((stmt, final))
        return [stmt]

    def _message(self, loop_line: int, decided, final, removed: bool) -> str:
        given = (
            "parameters replaced by the call's arguments"
            if self.unpacked is None
            else "parameters bound by unpacking the call's `*` argument once"
        )
        parts = [
            f"`{self.name}()`, which holds the training step, inlined into the loop at line "
            f"{loop_line}: {given}"
        ]
        for stmt, taken in decided:
            test = self.module.code_for_node(stmt.test)
            parts.append(f"`if {test}:` {'taken' if taken else 'skipped'} for this call")
        small = self.site.stmt.body[0]
        if self.outer is not None:
            shown = self.module.code_for_node(self.outer.func)
            parts.append(f"its `return` value handed to `{shown}(...)`")
        elif (
            final is not None
            and final.body[0].value is not None
            and not isinstance(small, cst.Expr)
        ):
            target = self.module.code_for_node(
                small.targets[0].target if isinstance(small, cst.Assign) else small.target
            )
            parts.append(f"its `return` assigned to `{target}`")
        parts.append(
            "the function removed (nothing else calls it)"
            if removed
            else "the function kept for its other calls"
        )
        return "; ".join(parts)


_GLOBAL_LINE = m.SimpleStatementLine([m.Global()])


def _same_names(target: cst.CSTNode, value: cst.CSTNode) -> bool:
    """`x` and `x`, or `a, b` and `a, b` (with or without parentheses or brackets)."""
    if isinstance(target, cst.Name) and isinstance(value, cst.Name):
        return target.value == value.value
    sequences = (cst.Tuple, cst.List)
    if isinstance(target, sequences) and isinstance(value, sequences):
        pairs = list(zip(target.elements, value.elements))
        return len(target.elements) == len(value.elements) and all(
            not isinstance(t, cst.StarredElement)
            and not isinstance(v, cst.StarredElement)
            and _same_names(t.value, v.value)
            for t, v in pairs
        )
    return False


def _guard(body: list) -> cst.If | None:
    """The first statement `if <test>: return` (a bare return, no `else`) of a function's
    body, or None (_check_shape refuses any other early return beside it)."""
    bare = m.IndentedBlock([m.SimpleStatementLine([m.Return(value=None)])])
    for stmt in body:
        if m.matches(stmt, m.If(body=bare, orelse=None)):
            return stmt
    return None


def _lambda_body_reads(node: cst.Lambda) -> set[str] | None:
    """The names a lambda's body (and any scope in it) reads from around it, by Python's
    symbol tables: compiled alone, each resolves as a global. Its defaults are not included:
    they are evaluated where the lambda is defined, as any expression there."""
    code = "_ = " + code_of(node.with_changes(params=_no_defaults(node)))
    try:
        top = symtable.symtable(code, "<lambda>", "exec")
    except SyntaxError:
        return None
    found: set[str] = set()
    stack = list(top.get_children())
    while stack:
        table = stack.pop()
        found |= {s.get_name() for s in table.get_symbols() if s.is_global() and s.is_referenced()}
        stack.extend(table.get_children())
    return found


def _no_defaults(node: cst.Lambda) -> cst.Parameters:
    params = node.params
    strip = lambda ps: [p.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT) for p in ps]  # noqa: E731
    return params.with_changes(
        params=strip(params.params),
        kwonly_params=strip(params.kwonly_params),
        posonly_params=strip(params.posonly_params),
    )


def _docstring(stmt) -> bool:
    return m.matches(stmt, m.SimpleStatementLine([m.Expr(m.SimpleString())]))


def simple_argument(value: cst.BaseExpression) -> bool:
    """A name, a constant, or attributes of a name: reading it again reads the same value."""
    while isinstance(value, cst.Attribute):
        value = value.value
    return isinstance(value, (cst.Name, cst.Integer, cst.Float, cst.SimpleString))


def _pure(value: cst.BaseExpression) -> bool:
    """A value whose computation has no effect to keep when nothing uses it
    (`loss.item(), len(xb)`)."""
    if simple_argument(value):
        return True
    if isinstance(value, (cst.Tuple, cst.List)):
        return all(_pure(e.value) for e in value.elements)
    if isinstance(value, cst.Call) and not value.args:
        return m.matches(value.func, m.Attribute(attr=m.Name("item"))) and _pure(value.func.value)
    if isinstance(value, cst.Call) and m.matches(value.func, m.Name("len")):
        return all(_pure(a.value) for a in value.args)
    return False


class _Replace(cst.CSTTransformer):
    """Statements replaced by others (`replaced`: id -> the statements in its place, [] to
    remove it, None to keep it); every statement of the result paired with the one it came
    from (for line_origin)."""

    def __init__(self, replaced: dict, pairs: list) -> None:
        self.replaced, self.pairs = replaced, pairs

    def on_leave(self, original, updated):
        new = self.replaced.get(id(original))
        if new is not None:
            return cst.FlattenSentinel(new) if new else cst.RemovalSentinel.REMOVE
        if isinstance(original, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self.pairs.append((updated, original))
        return updated


class _tables:
    """The file's symbol tables (Python's own scopes)."""

    def __init__(self, module: cst.Module, path: str) -> None:
        self.top = symtable.symtable(module.code, path, "exec")
        self.module = module

    def _all(self):
        stack = [self.top]
        while stack:
            table = stack.pop()
            yield table
            stack.extend(table.get_children())

    def function(self, name: str, parent) -> symtable.SymbolTable | None:
        parent = parent or self.top
        found = [
            t for t in parent.get_children() if t.get_name() == name and t.get_type() == "function"
        ]
        return found[0] if len(found) == 1 else None

    def scope(self, node) -> symtable.SymbolTable | None:
        """The table of the module or of a module-level function."""
        return self.top if isinstance(node, cst.Module) else self.function(node.name.value, None)

    def global_uses(self) -> set[str]:
        used = set()
        for table in self._all():
            if table is self.top:
                continue
            used |= {s.get_name() for s in table.get_symbols() if s.is_global()}
        return used


def _global_reads(table: symtable.SymbolTable) -> set[str]:
    """Names `table` or a scope inside it reads as globals (implicitly)."""
    found = {
        s.get_name()
        for s in table.get_symbols()
        if s.is_global() and not s.is_declared_global() and s.is_referenced()
    }
    for child in table.get_children():
        found |= _global_reads(child)
    return found


def _uses(module, function) -> list:
    """The nodes using the function itself (`function_uses`); a rebinding of its name counts
    as a use."""
    found = function_uses(module, function)
    if found is None:
        return [n for n in m.findall(module, m.Name(function.name.value)) if n is not function.name]
    accesses, rebindings = found
    return rebindings + accesses
