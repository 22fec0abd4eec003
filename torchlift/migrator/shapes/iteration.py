"""The step-loop shape: one optimizer step per iteration of a counted loop, no batch loop.

    for it in range(a, b):                    -> iterations = DataLoader(range(a, b),
        <step>                                       batch_size=None, generator=...)
                                                 Trainer(max_epochs=1)
                                                 training_step(batch, ...): it = batch
    while it < n:  ... it += 1                -> the same over range(it, n)
    while True / for it in itertools.count():
        if it >= n: break  ...                -> the same over range(it, n)

An `if <test>: break` whose test is False wherever the loop runs (nanoGPT's `if iter_num == 0
and eval_only: break`, `eval_only = False`) does nothing and is left out first
(dead_breaks.py). A stop test after the step runs the body once even from the end: the loop
is `range(it, max(n, it + 1))`, or `range(it, n)` when `it` and `n` are known constants
with `it < n` (one binding to a literal, or its place in a tuple assignment of literals:
`n, p = 0, 0`). A stop test guarded by a test without effects that the loop does not change
(makemore's `if args.max_steps >= 0 and step >= args.max_steps: break`, -1 meaning forever)
stops at `n if <guard> else sys.maxsize`: never, in any run, when the guard is False.

Full-batch training (`for t in range(500): loss = loss_fn(model(x), y); ...`) and step loops
that fetch their own batch (`xb, yb = get_batch("train")`, `next(data_iter)`) are both this
shape: the counter's values become the batches of a generated loader, one epoch long, and
the body's own batch fetch stays in `training_step`, so the global RNG sees the script's draws
in the script's order (the loader has its own generator: iterating it draws nothing). The
step's statements go through the same patterns as a batch loop's (registry.py); code after
`optimizer.step()` that reads the model runs in `on_train_batch_end`, after the step as in
the script. `range(...)` may be wrapped in `tqdm(...)`; `trange(...)` is `range(...)`.

Not converted here: a counter that is not a plain name (TL120), a file with no `torch` name
to build the loader from (TL121), a `break` in code moved after the step (TL122), a number of
steps not known before the loop (TL123: a metric or any other `while` condition), a `while`
counter that does not go up by one per step (TL124). A loop with a batch loop inside is
epoch_batch's.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .. import registry
from ..analysis.names import builtin_unshadowed, collect_names, file_identifiers
from ..analysis.qualnames import TQDM, TRANGE
from ..analysis.statements import BACKWARD, LOOP, contains, loop_breaks
from ..patterns.input_gradients import samples
from ..patterns.scheduler_every import BATCH_COUNTER
from ..plan import LoopPlan
from ..resolve_names import NOT_CARRIED_BACK
from ..rule import Rule, Unsupported
from ..source.code_text import code_of
from .context import CONTROL_FLOW, LoopContext
from .dead_breaks import BREAK_ONLY, without_dead_breaks
from .epoch_batch import finish_plan, maybe_changed, plan_with, read_step
from .micro_steps import check_claimed, flatten, micro_loop, tail_as_group, without_in_tail

STEP_COUNTER = Rule(
    "TL120",
    "step loop's counter is not a plain name",
    """A step loop `for it in range(N):` becomes one epoch over a loader of the numbers
    `range(N)`, each handed to `training_step` as its batch and bound to the counter's name.
    A counter stored into an attribute or an item (`for state.step in range(N):`) would have
    to be written back into an object outside the module at every step.""",
    """Count with a plain name and store it where needed: `for it in range(N):
    state.step = it`.""",
    """
    class State:
        step = 0


    state = State()
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    for state.step in range(10):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    """,
)

NO_TORCH_NAME = Rule(
    "TL121",
    "step loop in a file that does not `import torch`",
    """The converted step loop builds its loader as `torch.utils.data.DataLoader(range(N), ...,
    generator=torch.Generator())`, reached through the file's `torch` name.""",
    """Add `import torch` at the top of the script.""",
    """
    from torch import nn, optim, randn

    model = nn.Linear(4, 1)
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    x = randn(8, 4)
    for t in range(10):
        optimizer.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
    """,
    uses_header=False,
)

