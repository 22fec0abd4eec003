"""Loops around whole training runs: k-fold cross-validation, seed and learning-rate sweeps.

    for fold, (tr, va) in enumerate(kf.split(X)):     for fold, (tr, va) in enumerate(kf.split(X)):
        loader = DataLoader(Subset(ds, tr), ...)           loader = DataLoader(Subset(ds, tr), ...)
        model = Net()                                      model = Net()
        optimizer = Adam(model.parameters())   ->          lit_model = LitNet(model, ...)
        best = inf                                         best = inf
        for epoch in range(N):                             trainer = L.Trainer(max_epochs=N, ...)
            for x, y in loader: ...                        trainer.fit(lit_model, loader)
            best = min(best, evaluate(model))              best = lit_model.best
        scores.append(best)                                scores.append(best)

The loop over runs stays, like a `with` kept around the loop (enclosing.py): the epoch loop
inside it is the training loop, and the Trainer statements replace it in the run's body, so
each iteration builds its LightningModule and Trainer and fits once. What the iteration computes
after training reads the values carried back from the module (resolve_names), and what the
next iteration's training reads is carried back too: the statements of the run's body and the
epoch loop itself run again after it (`LoopContext.locate`). The optimizer and its scheduler
are built in `configure_optimizers` from each run's module, as the script built them per run.
Nested sweeps (`for seed in seeds: for lr in lrs:`) are loops over runs each. An optimizer
(and scheduler) kept in the script (patterns/kept_optimizers.py: its scheduler built by a helper
choosing it by name, stepped under an `if`, its rate read after the step) is handed to each
run's module where the run builds it. A function
holding a whole run (`def train_fold(fold): ... for epoch in range(N): ...`) that a loop calls
per fold is converted where its epoch loop stands, like any function holding a training loop
(source/find_loops.py keeps its loop as the candidate rather than the loop calling it), under
the same rule: each call builds its own model and optimizer -- or is given them by a caller
that builds both in each iteration of its loop (`net = Net(); opt = SGD(net.parameters(),
lr=lr); train(net, opt)`: the binding reaching the call, analysis/reaching.py).

A model built once before the loop over runs (a curriculum's stages, pretraining then
fine-tuning, a sweep going on training one model), each run building its own optimizer, is
given to each run's module: neither Trainer re-initialises it nor puts it back in train mode, so
each fit goes on from what the previous run left, as the script did (mode_calls.py keeps the
script's `model.train()` where a run may leave it in eval mode).

Refused (TL193), each a run that depends on the previous one in a way one `fit` per iteration
does not keep: the optimizer, scheduler or GradScaler built once before the loop over runs, or
an optimizer given to the function a loop calls per run without being built in that iteration
of the caller's loop (refused at the call; training continues across runs: the
optimizer's state, the scaler's scale would restart with each fit), a `break` / `return`
leaving the loop over runs (a sweep stopping on a result), `for ... else` on it, and DDP
(every fit would launch its processes again).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import bound_names
from ..analysis.qualnames import TQDM, TRANGE
from ..analysis.statements import BACKWARD, LOOP, contains
from ..rule import Refused, Rule, Unsupported
from .enclosing import blocks, holders

RUN_STATE = Rule(
    "TL193",
    "a loop over training runs (folds, seeds, a sweep) whose runs are not independent",
    """A loop around the epoch loop (cross-validation folds, seeds, a learning-rate sweep, a
    curriculum's stages) is converted to one `Trainer.fit` per iteration when each iteration
    builds its own optimizer (and scheduler, GradScaler) before its epochs; the model may be one
    object every run goes on training. An optimizer or scaler built once before that loop is
    trained on across iterations: the optimizer's state (momentum, Adam's moments) and a
    GradScaler's scale would restart with each fit. A `break` or `return`
    leaving the loop over runs, `for ... else` on it, and DDP (each fit would launch its
    processes again) are not converted either.""",
    """Build the optimizer inside the loop over runs (and the model, for a fresh one per fold), or
    train one run per script; stop a sweep after the loop instead of breaking out of it.""",
    """
    for fold in range(3):
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
    """,
)

RULES = (RUN_STATE,)


def retarget(ctx) -> None:
    """When `ctx.loop` is a loop over training runs, make the epoch loop inside it the loop to
    convert and record the loops over runs around it (`ctx.runs`, outermost first)."""
    ctx.runs = []
    loop, runs = ctx.loop, []
    while isinstance(loop, cst.For):
        inner = _training_statement(ctx, loop)
        if not isinstance(inner, cst.For):
            break
        runs.append(loop)
        if is_epoch_loop(ctx, inner):
            ctx.loop, ctx.runs = inner, runs
            return
        loop = inner
    ctx.runs = _runs_around(ctx)


def _runs_around(ctx) -> list:
    """The `for` loops holding the candidate epoch loop, outermost first, each one whose only
    training statement is the next loop in: a fold loop around an epoch loop that calls a
    per-epoch helper (`for epoch in ...: train_one_epoch(...)`, the helper holding the batch
    loop), which source/find_loops.py picks as the candidate rather than the fold loop."""
    path = holders(ctx.module, ctx.loop) or []
    runs, inner = [], ctx.loop
    for holder in reversed(path):
        if isinstance(holder, cst.With):
            continue  # a `with` kept around the loop (enclosing.py)
        if not isinstance(holder, cst.For) or _training_statement(ctx, holder) is not inner:
            break
        runs.insert(0, holder)
        inner = holder
    return runs


def _training_statement(ctx, loop: cst.For):
    """The one statement of `loop`'s body (looking into `with` blocks) that calls backward()
    -- itself or through a function of the script -- or None when there are several or none."""
    body = list(loop.body.body)
    while True:
        found = [s for s in body if _trains(ctx, s)]
        if len(found) != 1:
            return None
        if not isinstance(found[0], cst.With):
            return found[0]
        body = list(found[0].body.body)


def _trains(ctx, stmt) -> bool:
    """`stmt` calls backward(), or calls a module-level function of the script that does."""
    if contains(stmt, BACKWARD):
        return True
    functions = {
        s.name.value: s for s in ctx.module.body if isinstance(s, cst.FunctionDef)
    }
    return any(
        contains(functions[call.func.value], BACKWARD)
        for call in m.findall(stmt, m.Call(func=m.Name()))
        if call.func.value in functions
    )


def is_epoch_loop(ctx, loop: cst.For) -> bool:
    """`for epoch in range(N)` (`range(a, b)`, `trange`, `tqdm(range(...))`, enumerate of
    them) around a loop calling backward(): a training run's epochs."""
    iterator = loop.iter
    for _ in range(2):
        names = ctx.call_qualnames(iterator) if isinstance(iterator, cst.Call) else set()
        if names & (TQDM | {"builtins.enumerate"}) and iterator.args:
            iterator = iterator.args[0].value
    if not isinstance(iterator, cst.Call):
        return False
    if not ctx.call_qualnames(iterator) & ({"builtins.range"} | TRANGE):
        return False
    if not 1 <= len(iterator.args) <= 2:  # a stepped range is manual batching
        return False
    return any(contains(s, LOOP) and contains(s, BACKWARD) for s in loop.body.body)


