"""Pattern: an optimizer step taken with a closure (LBFGS, the time-series examples).

    for i in range(steps):
        print("STEP", i)                        -> on_train_batch_start
        def closure():
            optimizer.zero_grad()               -> removed (Lightning's closure zeroes)
            loss = criterion(seq(x), y)         -> training_step ... `return loss`
            loss.backward()                     -> removed
            return loss
        optimizer.step(closure)                 -> removed: Lightning's own closure
        with torch.no_grad():                   -> on_train_batch_end
            print(criterion(seq(x_test), y_test).item())

Only a closure defined in the loop body is read so: one defined before the loop leaves the
loop without a `backward()` of its own, which is how loops are found (TL002 says so).

Lightning hands the optimizer a closure of its own (training_step, zero_grad, backward) in
`optimizer.step(closure=...)`; LBFGS evaluates it as many times as it needs, as it did the
script's. So the closure's body is the step: it is read in place of the `optimizer.step(...)`
call and goes through the step sequence like any other. Everything else in the loop body
ran once per step in the script, whereas training_step runs once per evaluation: the code
before the closure moves to `on_train_batch_start`, the code after the step to
`on_train_batch_end`, both run once per step, in the script's order.

Refused (TL196): code before the closure that binds a name (it would have to be carried into
every evaluation), a closure the loop body also uses otherwise, or that declares `global` /
`nonlocal`, or whose own names the rest of the loop reads (they were the closure's locals:
outside it, those names were other variables).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..analysis.statements import call_method
from ..rule import Rule

CLOSURE_STEP = Rule(
    "TL196",
    "code around an optimizer step's closure cannot run once per step",
    """`optimizer.step(closure)` evaluates the closure (LBFGS: several times per step). The
    conversion makes the closure's body the training_step, which Lightning evaluates the same
    way, and moves the rest of the loop body to `on_train_batch_start` (before the closure) and
    `on_train_batch_end` (after the step), which run once per step as in the script. Code
    before the closure binding a name, a closure used otherwise than by the step, declaring
    `global`/`nonlocal`, or whose local names the rest of the loop reads, has no such place.""",
    """Compute what the closure needs inside it, and give names the closure binds and the loop
    reads afterwards names of their own.""",
    """
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    optimizer = torch.optim.LBFGS(model.parameters())
    for t in range(10):
        noisy = x + 0.01 * torch.randn_like(x)

        def closure():
            optimizer.zero_grad()
            loss = criterion(model(noisy), y)
            loss.backward()
            return loss

        optimizer.step(closure)
    """,
)

RULES = (CLOSURE_STEP,)

FOUND = "closure_step"  # ctx.found: the `optimizer.step(closure)` statement and the closure


def batch_statements(ctx, stmts):
    """Read the closure's body in place of `optimizer.step(closure)` (its `return` dropped),
    the step statement kept after it for the step sequence to claim."""
    for at, stmt in enumerate(stmts):
        closure = _closure_stepped(stmt)
        if closure is None:
            continue
        function = _last_def(stmts[:at], closure)
        if function is None or not _plain(function):
            return stmts
        body = list(function.body.body)
        if not (body and m.matches(body[-1], m.SimpleStatementLine([m.Return(m.Name())]))):
            return stmts
        ctx.found[FOUND] = (stmt, function)
        _check_around(ctx, stmts, function, stmt, body[:-1])
        inlined = body[:-1]
        rest = [s for s in stmts if s is not function]
        at = rest.index(stmt)
        return [*rest[:at], *inlined, *rest[at:]]
    return stmts


def takes_step(ctx, stmt) -> bool:
    """Whether `stmt` is the `optimizer.step(closure)` read above (step_sequence's to claim
    with its argument)."""
    found = ctx.found.get(FOUND)
    return found is not None and found[0] is stmt


def bind(ctx, plan, steps) -> None:
    """Move the code before the closure's body to on_train_batch_start."""
    found = ctx.found.get(FOUND)
    if found is None:
        return
    _, function = found
    first = function.body.body[0]
    start = next((p for p, s in _all_positions(steps) if s is first), None)
    if start is None:
        return
    before = [s for p, s in steps["body"] if p < start]
    if not before:
        return
    steps["body"] = [(p, s) for p, s in steps["body"] if p >= start]
    plan.train_body = [s for _, s in steps["body"]]
    plan.before_step = before


def _all_positions(steps):
    yield from steps["body"]
    for key in ("zero_grad", "step"):
        for position, _, stmt in steps[key]:
            yield position, stmt
    if steps.get("backward_stmt") is not None:
        yield steps["backward"], steps["backward_stmt"]


def _last_def(stmts, name: str) -> cst.FunctionDef | None:
    defs = [s for s in stmts if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return defs[-1] if defs else None


def _closure_stepped(stmt) -> str | None:
    """`NAME` of a statement `optimizer.step(NAME)` / `optimizer.step(closure=NAME)`."""
    receiver = call_method(stmt, "step")
    if receiver is None or not isinstance(receiver, cst.Name):
        return None
    args = stmt.body[0].value.args
    if len(args) != 1 or not isinstance(args[0].value, cst.Name):
        return None
    keyword = args[0].keyword
    if keyword is not None and keyword.value != "closure":
        return None
    return args[0].value.value


def _plain(function: cst.FunctionDef) -> bool:
    """No parameters, decorators or `async`: called by the optimizer with nothing."""
    params = function.params
    return not (
        function.decorators
        or function.asynchronous
        or params.params
        or params.posonly_params
        or params.kwonly_params
        or params.star_arg not in (None, cst.MaybeSentinel.DEFAULT)
        or params.star_kwarg is not None
    )


def _check_around(ctx, stmts, function, step, body) -> None:
    name = function.name.value
    at = stmts.index(step)
    before = [s for s in stmts[:at] if s is not function]
    after = stmts[at + 1 :]
    if m.findall(function, m.Global() | m.Nonlocal()):
        ctx.block(CLOSURE_STEP, f"the closure `{name}` declares global/nonlocal names", function)
    if any(name in collect_names(s).all() for s in [*before, *after]):
        ctx.block(CLOSURE_STEP, f"the closure `{name}` is used besides the step", function)
    locals_ = collect_names(*body).writes
    outside = set().union(set(), *(collect_names(s).reads for s in before))
    if after:
        outside |= collect_names(*after).read_first
    if locals_ & outside:
        local = sorted(locals_ & outside)[0]
        ctx.block(
            CLOSURE_STEP,
            f"`{local}` is the closure's own local, and the loop reads another `{local}` "
            "outside it",
            function,
        )
    for stmt in before:
        if collect_names(stmt).writes:
            ctx.block(
                CLOSURE_STEP,
                "code before the closure's step binds a name: it ran once per step, "
                "training_step runs once per evaluation of the closure",
                stmt,
            )
            return