STEP_COUNT = Rule(
    "TL123",
    "step loop's number of steps is not known before the loop",
    """A `while` or `itertools.count()` step loop becomes one epoch over `range(start, stop)`,
    so its stop must be a counter compared with a number of steps the loop does not change:
    `while it < N:`, `while True:` / `for it in itertools.count():` with
    `if it >= N: break` first in the body (or last, after `it += 1`: the body runs at least
    once, `range(it, max(N, it + 1))` unless `it` and `N` are constants with `it < N`). A
    loop that stops on a metric has no such count, nor one whose stop test is guarded by a
    test the loop changes or one with effects (`if max_steps >= 0 and step >= max_steps:
    break`, read once before training, is `range(step, max_steps if max_steps >= 0 else
    sys.maxsize)`: no number of steps when the guard is False).""",
    """Count the steps: `for it in range(max_iters):`, and keep a metric `break` after
    `optimizer.step()` (it ends training early, as in the script).""",
    """
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    loss = torch.tensor(1.0)
    while loss.item() > 0.1:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    """,
)

COUNTER_STEP = Rule(
    "TL124",
    "`while` step loop's counter does not go up by one per step",
    """The iterations of `while it < N:` are `range(it, N)` only when the body adds one to
    the counter once per step, unconditionally, and binds it nowhere else.""",
    """Write `it += 1` once at the top level of the loop body, or loop over `range(...)`.""",
    """
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    it = 0
    while it < 10:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        it += 2
    """,
)

RULES = (STEP_COUNTER, NO_TORCH_NAME, STEP_COUNT, COUNTER_STEP)  # TL122: patterns/after_step.py

_LOADER_NAME = "iterations"
_LOADER_QUALNAMES = (
    "torch.utils.data.DataLoader",
    "torch.utils.data.dataloader.DataLoader",
)


def takes(ctx: LoopContext) -> bool:
    """A `while` loop, or a `for` over range(...) / itertools.count(), whose own body calls
    backward() (no batch loop inside: that is an epoch x batch nest)."""
    loop = ctx.loop
    if isinstance(loop, cst.For):
        counted = _counted_range(ctx, loop.iter) is not None or _count_start(ctx, loop.iter)
        if not counted and _progress_bar(ctx, loop) is None:
            return False
    elif not isinstance(loop, cst.While):
        return False
    body = loop.body.body
    # a loop moving an input by its gradient (a PGD attack) is patterns/input_gradients.py's
    nested = any(contains(s, LOOP) and contains(s, BACKWARD) and not samples(ctx, s) for s in body)
    if nested:  # a loop of micro steps accumulating one step's gradients is still a step
        return micro_loop(ctx, body) is not None
    return any(contains(s, BACKWARD) for s in body)


def plan_loop(ctx: LoopContext) -> LoopPlan:
    return plan_with(_plan, ctx)


def _counted_range(ctx: LoopContext, iterator) -> cst.Call | None:
    """The `range(...)` call a step loop counts over (through tqdm / trange), or None."""
    if isinstance(iterator, cst.Call) and ctx.call_qualnames(iterator) & TQDM:
        if not iterator.args or iterator.args[0].keyword is not None:
            return None
        iterator = iterator.args[0].value
    if not isinstance(iterator, cst.Call):
        return None
    names = ctx.call_qualnames(iterator)
    if "builtins.range" in names:
        return iterator
    if names & TRANGE:
        return range_of_trange(iterator)
    return None


def range_of_trange(call: cst.Call) -> cst.Call | None:
    """`trange(*args, **bar_options)` is `tqdm(range(*args))`: the `range(*args)` it counts
    over, or None when its numbers are not plain positional arguments."""
    args = [a for a in call.args if a.keyword is None]
    if not args or any(a.star for a in args):
        return None
    return cst.Call(func=cst.Name("range"), args=_without_trailing_comma(args))


def _progress_bar(ctx: LoopContext, loop: cst.For):
    """(statement, range call) of `pbar = tqdm(range(N), ...)`, the one binding before
    `for t in pbar:` of the name the loop iterates; None otherwise."""
    if not isinstance(loop.iter, cst.Name):
        return None
    try:
        ctx.locate()
    except Unsupported:
        return None  # the loop's place is refused by whichever shape plans it
    found, count = ctx.binding(loop.iter.value)
    if found is None or count != 1:
        return None
    stmt, value = found
    if not (isinstance(value, cst.Call) and ctx.call_qualnames(value) & (TQDM | TRANGE)):
        return None
    counted = _counted_range(ctx, value)
    return (stmt, counted) if counted is not None else None


