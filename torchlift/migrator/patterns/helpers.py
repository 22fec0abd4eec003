"""Pattern: per-epoch helper calls (`train(model, loader, optimizer, epoch)`), inlined into
the epoch loop before it is read.

The PyTorch examples put the batch loop in module-level helpers called once per epoch. To plan
such a loop, each call statement is replaced by the helper's body with parameters renamed to
the call's arguments; a final `return x` becomes `target = x`. Helper locals that would clash
with names of the epoch loop (or of another inlined helper) get the helper's name as prefix.

An argument that is an expression (`train(model, loader, optimizer, epoch + 1)`) is bound to
a fresh local first (the parameter's name, else `<helper>_<parameter>`), in the order Python
evaluates the call's arguments (shapes/trainer_inline.py's bind_call and bind_first, shared
with shapes/step_inline.py): evaluated once, before the body, as the call did.

A default the call leaves to the helper is read at the call only when it means there what
it meant when the `def` ran (analysis/definition_defaults.py: a constant, a builtin, a module
global bound once before the `def` that the caller does not shadow); any other --
`train_state=TrainState()`, one object Python built when the function was defined and every
call shares -- is refused here, naming the default, and the engine binds it to a module name
right before the `def` (source/hoisted_defaults.py), which the call then reads.

A final `return` may stand last in the `with` blocks ending the helper (the tutorials'
`test()` returning from inside `with torch.no_grad():`) when their exits leave the result alone,
or last in every branch of the `if` / `elif` / `else` ending it (`return epoch_loss` when it
improved, `return best_loss` else) (source/trailing_return.py): each is replaced where it
stands, the `with`s and `if`s staying. A call statement dropping the result (`train(...)`)
still evaluates a returned value with effects (`return meter.summary()`) where the return
stood; one that only reads (analysis/output_effects.py's pure_expression) goes with it.

A closure -- `def train(epoch):` defined in `main()` before its epoch loop, reading `model`
and the loaders from `main()`'s locals -- is inlined the same way (analysis/closures.py): it
reads its free names from `main()`'s frame when called, and inlined at the call they are read
there, then. Refused (TL111): the name bound again in `main()` (a decorator's result, a
rebinding), a default that is not a constant (read at the call it could differ from the one
the `def` evaluated). Its `nonlocal step` names `main()`'s own local, which the inlined
`step += 1` writes itself: the line goes (TL117 when another scope of `main()` uses the name,
or the closure is used besides the calls inlined). The `def` is removed from `main()`'s body
once nothing there calls it.

A result given to a call (`losses.append(train(...))`) is bound to a name first
(source/hoisted_results.py) when what the call evaluates before it stays the same; a bare
`return` in the loop ending a helper (a dry run's) is a `break` of it (source/loop_returns.py).

Not inlined (the loop is reported instead): helpers with *args/**kwargs, other early
returns (the refusal names the return's line, and the code a return in a loop skips), nested functions, a decorator other than `torch.no_grad()`
/ `torch.inference_mode()` (its body would run without what the decorator wraps it in), or a
default that cannot be bound before a decorated `def` (Python evaluates the decorators first).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.closures import (
    closure_helpers,
    nonlocal_refusal,
    why_not_inlined,
    without_nonlocal,
)
from ..analysis.definition_defaults import constant, read_alike_at_call
from ..analysis.fstrings import fold_string_arguments, requote_in_fstrings
from ..analysis.known_numbers import positive_int
from ..analysis.names import (
    bound_names,
    collect_names,
    definition_reads,
    function_uses,
    mentions,
    node_kinds,
    rename,
)
from ..analysis.output_effects import pure_expression
from ..analysis.qualnames import NO_GRAD_DECORATORS, is_grad_mode_decorator
from ..analysis.quiet_exits import exits_quietly
from ..analysis.statements import statements
from ..rule import Rule, Unsupported
from ..shapes.context import GLOBAL_STATEMENT
from ..shapes.step_inline import simple_argument
from ..shapes.trainer_inline import bind_call, bind_first
from ..source import early_returns, hoisted_results, loop_returns, trailing_return
from ..source.code_text import code_of, first_line
from ..source.hoisted_defaults import why_not_hoisted
from .helper_globals import declared_globals

HELPER_SHAPE = Rule(
    "TL111",
    "training helper function shape not understood",
    """A helper called once per epoch (`train(model, loader, optimizer, epoch)`) is inlined
    into the epoch loop before converting. That needs plain parameters (no *args/**kwargs),
    a single `return` at the end (or last in the `with torch.no_grad():` ending it), no
    functions defined inside and no decorator but a grad mode (`@torch.no_grad()`). A
    closure of the function holding the loop (`def train(epoch):` in `main()`) is inlined
    too, when `main()` binds its name only with the `def` and its defaults are constants. A default
    that is an expression (one object Python built when the function was defined, shared by
    every call) is bound to a module name right before the `def`, unless the function is
    decorated: its decorators are evaluated before it.""",
    """Pass the helper its arguments (build a default object once, before the loop, and pass
    it), return once, at its end, and call what a decorator adds from the helper's body.""",
    """
    def train(model, loader, optimizer, *extra):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()


    for epoch in range(2):
        train(model, loader, optimizer)
    """,
)

RULES = (HELPER_SHAPE,)


def epoch_body(ctx, stmts):
    """Each `[target =] helper(...)` statement of the epoch body replaced by the helper's
    body; the helpers inlined are noted for the plan (removed once nothing calls them)."""
    closures = closure_helpers(ctx)  # shadow module-level functions of the same name
    helpers = {**training_helpers(ctx.module), **closures}
    inlined = ctx.found.setdefault("inlined", [])
    if not helpers:
        return stmts
    taken = collect_names(*stmts).all() | set(ctx.params)
    for stmt in ctx.scope_before:
        taken |= bound_names(stmt)
    out = []
    stmts, result_uses = _results_bound_first(ctx, stmts, helpers, taken)
    calls = [(stmt, helper_call(stmt, helpers)) for stmt in stmts]
    called = {found[0].name.value for _, found in calls if found is not None}
    reads = caller_reads(ctx, calls)
    free = {id(stmt): body_reads(found[0]) for stmt, found in calls if found}
    # a name spelled anywhere else in the file (read after the loop, by a function)
    outside = frozenset().union(
        *(mentions(s) for s in ctx.module.body if not _is_helper(s, called))
    )
    for stmt, found in calls:
        if found is None:
            out.append(stmt)
            continue
        _plain_decorators(ctx, found[0])
        closure = found[0] is closures.get(found[0].name.value)
        if closure:
            why = why_not_inlined(ctx, found[0])
            if why is not None:
                raise Unsupported(HELPER_SHAPE, why, stmt)
            refusal = nonlocal_refusal(ctx, found[0], called & set(closures))
            if refusal is not None:
                raise Unsupported(GLOBAL_STATEMENT, *refusal)
            # its `nonlocal` names are the locals of the function it is inlined into: kept
            shared = declared_in(found[0])
            found = (without_nonlocal(found[0]), *found[1:])
            calls_inlined = ctx.found.setdefault("closure_calls_inlined", {})
            calls_inlined[found[0].name.value] = calls_inlined.get(found[0].name.value, 0) + 1
        else:
            shared = set()
            _reads_no_local_of_the_caller(ctx, found[0], free[id(stmt)], stmt)
        body, declared = declared_globals(ctx, found[0], stmt, called)
        # what another inlined helper reads from outside it is no local of this one
        others = set().union(*(f for call, f in free.items() if call != id(stmt)))
        body, bound, bindings, origin = inline_call(
            stmt,
            *found[:3],
            taken,
            body=body,
            keep=declared | shared,
            avoid=outside,
            caller=reads.get(id(stmt), set()) | others,
            operator=found[3],
            limit_ok=lambda value: positive_int(ctx, value),
            # a closure's default was evaluated in the enclosing function when its `def` ran
            read_alike=(
                (lambda func, value: constant(value))
                if closure
                else (lambda func, value: read_alike_at_call(ctx, func, value))
            ),
            quiet_exit=lambda with_stmt: exits_quietly(ctx, with_stmt),
            effect_free=lambda value: pure_expression(ctx, value),
        )
        taken |= bound
        # a refusal about an argument's binding names the call's line, and what it binds;
        # one about a statement of the helper, the helper's line
        ctx.found.setdefault("inlined_at", {}).update({**origin, **{id(b): stmt for b in bindings}})
        given = ctx.found.setdefault("given_arguments", {})
        for binding in bindings:
            assign = binding.body[0]
            given[assign.targets[0].target.value] = (
                f" (`{found[0].name.value}()` is given `{ctx.module.code_for_node(assign.value)}`,"
                " evaluated anew each epoch)",
                stmt,
            )
        inlined.append(found[0].name.value)
        if closure:
            owner = ctx.function.name.value
            ctx.found.setdefault("inlined_closures", {})[found[0].name.value] = owner
        origin = ctx.found.setdefault("inlined_from", {})  # for reasons naming the helper
        origin.update({id(inlined_stmt): found[0].name.value for inlined_stmt in body})
        if id(stmt) in result_uses:
            _read_before_untouched(found[0], body, *result_uses[id(stmt)])
        out.extend(body)
    return out


def _results_bound_first(ctx, stmts, helpers, taken) -> tuple[list, dict]:
    """`stmts` with a training helper's result given to a call (`losses.append(train(...))`)
    bound to a fresh name first (source/hoisted_results.py), and id of each binding -> (what
    the statement evaluates before the call, the statement). Unsupported (TL111) for one
    used deeper in a statement (`print(2 * train(...))`), which inlining cannot split, when
    the epoch trains nowhere else (an evaluation call of a training function, `run_epoch(...,
    mode="eval")[0]`, beside the training call stays a call, as before)."""
    training = {name for name, func in helpers.items() if "backward" in node_kinds(func.body)}
    if not training:
        return stmts, {}
    used = set(taken) | mentions(ctx.module)
    out, uses = [], {}

    def fresh(helper: str) -> str:
        name, k = f"{helper}_result", 1
        while name in used:
            k += 1
            name = f"{helper}_result{k}"
        used.add(name)
        return name

    nested = None
    for stmt in stmts:
        found = hoisted_results.hoisted(stmt, training, fresh)
        if found is not None:
            first, rest, before = found
            uses[id(first)] = (before, stmt)
            out += [first, rest]
            continue
        if nested is None and helper_call(stmt, helpers) is None:
            call = hoisted_results.nested_use(stmt, training)
            nested = (call, stmt) if call is not None else None
        out.append(stmt)
    trains = any(
        "backward" in node_kinds(stmt)
        or (found := helper_call(stmt, helpers)) is not None
        and found[0].name.value in training
        for stmt in out
    )
    if nested is not None and not trains:
        # the epoch trains only there: left as a call, its batch loop has no epoch loop
        call, stmt = nested
        raise Unsupported(
            HELPER_SHAPE,
            f"the result of `{code_of(call)}` is used inside an expression, where its "
            "inlined body cannot go; bind it to a name first",
            stmt,
        )
    return out, uses


def _read_before_untouched(func, inlined: list, before: list, stmt) -> None:
    """Python evaluates what `stmt` names before the helper's call (`losses.append`,
    `print(epoch, ...)`); bound first, the helper runs before. The same only when the helper
    binds none of the bare names and mentions none of those under an attribute or subscript:
    Unsupported (TL111) otherwise."""
    bare, deep = hoisted_results.read_before(before)
    written = collect_names(*inlined).writes | declared_in(func)
    named = set().union(*(mentions(node) for node in inlined)) if inlined else set()
    clash = sorted((bare & written) | (deep & (named | written)))
    if clash:
        raise Unsupported(
            HELPER_SHAPE,
            f"`{clash[0]}` is read before `{func.name.value}()` runs, and the helper uses it "
            "too; bind the result to a name first",
            stmt,
        )


def _plain_decorators(ctx, func: cst.FunctionDef) -> None:
    """Unsupported (TL111) for a decorator inlining would drop, other than a grad mode (a
    grad mode wrapping an evaluation helper: its pass runs without grad after conversion too)."""
    for decorator in func.decorators:
        called = decorator.decorator
        if is_grad_mode_decorator(ctx, decorator, NO_GRAD_DECORATORS):  # `@torch.no_grad`
            continue
        raise Unsupported(
            HELPER_SHAPE,
            f"helper `{func.name.value}` is decorated with "
            f"`@{ctx.module.code_for_node(called)}`: inlined into the loop, its body would run "
            "without what the decorator does around it",
            decorator,
        )


def body_reads(func: cst.FunctionDef) -> set[str]:
    """The names the helper's body reads from outside it, when it runs (its defaults and
    decorators ran with the `def`: definition_defaults.py judges those)."""

    def bare(param: cst.Param) -> cst.Param:
        return param.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT, annotation=None)

    params = func.params.with_changes(
        params=[bare(p) for p in func.params.params],
        kwonly_params=[bare(p) for p in func.params.kwonly_params],
    )
    return definition_reads(func.with_changes(decorators=(), returns=None, params=params))


def _reads_no_local_of_the_caller(ctx, func: cst.FunctionDef, free: set[str], stmt) -> None:
    """Unsupported (TL111) when the module-level helper reads a global the function holding
    the loop binds as its own local: inlined there, the helper would read the local."""
    if not ctx.in_function:
        return
    own = set(ctx.params) | collect_names(*ctx.function.body.body).writes
    own -= declared_in(ctx.function)  # `global args` in main(): the module's own `args`
    # a name the helper declares `global` is helper_globals.py's (TL130)
    shadowed = sorted((free - declared_in(func)) & own)
    if shadowed:
        raise Unsupported(
            HELPER_SHAPE,
            f"`{func.name.value}` reads the module's `{shadowed[0]}`, and "
            f"`{ctx.function.name.value}()` binds its own `{shadowed[0]}`: inlined there, it "
            "would read that one; rename one of them",
            stmt,
        )


def caller_reads(ctx, calls) -> dict[int, set[str]]:
    """id(helper call statement) -> the helper's locals whose spelling the caller reads while
    the helper's binding would be the last one (after inlining): the epoch body's statements
    (twice: the next epoch runs it again) and the code after the loop read it with no binding
    of the caller's own in between -- an assignment on every path, or a loop's target (the
    caller's `for i, b in enumerate(val_loader)` binds its `i`). Two variables in the script
    (`score = rmse(y[val], preds)` reads the module's `y`, not the `y` of `valid_fn`'s batch
    loop): inlined, the helper's local must keep a name of its own."""
    writes = {id(stmt): collect_names(*found[0].body.body).writes for stmt, found in calls if found}
    dirty: dict[str, set[int]] = {}  # name -> the helper calls whose binding may reach here
    hits: dict[int, set[str]] = {}

    def read(names) -> None:
        for name in names & dirty.keys():
            for call in dirty[name]:
                hits.setdefault(call, set()).add(name)

    for _ in range(2):
        for stmt, found in calls:
            use = collect_names(stmt)
            read(use.read_first)  # the call's arguments are read before the helper runs
            for name in writes.get(id(stmt), ()):
                dirty.setdefault(name, set()).add(id(stmt))
            for name in use.definite | _loop_targets(stmt):
                dirty.pop(name, None)
    # after the loop (a `break` may leave any epoch statement last)
    dirty = {
        name: {c for c, w in writes.items() if name in w} for name in set().union(*writes.values())
    }
    after = [s for s in ctx.scope_after if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
    read(collect_names(*after).read_first)
    return hits


def _loop_targets(stmt) -> set[str]:
    """Names the `for` loops of `stmt` (not of a nested function) bind as their target."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return set()
    return {
        name.value for loop in m.findall(stmt, m.For()) for name in m.findall(loop.target, m.Name())
    }


def _is_helper(stmt, names) -> bool:
    return isinstance(stmt, cst.FunctionDef) and stmt.name.value in names


def read(ctx, plan, steps) -> None:
    _nonlocal_closures_inlined(ctx)
    closures = ctx.found.get("inlined_closures", {})
    plan.inlined_helpers = [n for n in ctx.found.get("inlined", []) if n not in closures]
    plan.inlined_closures = dict(closures)


def _nonlocal_closures_inlined(ctx) -> None:
    """Unsupported (TL117, at its `nonlocal`) for a closure declaring `nonlocal` that is not
    inlined at each of its uses: one left as a call would write the enclosing function's local
    while the hooks carry the value."""
    calls = ctx.found.get("closure_calls_inlined", {})
    for name, (func, declaration) in ctx.found.get("closure_nonlocals", {}).items():
        accesses, rebindings = function_uses(ctx.module, func) or ([None], [])
        if name in calls and len(accesses) == calls[name] and not rebindings:
            continue
        names = ", ".join(n.name.value for n in declaration.names)
        owner = ctx.function.name.value
        where = (
            "is used elsewhere too (its `def` would stay)"
            if name in calls
            else "is not called as a statement of the epoch loop"
        )
        raise Unsupported(
            GLOBAL_STATEMENT,
            f"`{name}()`, defined inside `{owner}()` that holds the loop, writes its `{names}` "
            f"through `nonlocal` and {where}: only a closure inlined at every use is "
            "converted; return the value instead",
            declaration,
        )


def training_helpers(module: cst.Module) -> dict[str, cst.FunctionDef]:
    """Module-level functions whose body loops over batches (with or without backward). Not
    generators: calling one runs none of its body (generator_batches.py reads a batch loop
    over one)."""
    return {
        stmt.name.value: stmt
        for stmt in module.body
        if isinstance(stmt, cst.FunctionDef)
        and "loop" in (kinds := node_kinds(stmt.body))
        and "yield" not in kinds
    }


def helper_call(stmt: cst.CSTNode, helpers: dict[str, cst.FunctionDef]):
    """(function, call, assign target or None, augmented operator or None) when `stmt` is
    `[target =] helper(...)` or `target += helper(...)` (any augmented operator)."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    target = operator = None
    if isinstance(small, cst.Expr):
        call = small.value
    elif isinstance(small, cst.Assign) and len(small.targets) == 1:
        call, target = small.value, small.targets[0].target
    elif isinstance(small, cst.AugAssign):
        call, target, operator = small.value, small.target, small.operator
    else:
        return None
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Name):
        func = helpers.get(call.func.value)
        if func is not None:
            return func, call, target, operator
    return None


def _bind_arguments(func: cst.FunctionDef, call: cst.Call, stmt, read_alike=None):
    """(parameter, argument or default) in the order Python evaluates the arguments.
    `read_alike(func, default)`: whether the default, read at the call, gives what the `def`
    evaluated (else Unsupported naming the default, which the engine then hoists)."""
    params = func.params
    name = func.name.value
    if isinstance(params.star_arg, cst.Param):
        raise Unsupported(HELPER_SHAPE, f"helper `{name}` takes *args", stmt)
    if params.star_kwarg is not None:
        raise Unsupported(HELPER_SHAPE, f"helper `{name}` takes **kwargs", stmt)
    if params.posonly_params:
        raise Unsupported(HELPER_SHAPE, f"helper `{name}` has positional-only parameters", stmt)
    if any(a.star for a in call.args):
        raise Unsupported(HELPER_SHAPE, f"call of `{name}` with *args or **kwargs", stmt)
    args = bind_call(func, call, f"{name}()", stmt, HELPER_SHAPE)
    given = {id(a.value) for a in call.args}
    for param, value in args:
        if id(value) in given:
            continue
        if read_alike(func, value) if read_alike is not None else simple_argument(value):
            continue
        what = (
            f"the value `{code_of(value)}` had then"
            if simple_argument(value)
            else "one object shared by every call"
        )
        why = why_not_hoisted(func)
        raise Unsupported(
            HELPER_SHAPE,
            f"the default of `{param}` of `{name}` is evaluated once, when the function is "
            f"defined ({what})" + (f", and {why}" if why else "") + "; pass it at the call",
            value,
        )
    return args


def _bound_first(func, args, rebound: set[str], taken: set[str], stmt) -> tuple[dict, list]:
    """The arguments that are expressions (`make_loader(epoch)`, `loaders["train"]`), and
    those of parameters the helper rebinds (`scale = scale * 0.5` must not rebind the
    caller's `scale`), each bound to a fresh local before the helper's body, as the call
    evaluated them once before running it: (parameter -> local, the binding statements in
    evaluation order)."""
    targets = {}
    for param, value in args:
        if simple_argument(value) and param not in rebound:
            continue
        for local in (param, f"{func.name.value}_{param}"):
            if local not in taken:
                break
        else:
            raise Unsupported(
                HELPER_SHAPE,
                f"argument `{param}` of `{func.name.value}` is an expression, and `{param}` and "
                f"`{local}` are both taken; bind it to a name first",
                stmt,
            )
        targets[param] = cst.Name(local)
        taken = taken | {local}
    return targets, bind_first(args, targets)


def _writes_outside_loops(stmts) -> set[str]:
    """Names bound by the helper itself, not per batch (accumulators, setup values)."""
    writes: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, (cst.For, cst.While)):
            continue
        if isinstance(stmt, cst.SimpleStatementLine):
            writes |= collect_names(stmt).writes
        elif isinstance(stmt, (cst.With, cst.If, cst.Try)):
            inner = list(stmt.body.body)
            if isinstance(stmt, cst.If) and stmt.orelse is not None:
                inner += list(getattr(stmt.orelse, "body", cst.IndentedBlock([])).body)
            writes |= _writes_outside_loops(inner)
        else:
            writes |= collect_names(stmt).writes
    return writes


def _renamed(node, mapping, func, stmt):
    """`node` with the helper's parameters replaced by the call's arguments; a string
    argument read in an f-string written as its text, or else re-quoted (`f"{header!r}"`
    given `header=""`)."""
    out = requote_in_fstrings(rename(fold_string_arguments(node, mapping), mapping))
    if out is None:
        raise Unsupported(
            HELPER_SHAPE,
            f"a string argument of `{func.name.value}` is read in an f-string, where its quotes "
            "cannot be kept; bind it to a name first",
            stmt,
        )
    return out


def inline_call(
    stmt,
    func,
    call,
    target,
    taken: set[str],
    body=None,
    keep: set[str] = frozenset(),
    avoid: frozenset = frozenset(),
    operator: cst.BaseAugOp | None = None,
    caller: set[str] = frozenset(),
    limit_ok=None,
    read_alike=None,
    quiet_exit=None,
    effect_free=None,
) -> tuple[list, set[str], list]:
    """Statements equivalent to `stmt` (a helper call), the helper locals they bind, and the
    statements among them binding an argument first. `read_alike`: see _bind_arguments.
    `body`: the helper's statements to
    inline (default: all of them); `keep`: names it binds that keep their spelling (module
    globals it declared); `avoid`: names a binding of an argument must not take; `operator`:
    `target op= helper(...)`, whose target is read before the call runs -- kept as the last
    statement only when the helper (as inlined) names nothing the target names. `caller`:
    names the caller's code reads from elsewhere (caller_reads): a helper local spelled so,
    even one its batch loop binds, is renamed.
    `quiet_exit(with)`: the `with`'s exit does nothing the caller sees, so a return ending it
    is a final one. `effect_free(value)`: evaluating the returned value changes nothing, so a
    call statement dropping the result may drop its computation too (default: never)."""
    body = list(func.body.body if body is None else body)
    if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])):
        body = body[1:]  # docstring
    kinds = node_kinds(func.body)
    if "def" in kinds:
        raise Unsupported(HELPER_SHAPE, f"helper `{func.name.value}` defines functions", stmt)
    written = body  # the helper's statements as written
    if "return" in kinds:  # a dry run's bare `return` in the loop ending it: a `break`
        body = loop_returns.as_breaks(body)
    same_shape = body  # its statements pair one to one with the helper's
    returns = m.findall(cst.IndentedBlock(body), m.Return()) if "return" in kinds else []
    quiet = quiet_exit or _never
    finals = trailing_return.final_returns(body, quiet) or []
    last = body[-1] if body else None
    ends_in_return = m.matches(last, m.SimpleStatementLine([m.Return()]))
    if limit_ok is not None and len(returns) > 1 and (ends_in_return or not finals):
        given = dict(_bind_arguments(func, call, stmt, read_alike))
        before = body[:-1] if ends_in_return else body
        final_value = last.body[0].value if ends_in_return else None
        before = early_returns.as_break(func, before, final_value, lambda p: limit_ok(given.get(p)))
        body = [*before, last] if ends_in_return else before
        returns = m.findall(cst.IndentedBlock(body), m.Return())
        finals = trailing_return.final_returns(body, quiet) or []
    early = next((r for r in returns if not any(r is f for f in finals)), None)
    if early is not None:
        raise Unsupported(HELPER_SHAPE, _why_early(func, written, early, quiet_exit), early)
    if "yield" in kinds or "global" in node_kinds(cst.IndentedBlock(body)):
        raise Unsupported(HELPER_SHAPE, f"helper `{func.name.value}` uses global/yield", stmt)
    args = _bind_arguments(func, call, stmt, read_alike)
    mapping = dict(args)
    params = set(mapping)
    rebound = params & collect_names(*body).writes
    avoid = taken | avoid | (mentions(func.body) - params)
    first, bindings = _bound_first(func, args, rebound, avoid, stmt)
    mapping.update(first)
    top_writes = _writes_outside_loops(body)
    all_writes = collect_names(*body).writes - params
    for name in sorted(top_writes - params - keep):
        if name in taken:
            mapping[name] = cst.Name(f"{func.name.value}_{name}")
    # a local bound per batch is the step's own, shared by spelling with the caller's steps
    # (`for x, y in loader` in both); one the caller reads from elsewhere is not
    for name in sorted((all_writes & caller) - top_writes - keep):
        local = f"{func.name.value}_{name}"
        if local in avoid:
            raise Unsupported(
                HELPER_SHAPE,
                f"`{name}` of `{func.name.value}` is its own local, and the caller reads another "
                f"`{name}`; `{local}` is taken too, rename one of them",
                stmt,
            )
        mapping[name] = cst.Name(local)
    out = [_renamed(s, mapping, func, stmt) for s in body]
    if target is not None and (not finals or any(r.value is None for r in finals)):
        raise Unsupported(
            HELPER_SHAPE, f"`{func.name.value}` returns nothing but its result is used", stmt
        )
    if operator is not None:
        _target_untouched(func, target, out, stmt)

    def result(value):
        """What a final `return value` becomes where it stands."""
        if target is None:
            # `train(...)` drops the result, not its computation (`return log.flush()` still
            # flushes): the value stays as a statement unless evaluating it changes nothing
            if value is None or (effect_free is not None and effect_free(value)):
                return None
            return cst.Expr(value)
        if operator is not None:
            return cst.AugAssign(target, operator, value)
        if isinstance(target, cst.Name) and m.matches(value, m.Name(target.value)):
            return None  # `best = best`: the branch returned what the caller's name holds
        return cst.Assign([cst.AssignTarget(target)], value)

    # each final return replaced where it stands (inside its `with`s and branches), paired
    # with the helper's statement it replaces
    origin = _origins(out, written if body is same_shape else body)
    replaced = [trailing_return.replace_final([s], result, origin) for s in out]
    origin = _carried_origins(origin, out, replaced)
    out = [s for new in replaced for s in new]
    out = [*bindings, *out]
    if out:
        first_stmt, out[0] = out[0], out[0].with_changes(leading_lines=stmt.leading_lines)
        if id(first_stmt) in origin:  # the same statement under the call's comments
            origin[id(out[0])] = origin.pop(id(first_stmt))
        bindings = [out[0], *bindings[1:]] if bindings else []
    bound = {mapping[n].value if isinstance(mapping.get(n), cst.Name) else n for n in all_writes}
    return (
        out,
        bound | {local.value for local in first.values()},
        bindings,
        origin,
    )


def _never(with_stmt) -> bool:
    return False


def _why_early(func, body: list, early: cst.Return, quiet_exit) -> str:
    """Why `early` is no final return: it ends `with`s of which one may do something on exit
    that the caller sees, it ends one branch of the `if` ending the helper but another branch
    falls off the end, or statements follow it."""
    name = func.name.value
    holding = [w for w in m.findall(cst.IndentedBlock(body), m.With()) if _holds(w, early)]
    if not _ends_its_block(body, early):
        return f"helper `{name}` returns early, before the last statement of its block"
    if any(early is r for r in trailing_return.final_returns(body, lambda w: True) or []):
        for held in holding:
            if quiet_exit is None or not quiet_exit(held):
                shown = ", ".join(code_of(i.item) for i in held.items)
                return (
                    f"helper `{name}` returns from inside `with {shown}`, whose exit runs after "
                    "the return and may change or suppress it; return after the `with`"
                )
    skipped = _skipped_after_loop(body, early)
    if skipped is not None:
        return (
            f"helper `{name}` returns from inside its loop, skipping `{first_line(skipped)}` "
            "after it, which a `break` would run; write `break` if that code may run then"
        )
    branches = trailing_return.ends_in_branches(body, lambda w: True)
    if branches is not None and _holds(branches, early):
        test = code_of(branches.test)
        return (
            f"helper `{name}` returns at the end of a branch of the `if {test}:` it ends "
            "with, but another branch (or the missing `else`) ends without a return"
        )
    return f"helper `{name}` returns early, before its last statement"


def _skipped_after_loop(body: list, ret: cst.Return):
    """The first statement after the outermost loop holding `ret` (in the helper's body, or
    in the blocks of the `with`s and `if`s holding that loop), which `ret` skips; None when
    no loop holds it or nothing follows."""
    for at, stmt in enumerate(body):
        if not _holds(stmt, ret):
            continue
        if isinstance(stmt, (cst.For, cst.While)):
            return body[at + 1] if at + 1 < len(body) else None
        if isinstance(stmt, (cst.With, cst.If)) and isinstance(stmt.body, cst.IndentedBlock):
            inner = _skipped_after_loop(list(stmt.body.body), ret)
            if inner is not None:
                return inner
            if any(_holds(s, ret) and isinstance(s, (cst.For, cst.While)) for s in stmt.body.body):
                return body[at + 1] if at + 1 < len(body) else None
        return None
    return None


def _ends_its_block(body: list, ret: cst.Return) -> bool:
    """`ret` stands last in the block holding it."""
    whole = cst.IndentedBlock(body)
    for suite in m.findall(whole, m.SimpleStatementSuite()):
        if any(s is ret for s in suite.body):
            return suite.body[-1] is ret
    for block in [whole, *m.findall(whole, m.IndentedBlock())]:
        for at, stmt in enumerate(block.body):
            if isinstance(stmt, cst.SimpleStatementLine) and any(s is ret for s in stmt.body):
                return at == len(block.body) - 1 and stmt.body[-1] is ret
    return False


def _holds(node: cst.CSTNode, ret: cst.Return) -> bool:
    return any(r is ret for r in m.findall(node, m.Return()))


def _target_untouched(func, target, inlined: list, stmt) -> None:
    """`history["loss"] += train(...)` reads `history["loss"]` before `train` runs; inlined,
    the read comes after its body. The same only when the body (and the returned value)
    names nothing the target names: Unsupported (TL111) otherwise."""
    named = mentions(target)
    if any(named & mentions(node) for node in inlined) or declared_in(func) & named:
        shown = ", ".join(f"`{n}`" for n in sorted(named))
        raise Unsupported(
            HELPER_SHAPE,
            f"`{func.name.value}()`'s result is added in place to what {shown} names, which "
            "Python reads before the call and the helper uses too; bind the result to a name "
            "first",
            stmt,
        )


def declared_in(func: cst.FunctionDef) -> set[str]:
    """Names the function declares `global` / `nonlocal`."""
    return {
        item.name.value
        for found in m.findall(func, m.Global() | m.Nonlocal())
        for item in found.names
    }


def _carried_origins(origin: dict, before: list, after: list) -> dict[int, cst.CSTNode]:
    """`origin` keyed by the statements replacing the returns left (`after[i]`: what
    `before[i]` became, empty when dropped). Visiting builds new nodes and the old ones are
    freed: keys left on their ids would be reused by unrelated nodes, and a refusal would
    name a line that depends on memory layout (and so on PYTHONHASHSEED)."""
    carried: dict[int, cst.CSTNode] = {}
    for old, new in zip(before, after):
        if not new:
            continue
        pairs = list(zip(statements(new[0]), statements(old)))
        if len(list(statements(new[0]))) != len(list(statements(old))):
            pairs = pairs[:1]  # a nested return dropped: only the statement itself pairs up
        carried.update({id(a): origin[id(b)] for a, b in pairs if id(b) in origin})
    return carried


def _origins(inlined: list, body: list) -> dict[int, cst.CSTNode]:
    """id of each inlined statement (nested ones too) -> the helper's statement it copies:
    renaming changes names only, so both walk in the same order. A refusal about one names
    the helper's line."""
    origin: dict[int, cst.CSTNode] = {}
    for new, old in zip(inlined, body):
        origin.update({id(a): b for a, b in zip(statements(new), statements(old))})
    return origin