def check(ctx, plan) -> None:
    """Refuse (TL193) a planned loop whose runs one fit per iteration would not keep apart."""
    runs = getattr(ctx, "runs", [])
    blockers = []

    def block(reason, node):
        blockers.append(Unsupported(RUN_STATE, reason, node))

    if runs:
        # built in the innermost loop over runs: an object built per seed around a loop over
        # learning rates is trained on by every run of that inner loop
        inner = runs[-1]
        owned = {id(s) for s in ctx.scope_before[_header_index(ctx, inner) :]}
        where = "built once, before the loop over runs"
    elif ctx.function is not None and _called_in_a_loop(ctx.module, ctx.function.name.value):
        # a function holding a whole run, called per fold: each call must build its own
        inner, owned = ctx.function, {id(s) for s in ctx.scope_before}
        where = f"not built by `{ctx.function.name.value}()`, which a loop calls once per run"
    else:
        return
    given, blocked = _given_per_run(ctx, plan, block) if ctx.function is inner else (set(), set())
    # a model built once, before the runs, is not named: each run's module is given the one
    # object, which neither Trainer re-initialises nor puts back in train mode, so every fit
    # goes on from the weights and mode the previous run left, as the script's runs did
    # (pretraining then fine-tuning, a curriculum's stages); what would restart with each fit
    # is the state built in configure_optimizers or by the Trainer's precision plugin
    named = []
    if plan.scaler and ctx.found.get("scaler_off") != plan.scaler:  # off: it scales nothing
        named.append((plan.scaler, "loss scale, which each fit's own scaler restarts"))
    for name, left in named:
        if name in given | blocked:
            continue
        if not _built_per_run(ctx, name, owned, inner):
            source = _source_name(ctx, name)
            shown = f"`{name}` (the script's `{source}`)" if source != name else f"`{name}`"
            block(
                f"{shown} is {where}: every run would go on with what the previous one "
                f"left (its {left})",
                inner,
            )
    for optimizer in plan.optimizers:
        if optimizer.name in blocked:
            continue
        # not built by each call; a scheduler handed over beside it is not read per run
        handed = optimizer.scheduler_held or optimizer.scheduler_given
        fresh = optimizer.name in given and not handed
        # kept in the script where each run builds it (kept_optimizers.py: its scheduler
        # built by a helper, stepped under an `if`, its rate read after the step): each fit
        # is handed the run's own, as each run trained its own
        built_here = optimizer.name not in ctx.params and optimizer.kept_stmts
        outside = [s for s in optimizer.kept_stmts if id(s) not in owned]
        if built_here and not outside:
            continue
        if built_here:  # kept, and built where a run does not build it again
            block(
                f"`{optimizer.name}` (or its scheduler), kept in the script, is {where}: "
                "runs sharing one optimizer are not converted",
                outside[0],
            )
            continue
        kept = optimizer.given and not fresh
        for stmt in (optimizer.stmt, optimizer.scheduler_stmt):
            if kept or (stmt is not None and id(stmt) not in owned):
                block(
                    f"`{optimizer.name}` (or its scheduler) is {where}: its state would "
                    "restart with each fit, built in configure_optimizers",
                    inner,
                )
                break
    for run in runs:
        if run.orelse is not None:
            block("`for ... else` on the loop over runs", run)
        for stmt in _leaving(run):
            block("`break` / `return` leaves the loop over runs (a sweep stopping early)", stmt)
    keywords = {keyword for keyword, _ in plan.trainer_args}
    if plan.trainer_at is not None or "strategy" in keywords:
        block("DDP inside a loop over runs: every fit would launch its processes again", inner)
    if blockers:
        raise Refused(blockers)