def _count_start(ctx: LoopContext, iterator):
    """`itertools.count()` -> cst.Integer 0, `count(start)` -> start; None otherwise."""
    if not isinstance(iterator, cst.Call) or "itertools.count" not in ctx.call_qualnames(iterator):
        return None
    args = iterator.args
    if not args:
        return cst.Integer("0")
    if len(args) == 1 and args[0].keyword is None and not args[0].star:
        return args[0].value
    return None


def _without_trailing_comma(args):
    return [*args[:-1], args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)] if args else []


def _plan(ctx: LoopContext) -> LoopPlan:
    loop = ctx.loop
    ctx.locate()
    if loop.orelse is not None:
        raise Unsupported(CONTROL_FLOW, "`else` on the step loop", loop)
    bounds, target, body = _read_counting(ctx, loop)
    body = registry.run_phase("step_body", ctx, body)
    if isinstance(loop, cst.For) and (
        target.value == "_" or not any(target.value in collect_names(s).reads for s in body)
    ):
        target = None
    counter = target
    flat = flatten(ctx, loop, body, bounds, target) if micro_loop(ctx, body) else None
    if flat is None:
        loader, loader_stmt = number_loader(ctx, _LOADER_NAME, bounds, "the iteration numbers")
    else:
        body, target = flat.body, flat.target
        loader, loader_stmt = number_loader(
            ctx,
            _LOADER_NAME,
            flat.numbers,
            "each iteration's micro steps, (iteration, micro step),",
            collate=flat.collate,
        )
    if flat is None and target is not None:
        start = _range_start(bounds)
        if start is not None:  # the counter is Lightning's batch_idx + start (one epoch)
            ctx.found[BATCH_COUNTER] = (target.value, start)
    steps = read_step(ctx, loop, loader, target, None, body)
    if flat is not None:  # Lightning accumulates the micro steps of each iteration
        check_claimed(steps, flat.calls)
        steps["accumulate"], steps["accumulate_at_end"] = flat.count, True
        steps["clip_in_group"] = True  # clipped once per iteration, before its step
        tail_as_group(steps, flat)
    plan = LoopPlan(
        epoch_loop=loop,
        container=ctx.container,
        in_function=ctx.in_function,
        epoch_var=None,
        epoch_start=None,
        train_loader=loader,
        train_target=target,
        train_index=None,
        train_body=[stmt for _, stmt in steps["body"]],
        loss_name=steps["loss"],
        pre_train=[],
        post_train=[],
    )
    plan.loader_stmt = loader_stmt
    plan.imports.extend(sorted(ctx.found.get("imports", ())))
    plan.step_loop = True
    plan.wrapper = ctx.wrapper
    plan.withs, plan.depths = ctx.withs, ctx.depths
    plan.notes.extend(ctx.notes)
    if "progress_bar_stmt" in ctx.found:
        plan.remove_stmts.append(ctx.found["progress_bar_stmt"])
    plan.add_trainer_arg("max_epochs", "1")
    registry.run_each("bind", ctx, plan, steps)
    if isinstance(loop, cst.While) and plan.after_step and flat is None:
        _check_counter_in_hook(ctx, plan, target.value)
    registry.run_each("read", ctx, plan, steps)
    plan = finish_plan(ctx, plan)
    if isinstance(loop, cst.While) and counter.value not in plan.state:
        plan.train_body = _without_dead_increment(plan.train_body, counter.value)
        if flat is not None:  # `it += 1` in the last micro step's code
            strip = lambda stmts: _without_dead_increment(stmts, counter.value)  # noqa: E731
            plan.train_body = without_in_tail(plan.train_body, flat.tail, strip)
            plan.after_step = without_in_tail(plan.after_step, flat.tail, strip)
        pieces = [*plan.train_body, *plan.after_step]
        if flat is None and not any(counter.value in collect_names(s).reads for s in pieces):
            plan.train_target = None  # no `it = batch` nothing reads
    if (
        isinstance(loop, cst.For)
        and counter is not None
        and counter.value in ctx.scope.after_reads
        and counter.value not in ctx.scope.before_writes
    ):
        ctx.block(NOT_CARRIED_BACK, f"code after the loop reads `{counter.value}`", loop)
    return plan


def _range_start(bounds: str):
    """The start of `range(...)` (code of the counter's values) when it counts by one."""
    numbers = cst.parse_expression(bounds)
    args = numbers.args if isinstance(numbers, cst.Call) else ()
    if any(a.keyword is not None or a.star for a in args) or not 1 <= len(args) <= 2:
        return None
    return args[0].value if len(args) == 2 else cst.Integer("0")


def _read_counting(ctx: LoopContext, loop) -> tuple[str, cst.Name, list]:
    """(code of the `range(...)` of the counter's values, the counter, the step's statements
    without the stop test), or Unsupported."""
    body = list(loop.body.body)
    if isinstance(loop, cst.For):
        if not isinstance(loop.target, cst.Name):
            raise Unsupported(STEP_COUNTER, "the step loop's counter is not a plain name", loop)
        counter = loop.target
        counted = _counted_range(ctx, loop.iter)
        bar = _progress_bar(ctx, loop) if counted is None else None
        if bar is not None:  # `pbar = tqdm(range(N))` before `for t in pbar:`: dropped
            stmt, counted = bar
            ctx.found["progress_bar"] = (loop.iter.value, counted)  # its display calls too
            ctx.found["progress_bar_stmt"] = stmt
        if counted is not None:
            return ctx.module.code_for_node(counted), counter, body
        code, body = count_numbers(ctx, loop, counter.value, body)
        return code, counter, body
    counter, stop, body, once = _while_bounds(ctx, loop, body)
    if any(_own_continues(s) for s in body):
        raise Unsupported(
            CONTROL_FLOW, f"`continue` in a `while` step loop skips `{counter.value} += 1`", loop
        )
    _check_increment(ctx, loop, counter.value, body)
    _check_stop_fixed(ctx, loop, stop, body)
    if once:  # range(counter, max(stop, counter + 1)): the body runs at least once
        after_first = cst.BinaryOperation(counter, cst.Add(), cst.Integer("1"))
        stop = cst.Call(cst.Name("max"), [cst.Arg(stop), cst.Arg(after_first)])
    return f"range({counter.value}, {ctx.module.code_for_node(stop)})", counter, body


def count_numbers(ctx: LoopContext, loop: cst.For, counter: str, body: list) -> tuple[str, list]:
    """(code of the `range(...)` of the counter's values, the body without its stop test) of
    `for counter in itertools.count(start):`: stopped by `if counter >= N: break` first
    (`range(start, N)`) or last (_count_stopped_last); else, when the body has a `break` of
    its own (an episode loop ending on `if done: break`, on a "Solved!" test), the loop runs
    until that break: `range(start, sys.maxsize)`, more than any run reaches, the `break`
    left to the patterns that end the epoch or the run there. With no `break` at all the
    loop never ends: TL123."""
    start = _count_start(ctx, loop.iter)
    if start is None:
        raise Unsupported(STEP_COUNT, "itertools.count() with a step or keywords", loop)
    body = without_dead_breaks(ctx, body)
    stop = _stop_of(ctx, body[0], counter) if body else None
    first = "" if _is_zero(start) else ctx.module.code_for_node(start) + ", "
    if stop is not None:
        _check_stop_fixed(ctx, loop, stop, body[1:])
        return f"range({first}{ctx.module.code_for_node(stop)})", body[1:]
    if len(body) > 1 and _stop_of(ctx, body[-1], counter) is not None:
        return _count_stopped_last(ctx, loop, counter, start, body)
    if not any(loop_breaks(s) for s in body):
        raise Unsupported(
            STEP_COUNT,
            f"a loop over itertools.count() with no `break`: it never ends (stop it with "
            f"`if {counter} >= <steps>: break` first or last, or on a result after the step)",
            loop,
        )
    return f"range({first}{code_of(_maxsize(ctx, loop))})", body