def carried_across_runs(ctx, name: str) -> bool:
    """`name` is bound to an object the loops over runs around the loop do not build again in
    each run (a model every run goes on training): each run starts with what the previous one
    left."""
    runs = getattr(ctx, "runs", None)
    if not runs:
        return False
    owned = {id(s) for s in ctx.scope_before[_header_index(ctx, runs[-1]) :]}
    return not _built_per_run(ctx, name, owned, runs[-1])


def _given_per_run(ctx, plan, block) -> tuple[set[str], set[str]]:
    """(given, blocked): the model and optimizer parameters of the function holding the run
    that every call of it in a loop passes built afresh in that iteration (`net = Net(); opt
    = SGD(...); train(net, opt)`: each fit trains the objects its call was given, as the call
    did), and those some call in a loop passes otherwise (blocked at that call). A scheduler
    is checked with its optimizer as before: built in the function, or refused."""
    from ..patterns.passed_in import not_built_per_run

    # a model may be the one object every run goes on training (check()): only optimizers
    params = [o.name for o in plan.optimizers if o.given and o.name in ctx.params]
    given, blocked = set(), set()
    for param in params:
        call = not_built_per_run(ctx, param, _alias_of)
        if call is None:
            given.add(param)
            continue
        blocked.add(param)
        block(
            f"`{param}`, which `{ctx.function.name.value}()` is given, is not built afresh in "
            "each run of the loop calling it: every run would go on with what the previous "
            "one left (weights, optimizer state)",
            call,
        )
    return given, blocked