def _count_stopped_last(ctx: LoopContext, loop: cst.For, counter: str, start, body: list):
    """`for i in count(start):` whose stop test `if i >= N: break` ends the body (the
    examples' REINFORCE: `for i_episode in count(1):` ... `if i_episode >= max_episodes:
    break`): the body runs for `start`, `start + 1`, ... up to the first value reaching N, and
    at least once, so over `range(start, max(N, start) + 1)` (`range(start, N + 1)` when both
    are constants with start <= N). A `continue` would skip the test: refused."""
    stop = _stop_of(ctx, body[-1], counter)
    body = body[:-1]
    if any(_own_continues(s) for s in body):
        raise Unsupported(
            STEP_COUNT,
            f"a `continue` skips the stop test `if {counter} >= <steps>: break` at the "
            "end of the loop",
            loop,
        )
    _check_stop_fixed(ctx, loop, stop, body)
    first, last = _constant(ctx, start), _constant(ctx, stop)
    one = cst.Integer("1")
    if first is not None and last is not None and first <= last:
        literal = isinstance(stop, cst.Integer)
        end = cst.Integer(str(last + 1)) if literal else cst.BinaryOperation(stop, cst.Add(), one)
    elif not builtin_unshadowed(ctx.module, "max"):
        raise Unsupported(
            STEP_COUNT,
            f"`{counter}`'s start and the number of steps are not constants with the "
            "start below it (the loop's test comes after the first step), and the file "
            "rebinds `max`",
            loop,
        )
    else:
        highest = cst.Call(cst.Name("max"), [cst.Arg(stop), cst.Arg(start)])
        end = cst.BinaryOperation(highest, cst.Add(), one)
    first_code = "" if _is_zero(start) else ctx.module.code_for_node(start) + ", "
    return f"range({first_code}{code_of(end)})", body


def _own_continues(node) -> bool:
    """Whether `node` holds a `continue` of the loop around it (not of a loop inside it)."""
    if isinstance(node, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        return False
    if isinstance(node, cst.Continue):
        return True
    return any(_own_continues(child) for child in node.children)


def _while_bounds(ctx: LoopContext, loop: cst.While, body: list):
    """(counter, stop expression, statements without the stop test, whether the body runs at
    least once whatever the counter and stop) of `while it < N:` or `while True:` with
    `if it >= N: break` first or last in its body."""
    test = loop.test
    if m.matches(test, m.Comparison(left=m.Name(), comparisons=[m.ComparisonTarget()])):
        target = test.comparisons[0]
        if isinstance(target.operator, cst.LessThan):
            return test.left, target.comparator, body, False
        if isinstance(target.operator, cst.LessThanEqual):
            stop = cst.BinaryOperation(target.comparator, cst.Add(), cst.Integer("1"))
            return test.left, stop, body, False
    if not m.matches(test, m.Name("True")):
        raise Unsupported(
            STEP_COUNT,
            "the `while` condition is not `counter < <steps>` or `True`",
            loop,
        )
    body = without_dead_breaks(ctx, body)
    for stmt in body:
        if isinstance(stmt, cst.If) and m.matches(stmt.body, BREAK_ONLY):
            found = stmt
            break
    else:
        raise Unsupported(STEP_COUNT, "`while True:` with no `if counter >= <steps>: break`", loop)
    counter = _compared_name(found)
    stop = _stop_of(ctx, found, counter) if counter else None
    if stop is None or found is not body[0] and found is not body[-1]:
        raise Unsupported(
            STEP_COUNT,
            "the `break` of `while True:` is not `if counter >= <steps>: break` as the first "
            "or last statement of the loop",
            found,
        )
    if found is body[-1] and not _runs_below(ctx, counter, stop):
        # the test after the step: the body runs once even when the counter starts at the end,
        # so the loop runs max(stop - counter, 1) times: range(counter, max(stop, counter + 1))
        if not builtin_unshadowed(ctx.module, "max"):
            raise Unsupported(
                STEP_COUNT,
                f"`{counter}` and the number of steps are not constants known to start below "
                "it (the loop's test comes after the first step), and the file rebinds `max`",
                found,
            )
    rest = [s for s in body if s is not found]
    return cst.Name(counter), stop, rest, found is body[-1] and not _runs_below(ctx, counter, stop)


def _stop_of(ctx: LoopContext, stmt, counter: str):
    """N of the stop test `stmt` on `counter` (_stop_test), or, for a stop test guarded by a
    test read once (makemore's `if args.max_steps >= 0 and step >= args.max_steps: break`,
    -1 meaning forever), `N if <guard> else sys.maxsize`: when the guard is False the loop
    never stops, and no run reaches sys.maxsize steps. The guard is evaluated once, before
    training: it must have no effect (_effect_free) and the loop must not change what it reads
    (_check_stop_fixed reads the whole expression); None for any other statement."""
    stop = _stop_test(stmt, counter)
    if stop is not None or not isinstance(stmt, cst.If):
        return stop
    test = stmt.test
    if not (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And)):
        return None
    stop = _stop_test(stmt.with_changes(test=test.right), counter)
    if stop is None:
        return None
    if not _effect_free(test.left):
        raise Unsupported(
            STEP_COUNT,
            f"the stop test `{code_of(test.right)}` is guarded by `{code_of(test.left)}`, which "
            "may have effects: evaluated once before training it would not run per step",
            stmt,
        )
    return cst.IfExp(test=test.left, body=stop, orelse=_maxsize(ctx, stmt))


def _effect_free(node) -> bool:
    """Names, attributes, literals and their comparisons / boolean and unary operations:
    reading them again gives the same value while nothing rebinds what they read."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Attribute):
        return _effect_free(node.value)
    if isinstance(node, cst.UnaryOperation):
        return _effect_free(node.expression)
    if isinstance(node, cst.BooleanOperation):
        return _effect_free(node.left) and _effect_free(node.right)
    if isinstance(node, cst.Comparison):
        return _effect_free(node.left) and all(_effect_free(c.comparator) for c in node.comparisons)
    return False


def _maxsize(ctx: LoopContext, stmt) -> cst.Attribute:
    """`sys.maxsize` through the file's own `import sys`, or a `sys` the conversion imports
    (ctx.found["imports"]) when no name of the file is `sys`."""
    module = next((n for n, q in sorted(ctx.names.imports.items()) if q == "sys"), None)
    if module is None:
        if "sys" in file_identifiers(ctx.module.code, "<module>"):
            raise Unsupported(
                STEP_COUNT,
                "the guarded stop test needs `sys.maxsize` (no number of steps when the guard "
                "is False) and the file binds `sys` to something else",
                stmt,
            )
        module = "sys"
        ctx.found.setdefault("imports", set()).add("sys")
    return cst.Attribute(cst.Name(module), cst.Name("maxsize"))


def _compared_name(stmt: cst.If) -> str | None:
    test = stmt.test
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        test = test.right  # a guarded stop test (_stop_of)
    if m.matches(test, m.Comparison(left=m.Name(), comparisons=[m.ComparisonTarget()])):
        return test.left.value
    return None


def _stop_test(stmt, counter: str):
    """N of `if <counter> >= N: break` (no `else`), N + 1 of `if <counter> > N: break`
    (nanoGPT's), or None."""
    if not isinstance(stmt, cst.If) or stmt.orelse is not None:
        return None
    if not m.matches(stmt.body, BREAK_ONLY):
        return None
    test = stmt.test
    if not m.matches(test, m.Comparison(left=m.Name(counter), comparisons=[m.ComparisonTarget()])):
        return None
    target = test.comparisons[0]
    if isinstance(target.operator, cst.GreaterThanEqual):
        return target.comparator
    if isinstance(target.operator, cst.GreaterThan):
        return cst.BinaryOperation(target.comparator, cst.Add(), cst.Integer("1"))
    return None


def _is_zero(node) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 0


def _constant(ctx: LoopContext, node) -> int | None:
    """The int a name or literal surely holds when the loop starts (one binding to a literal;
    `N + 1` of such a name, from `if it > N: break`)."""
    if isinstance(node, cst.Integer):
        return node.evaluated_value
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        left, right = _constant(ctx, node.left), _constant(ctx, node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, cst.Name):
        found, count = ctx.binding(node.value)
        if count != 1:
            return None
        value = found[1] if found is not None else _unpacked(ctx, node.value)
        if isinstance(value, cst.Integer):
            return value.evaluated_value
    return None


def _unpacked(ctx: LoopContext, name: str):
    """The value `name` gets from the one statement binding it before the loop when that is
    a tuple assignment of as many values (`n, p = 0, 0`: `n` is 0), or None."""
    for stmt in ctx.scope_before:
        if not m.matches(stmt, m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget()])])):
            continue
        assign = stmt.body[0]
        targets, values = assign.targets[0].target, assign.value
        if not (isinstance(targets, (cst.Tuple, cst.List)) and isinstance(values, cst.Tuple)):
            continue
        if len(targets.elements) != len(values.elements) or any(
            isinstance(e, cst.StarredElement) for e in (*targets.elements, *values.elements)
        ):
            continue
        for target, value in zip(targets.elements, values.elements):
            if m.matches(target.value, m.Name(name)):
                return value.value
    return None