def _header_index(ctx, run) -> int:
    header_stmt = ctx.run_headers[id(run)]
    return next(i for i, s in enumerate(ctx.scope_before) if s is header_stmt)


def _built_per_run(ctx, name: str, owned: set[int], run: cst.For, seen=frozenset()) -> bool:
    """`name` is bound last, before the loop, by a statement every iteration of `run` runs:
    a plain statement of its body (or of a `with` there) or its own header (`for name, model
    in models.items():`), not one under an `if` that may leave the previous run's object."""
    last = _last_binding(ctx, name)
    if last is None or id(last) not in owned:
        return False
    other = _alias_of(last, name)
    if other is not None and other not in seen | {name}:  # `model = net`: the object is `net`'s
        return _built_per_run(ctx, other, owned, run, seen | {name})
    return isinstance(last, cst.SimpleStatementLine) or last is ctx.run_headers.get(id(run))


def _source_name(ctx, name: str) -> str:
    """The name `name` is another name for, following `name = other` back (`model = net`)."""
    seen = {name}
    while True:
        last = _last_binding(ctx, name)
        other = _alias_of(last, name) if last is not None else None
        if other is None or other in seen:
            return name
        seen.add(other)
        name = other


def _last_binding(ctx, name: str):
    """The last statement before the loop binding `name`, past `name = name.to(device)` (the
    same object, moved)."""
    bindings = [s for s in ctx.scope_before if name in bound_names(s)]
    while len(bindings) > 1 and _alias_of(bindings[-1], name) == name:
        bindings.pop()
    return bindings[-1] if bindings else None


def _alias_of(stmt, name: str) -> str | None:
    """`other` when `stmt` is `name = other` (maybe `.to(...)` / `.cuda(...)` after, which
    move a module in place and return it): another name for the same object, not a new one
    (an inlined trainer class's `self.model = model.to(self.device)` given the script's `net`)."""
    moved = m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("to") | m.Name("cuda")))
    pattern = m.SimpleStatementLine(
        [m.Assign([m.AssignTarget(m.Name(name))], m.Name() | moved)]
    )
    if not m.matches(stmt, pattern):
        return None
    value = stmt.body[0].value
    return value.value if isinstance(value, cst.Name) else value.func.value.value


def _called_in_a_loop(module: cst.Module, name: str) -> bool:
    """A loop of the module calls the function `name` (a run per fold, seed, ...)."""
    call = m.Call(func=m.Name(name))
    return any(m.findall(loop, call) for loop in m.findall(module, m.For() | m.While()))


def _leaving(run: cst.For) -> list:
    """`break` / `return` statements that leave `run` (not an inner loop's own `break`)."""
    found = []

    def walk(stmts, in_loop: bool):
        for stmt in stmts:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Return) or (
                        isinstance(small, cst.Break) and not in_loop
                    ):
                        found.append(stmt)
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            else:
                nested = in_loop or isinstance(stmt, (cst.For, cst.While))
                for block in blocks(stmt):
                    walk(block, nested)

    walk(run.body.body, False)
    return found


def next_iteration(body: list, index: int, run_header) -> list:
    """What runs after the statement at `index` of a run's body, before the loop leaves: the
    rest of the body, then the next iteration's header and statements up to that one."""
    return [*body[index + 1 :], run_header, *body[: index + 1]]