def _runs_below(ctx: LoopContext, counter: str, stop) -> bool:
    start, end = _constant(ctx, cst.Name(counter)), _constant(ctx, stop)
    return start is not None and end is not None and start < end


def _check_increment(ctx: LoopContext, loop, counter: str, body: list) -> None:
    """The counter of a `while` step loop goes up by one per step: one `counter += 1` at the
    top level of the body, and no other statement binds it."""
    increments = [s for s in body if m.matches(s, _increment(counter))]
    writers = [s for s in body if counter in collect_names(s).writes]
    if len(increments) != 1 or len(writers) != 1:
        raise Unsupported(
            COUNTER_STEP,
            f"`{counter}` does not go up by exactly one per step (`{counter} += 1` once, "
            "unconditionally, and no other assignment)",
            loop,
        )


def _increment(counter: str):
    return m.SimpleStatementLine(
        body=[m.AugAssign(target=m.Name(counter), operator=m.AddAssign(), value=m.Integer("1"))]
    )


def _check_counter_in_hook(ctx: LoopContext, plan: LoopPlan, counter: str) -> None:
    """on_train_batch_end binds the counter to its batch, the value before `counter += 1`:
    code moved there must not read it after an increment left in training_step."""
    if not any(counter in collect_names(s).reads for s in plan.after_step):
        return
    if any(m.matches(s, _increment(counter)) for s in plan.train_body):
        ctx.block(
            COUNTER_STEP,
            f"`{counter} += 1` comes before optimizer.step() and code after the step reading "
            f"the model reads `{counter}`: move the increment to the end of the loop",
            ctx.loop,
        )


def _without_dead_increment(body: list, counter: str) -> list:
    """A counter local to training_step (bound from the batch) needs no `counter += 1` when
    nothing after it reads the counter."""
    for index, stmt in enumerate(body):
        if m.matches(stmt, _increment(counter)):
            rest = body[index + 1 :]
            if not any(counter in collect_names(s).reads for s in rest):
                return body[:index] + rest
    return body


def _check_stop_fixed(ctx: LoopContext, loop, stop, body: list) -> None:
    """The number of steps is read once, before the loop: the body must not rebind it."""
    reads = collect_names(stop).reads
    for stmt in body:
        changed = maybe_changed(ctx, stmt, reads)
        if changed:
            raise Unsupported(
                STEP_COUNT,
                f"the loop may change `{sorted(changed)[0]}`, which its stop test reads",
                stmt,
            )


def _unique(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    return name


def number_loader(
    ctx: LoopContext, base: str, counted_code: str, what: str, collate: str | None = None
) -> tuple[str, str]:
    """(name, statement) of a generated loader over the numbers of `counted_code` (a range),
    named after `base` (unique in the file); `what` says in its comment what they are;
    `collate` maps each number to its batch."""
    loader = _unique(base, file_identifiers(ctx.module.code, "<module>"))
    return loader, _loader_statement(ctx, loader, counted_code, what, collate)


def _loader_statement(
    ctx: LoopContext, loader: str, counted_code: str, what: str, collate: str | None
) -> str:
    """`iterations = DataLoader(range(...), batch_size=None, generator=torch.Generator())`:
    yields the counter's values one at a time (batch_size=None: plain ints), and its own
    generator keeps `iter(loader)` off the global RNG."""
    imports = ctx.names.imports
    torch_name = next((n for n, q in sorted(imports.items()) if q == "torch"), None)
    if torch_name is None:
        raise Unsupported(NO_TORCH_NAME, "no `import torch` to build the step loader", ctx.loop)
    data_loader = next(
        (n for n, q in sorted(imports.items()) if q in _LOADER_QUALNAMES),
        f"{torch_name}.utils.data.DataLoader",
    )
    collate_arg = f", collate_fn={collate}" if collate else ""
    return (
        f"# {what} as batches; its own generator keeps the global RNG untouched\n"
        f"{loader} = {data_loader}({counted_code}, batch_size=None{collate_arg}, "
        f"generator={torch_name}.Generator())"
    )
