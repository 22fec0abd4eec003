"""The epoch x batch shape: `for epoch in range(N):` around one `for batch in loader:`.

    for epoch in range(start, stop):          -> Trainer(max_epochs=stop - start)
        <pre>                                 -> on_train_epoch_start
        for i, batch in enumerate(loader):    -> training_step(batch, batch_idx)
            <step>                            (statements patterns do not claim)
        <post>  [one evaluation pass]         -> on_train_epoch_end  [validation_step]

This module reads that skeleton and hands every part to the patterns, in the registry's order
and phases (registry.py): the epoch body (helpers inlined), the code before the batch loop
(progress bars), each batch-loop statement (claimed by the step sequence, AMP, clipping,
accumulation, ...), then the patterns' contributions to the plan (bind, read, clean).
Step loops with no batch loop inside are shapes/iteration.py's. Not converted here: `while`
loops around a batch loop (TL102), outer loops that are not `range` epochs (TL101),
batch loops over something else than a loader name (TL104), control flow the Trainer cannot
keep (TL107), epoch-level code whose place would change its result (TL109).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .. import registry
from ..analysis.epoch_constants import epoch_constant
from ..analysis.names import collect_names, scope_reads
from ..analysis.output_effects import console_call
from ..analysis.passed_values import call_cannot_change, immutable_names, rebound_by_calls
from ..analysis.plain_objects import optimizer_calls, why_may_step
from ..analysis.python_lists import is_python_sequence
from ..analysis.qualnames import TQDM, TRANGE
from ..analysis.statements import (
    BACKWARD,
    FLOW,
    FLOW_NO_BREAK,
    LOOP,
    call_method,
    contains,
    direct_breaks,
    statements,
)
from ..patterns.accumulation import ACCUMULATION
from ..patterns.bar_closes import closes_in
from ..patterns.bound_bar import DISPLAY
from ..patterns.epoch_start_loops import draws_nothing
from ..patterns.eval_passes import EVAL_SHAPE, eval_loop_of
from ..patterns.input_gradients import samples
from ..patterns.lr_decay import sets_param_group_lr
from ..patterns.manual_optimization import MANUAL_STEP, optimizers_in_a_loop
from ..patterns.passed_in import called_in_file, given_eval_loader, given_loader
from ..patterns.step_sequence import STEP_SEQUENCE
from ..plan import LoopPlan
from ..rule import Refused, Rule, Unsupported
from . import not_a_loader, step_budget
from .context import CONTROL_FLOW, EPOCH_STATEMENT, NOT_A_LOADER, Consequence, LoopContext
from .runs import is_epoch_loop

NOT_AN_EPOCH_LOOP = Rule(
    "TL101",
    "loop with backward() is not an epoch loop over range(...) around a batch loop",
    """The converted shape is `for epoch in range(N):` (or `range(a, b)`, `trange`, `tqdm(range
    (N))`) around one `for batch in loader:` loop. An outer loop over something else, a range
    with a step, or a batch loop with no epoch loop around it has no `max_epochs` to give the
    Trainer.""",
    """Write the epoch loop as `for epoch in range(num_epochs):`. A single pass over the data
    can be wrapped in `for epoch in range(1):`.""",
    """
    for epoch in range(0, 10, 2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

WHILE_LOOP = Rule(
    "TL102",
    "`while` loop around a batch loop is not converted",
    """A `while` loop around a batch loop stops on a condition the migrator cannot turn into
    `max_epochs` with the same number of steps. A step budget is converted to `max_steps`
    (shapes/step_budget.py): `while step < N:`, `while True:` or `for epoch in
    itertools.count():` around a batch loop ending on `if step >= N: break`, the counter
    from 0 going up once per optimizer step, the `while` test the same counter and limit (or
    the endless loop repeating the test after the batch loop), N not known to be below 1.
    (A `while` step loop with no batch loop inside, counting its steps, is converted:
    shapes/iteration.py.)""",
    """End the batch loop on the budget, `step += 1` after `optimizer.step()` then `if step >=
    max_steps: break` last, with `while step < max_steps:` around it; or count epochs with
    `for epoch in range(N):`; if the loop stops on a metric, convert with a fixed N first and
    add an `EarlyStopping` callback by hand.""",
    """
    step = 0
    while step < 10:
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            step += 1
    """,
)


RULES = (NOT_AN_EPOCH_LOOP, WHILE_LOOP)


def plan_loop(ctx: LoopContext) -> LoopPlan:
    return plan_with(_plan, ctx)


def plan_with(planner, ctx: LoopContext) -> LoopPlan:
    """The complete plan `planner` makes of `ctx.loop`, or Refused with every blocker found.

    A check whose failure leaves the rest of the loop readable records its blocker
    (`ctx.block`) and planning goes on, so the user sees every reason at once; a failure
    that leaves nothing sensible to read further raises Unsupported at once."""
    try:
        plan = planner(ctx)
    except Unsupported as fatal:
        ctx.blockers.append(fatal)
    except Consequence:
        pass
    except Exception:
        if not ctx.blockers:
            raise
        # analysis went on past a recorded blocker and tripped over what it refused:
        # the loop is refused anyway, and the blockers say why
    if ctx.blockers:
        raise Refused(ctx.blockers)
    return plan


def _plan(ctx: LoopContext) -> LoopPlan:
    loop = ctx.loop
    ctx.locate()
    budget = isinstance(loop, cst.While) or step_budget.counted_epochs(ctx, loop)
    if isinstance(loop, cst.While):  # a step budget over the loader (step_budget.py)
        epoch_var, start, max_epochs, epoch_body = step_budget.read_while(ctx, loop, WHILE_LOOP)
    elif budget:
        epoch_var, start, max_epochs, epoch_body = step_budget.read_count(ctx, loop, WHILE_LOOP)
    else:
        epoch_var, start, max_epochs, epoch_body = _read_epoch_loop(ctx, loop)
    if loop.orelse is not None:
        raise Unsupported(CONTROL_FLOW, "`for ... else` on the epoch loop", loop)
    epoch_body = registry.run_phase("epoch_body", ctx, epoch_body)
    pre, batch_loop, post = _split_epoch_body(ctx, epoch_body)
    ctx.found["batch_loop"] = batch_loop  # patterns/early_break.py's counted limit
    pre = registry.run_phase("before_batch_loop", ctx, batch_loop, pre)
    ctx.found["epoch_pre"] = list(pre)  # patterns/amp.py's scaler built per epoch
    steps = _read_batch_loop(ctx, batch_loop, pre)
    plan = LoopPlan(
        epoch_loop=loop,
        container=ctx.container,
        in_function=ctx.in_function,
        epoch_var=epoch_var,
        epoch_start=start,
        train_loader=steps["loader"],
        train_target=steps["target"],
        train_index=steps["index"],
        train_body=[stmt for _, stmt in steps["body"]],
        loss_name=steps["loss"],
        pre_train=pre,
        post_train=post,
    )
    plan.loader_stmt = ctx.found.get("loader_stmt")
    plan.imports.extend(sorted(ctx.found.get("imports", ())))  # `sys` of a count()'s range
    plan.wrapper = ctx.wrapper
    plan.withs, plan.depths = ctx.withs, ctx.depths
    plan.notes.extend(ctx.notes)
    plan.add_trainer_arg("max_epochs", ctx.module.code_for_node(max_epochs))
    bar = ctx.found.get("epoch_bar")
    if bar is not None:
        plan.remove_stmts.append(bar)
        plan.removed_why.append((bar, "the epoch bar -> the Trainer's progress bar"))
    for phase in ("bind", "read"):
        registry.run_each(phase, ctx, plan, steps)
    if budget:
        step_budget.check(ctx, plan, WHILE_LOOP)
    return finish_plan(ctx, plan)


def finish_plan(ctx: LoopContext, plan: LoopPlan) -> LoopPlan:
    """The steps every shape ends with: the loader check, the patterns' `clean` phase, and
    what each name of the moved code becomes (resolve_names)."""
    loop = ctx.loop
    given = plan.optimizers and plan.optimizer.given
    if plan.train_loader in ctx.params and (given or called_in_file(ctx)):
        given_loader(ctx, plan.train_loader, loop)  # read at the call sites
    elif plan.train_loader in ctx.params:
        raise Unsupported(
            NOT_A_LOADER,
            f"the loader `{plan.train_loader}` is a parameter of the function holding the "
            "loop: convert the script that builds it",
            loop,
        )
    binding, _ = ctx.binding(plan.train_loader)
    if binding is not None and is_python_sequence(ctx.module, binding[1]):
        raise Unsupported(
            NOT_A_LOADER,
            f"the batch loop iterates `{plan.train_loader}`, a Python list of samples: "
            "`Trainer.fit` takes a list for several loaders, and a DataLoader around it would "
            "draw a seed from torch's generator each epoch, which the script never did",
            binding[0],
        )
    if ctx.function is not None:
        for evaluation in (plan.validation, plan.test):
            if evaluation is not None and evaluation.loader in ctx.params:
                given_eval_loader(ctx, evaluation.loader)  # a wrapper there must map only
    registry.run_each("clean", ctx, plan)
    plan.index_start = dict(ctx.index_start)
    for first in ctx.index_start.values():
        if not isinstance(first, cst.Integer):
            raise Unsupported(NOT_A_LOADER, "enumerate start is not a constant", loop)
    from ..resolve_names import resolve_names, scope_info

    ctx.scope = scope_info(ctx, plan)
    ctx.uses = resolve_names(plan, ctx.scope, ctx.block, ctx.found.get("given_arguments"))
    return plan


def _epoch_bar(ctx: LoopContext, loop: cst.For) -> cst.BaseExpression:
    """The loop's iterator; for an epoch bar bound to a name read nowhere else -- once before
    the loop (`train_iterator = trange(epochs, desc="Epoch")`, then `for _ in
    train_iterator:`) or in the loop's header (`for epoch in (pbar := trange(n)):`) -- the
    bar's call: the binding goes (the Trainer draws its own bar), and so do the bar's display
    calls in the epoch (`pbar.set_postfix(...)`, with arguments that change nothing: the
    display patterns drop them as a wrapping bar's, bar_displays.py refusing any other use)."""
    iterator = loop.iter
    if isinstance(iterator, cst.NamedExpr) and isinstance(iterator.target, cst.Name):
        name, value, binding = iterator.target.value, iterator.value, None
        if ctx.binding(name)[1] or not isinstance(value, cst.Call):
            return iterator
    elif isinstance(iterator, cst.Name):
        name = iterator.value
        binding, count = ctx.binding(name)
        if binding is None or count != 1 or not isinstance(binding[1], cst.Call):
            return iterator
        binding, value = binding
    else:
        return iterator
    names = ctx.call_qualnames(value)
    ranged = names & TRANGE or (
        names & TQDM
        and value.args
        and value.args[0].keyword is None
        and ctx.call_qualnames(value.args[0].value) & {"builtins.range"}
    )
    if not ranged:
        return iterator
    others = [s for s in [*ctx.scope_before, *ctx.scope_after] if name in scope_reads(s)]
    if others:
        raise Unsupported(
            NOT_AN_EPOCH_LOOP,
            f"the epoch bar `{name}` is used besides the loop (the Trainer draws its own bar)",
            others[0],
        )
    # in the loop, `bar.close()` in an `if` (a `max_steps` stop: bar_closes.py) and display
    # calls go with the bar
    inside = [
        s
        for s in loop.body.body
        if name in collect_names(s).all()
        and closes_in(s, name) is None
        and not _only_displays(s, name)
    ]
    if inside:
        raise Unsupported(
            NOT_AN_EPOCH_LOOP,
            f"the epoch bar `{name}` is used besides the loop (the Trainer draws its own bar)",
            inside[0],
        )
    if binding is not None:
        ctx.found["epoch_bar"] = binding
    ctx.found["epoch_bar_name"] = name
    ctx.found["wrapping_bars"] = {*ctx.found.get("wrapping_bars", ()), name}
    return value


def _only_displays(stmt, name: str) -> bool:
    """Every use of the bar `name` in `stmt` is a statement of its own calling a display
    method on it (`pbar.set_postfix(...)`, also under an `if`)."""
    uses = m.findall(stmt, m.Name(name))
    displays = [
        s
        for s in m.findall(stmt, m.SimpleStatementLine())
        if any(m.matches(call_method(s, d), m.Name(name)) for d in DISPLAY)
    ]
    return len(uses) == len(displays)


def _read_epoch_loop(ctx: LoopContext, loop: cst.For):
    iterator = _epoch_bar(ctx, loop)
    if isinstance(iterator, cst.Call) and ctx.call_qualnames(iterator) & TQDM:
        if iterator.args and iterator.args[0].keyword is None:
            iterator = iterator.args[0].value
    iterator, target = _unwrap_enumerate(ctx, loop, iterator)
    names = ctx.call_qualnames(iterator)
    if not (names & ({"builtins.range"} | TRANGE)):
        if _epoch_loop_inside(ctx, loop):
            raise Unsupported(
                NOT_AN_EPOCH_LOOP,
                "loop around the epoch loop (a training run per iteration: folds, seeds, a "
                "sweep) whose epoch loop is in a function it calls, under another block or "
                "beside another training loop: one Trainer.fit per iteration is converted "
                "for an epoch loop written in the body of the loop over runs (shapes/runs.py)",
                loop,
            )
        if isinstance(loop.target, cst.BaseExpression) and isinstance(
            loop.iter, (cst.Name, cst.Call)
        ):
            raise Unsupported(
                NOT_AN_EPOCH_LOOP,
                "batch loop without an epoch loop around it: wrap it in "
                "`for epoch in range(1):` to convert it",
                loop,
            )
        raise Unsupported(
            NOT_AN_EPOCH_LOOP,
            "outer loop calling backward() is not `for epoch in range(...)`",
            loop,
        )
    args = iterator.args
    if ctx.call_qualnames(iterator) & TRANGE:  # its keywords draw the bar: desc=, leave=
        args = [a for a in args if a.keyword is None]
    if any(a.keyword is not None or a.star for a in args) or not 1 <= len(args) <= 2:
        raise Unsupported(NOT_AN_EPOCH_LOOP, "epoch range(...) with a step or keywords", loop)
    if isinstance(target, cst.Name):
        epoch_var = target.value if target.value != "_" else None
    else:
        raise Unsupported(NOT_AN_EPOCH_LOOP, "epoch loop target is not a single name", loop)
    if len(args) == 1:
        start, max_epochs = None, args[0].value
    else:
        start, stop = args[0].value, args[1].value
        if (
            isinstance(stop, cst.BinaryOperation)
            and isinstance(stop.operator, cst.Add)
            and isinstance(stop.right, cst.Integer)
            and isinstance(start, cst.Integer)
            and start.evaluated_value == stop.right.evaluated_value
        ):
            max_epochs = stop.left
        elif (  # range(start_epoch, start_epoch + N): N epochs
            isinstance(stop, cst.BinaryOperation)
            and isinstance(stop.operator, cst.Add)
            and stop.left.deep_equals(start)
        ):
            max_epochs = stop.right
        elif isinstance(start, cst.Integer) and isinstance(stop, cst.Integer):
            max_epochs = cst.Integer(str(stop.evaluated_value - start.evaluated_value))
        elif isinstance(start, cst.Integer) and start.evaluated_value == 0:
            max_epochs = stop  # range(0, args.epochs)
        elif _bound_to_zero(ctx, start):
            start, max_epochs = None, stop
        else:
            max_epochs = cst.BinaryOperation(left=stop, operator=cst.Subtract(), right=start)
        if isinstance(start, cst.Integer) and start.evaluated_value == 0:
            start = None
    return epoch_var, start, max_epochs, list(loop.body.body)


def _bound_to_zero(ctx: LoopContext, start) -> bool:
    """`range(epochs_run, max_epochs)` after `epochs_run = 0`, its only binding before the
    loop, rebound by no function declaring it `global` / `nonlocal`: the epochs count from 0
    (the DDP tutorial series' Trainer with no snapshot to resume from)."""
    if not isinstance(start, cst.Name):
        return False
    binding, count = ctx.binding(start.value)
    declared = {
        n.name.value
        for node in m.findall(ctx.module, m.Global() | m.Nonlocal())
        for n in node.names
    }
    return (
        binding is not None
        and count == 1
        and m.matches(binding[1], m.Integer("0"))
        and start.value not in declared
    )


def _epoch_loop_inside(ctx: LoopContext, loop: cst.For) -> bool:
    """Whether `loop` holds an epoch loop, `for ... in range(...)` around a loop calling
    backward(), itself or in a function of the script it calls: `loop` is then a loop around
    training runs (`for fold, (tr, va) in enumerate(kfold.split(X)):`), not an epoch loop
    over something else than a range."""
    functions = {
        stmt.name.value: stmt for stmt in ctx.module.body if isinstance(stmt, cst.FunctionDef)
    }
    called = [
        functions[call.func.value]
        for call in m.findall(loop.body, m.Call(func=m.Name()))
        if call.func.value in functions
    ]
    inside = [s for node in [loop, *called] for s in statements(node)[1:]]
    return any(isinstance(inner, cst.For) and is_epoch_loop(ctx, inner) for inner in inside)


def _unwrap_enumerate(ctx: LoopContext, loop: cst.For, iterator):
    """`for epoch, _ in enumerate(range(N)):` counts epochs as `for epoch in range(N):` does:
    (the range, the epoch target). The range's own values must go unread (`_` or a name the
    loop never reads)."""
    if not (
        isinstance(iterator, cst.Call)
        and "builtins.enumerate" in ctx.call_qualnames(iterator)
        and len(iterator.args) == 1
        and iterator.args[0].keyword is None
        and not iterator.args[0].star
        and m.matches(loop.target, m.Tuple([m.Element(m.Name()), m.Element(m.Name())]))
        and ctx.call_qualnames(iterator.args[0].value) & ({"builtins.range"} | TRANGE)
    ):
        return iterator, loop.target  # not a count of epochs: the caller says what it is
    inner = iterator.args[0].value
    count, value = (e.value.value for e in loop.target.elements)
    if value != "_" and value in collect_names(loop.body).reads:
        raise Unsupported(
            NOT_AN_EPOCH_LOOP,
            "enumerate(range(...)) epoch loop reads the range's value besides the count",
            loop,
        )
    return inner, cst.Name(count)


def _split_epoch_body(ctx: LoopContext, stmts):
    """(code before the batch loop, the batch loop, code after it). One evaluation pass may
    follow the batch loop (its statement is kept in `post`, noted for eval_passes)."""
    pre, post = [], []
    batch_loop = None
    for stmt in stmts:
        stmt = _inside_batch_bar(ctx, stmt)
        if contains(stmt, FLOW) and not isinstance(stmt, cst.For):
            if batch_loop is not None and _only_direct_breaks(stmt):
                ctx.found.setdefault("epoch_breaks", []).append(stmt)  # epoch_stop's to read
            elif batch_loop is not None and _evaluation_breaks(ctx, stmt):
                pass  # the pass's own `break`: eval_dry_run's to read
            else:
                ctx.block(CONTROL_FLOW, "epoch loop body uses break/continue/return", stmt)
        if contains(stmt, BACKWARD):
            if isinstance(stmt, cst.For) and batch_loop is None:
                batch_loop = stmt
                continue
            ctx.block(
                ACCUMULATION,
                "backward() is called outside a single batch loop of the epoch "
                "(conditional or several training loops)",
                stmt,
            )
            continue
        if batch_loop is None:
            if (
                contains(stmt, LOOP)
                and not _only_param_group_loops(stmt)
                and not draws_nothing(ctx, stmt)
            ):
                helper = ctx.found.get("inlined_from", {}).get(id(stmt))
                where = f" (in `{helper}()`, called before it)" if helper else ""
                ctx.block(
                    EPOCH_STATEMENT,
                    f"loop before the training batch loop in the epoch{where}",
                    stmt,
                )
            pre.append(stmt)
        elif "validation_stmt" not in ctx.found and eval_loop_of(ctx, stmt) is not None:
            ctx.found["validation_stmt"] = stmt
            post.append(stmt)  # placeholder: split by eval_passes
        else:
            if contains(stmt, LOOP) and not ctx.harmless_loop(stmt):
                ctx.block(
                    EVAL_SHAPE,
                    "second loop over data in the epoch is not a validation loop "
                    "under torch.no_grad()",
                    stmt,
                )
            post.append(stmt)
    if batch_loop is None:
        raise Unsupported(NOT_AN_EPOCH_LOOP, "no batch loop found in the epoch loop", ctx.loop)
    ctx.found["epoch_last"] = stmts[-1] if stmts else None
    ctx.found["epoch_post"] = list(post)  # as split, before patterns move any (epoch_stop)
    for stmt in batch_loop.body.body:
        # a loop moving an input by its gradient (a PGD attack) is patterns/input_gradients.py's
        if contains(stmt, LOOP) and contains(stmt, BACKWARD) and not samples(ctx, stmt):
            ctx.block(ACCUMULATION, "backward() in a loop inside the batch loop", stmt)
    return pre, batch_loop, post


def _inside_batch_bar(ctx, stmt):
    """The batch loop, when `stmt` is a tqdm bar's `with` holding only it, counted by hand:

        with tqdm(total=n_train, desc=f"Epoch {epoch}") as pbar:
            for batch in train_loader:
                ...
                pbar.update(images.shape[0])

    The bar goes as a bar around the epoch loop does (wrappers.py): the Trainer draws its
    own, the bar's display calls are dropped (bar_displays.py, TL104 for any other use). A
    bar given an iterable stays a `with` of the epoch (it draws from the loader when made).
    Anything else: `stmt` as it is."""
    if not (isinstance(stmt, cst.With) and stmt.asynchronous is None):
        return stmt
    body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ()
    if len(body) != 1 or not isinstance(body[0], cst.For) or not contains(body[0], BACKWARD):
        return stmt
    names, classes = set(), {}
    for item in stmt.items:
        call = item.item
        if not (isinstance(call, cst.Call) and ctx.call_qualnames(call) & TQDM):
            return stmt
        if any(arg.keyword is None or arg.keyword.value == "iterable" for arg in call.args):
            return stmt
        if item.asname is not None:
            if not isinstance(item.asname.name, cst.Name):
                return stmt
            names.add(item.asname.name.value)
            classes[item.asname.name.value] = call.func  # `pbar.write` -> `tqdm.write`
    ctx.found["wrapping_bars"] = set(ctx.found.get("wrapping_bars", ())) | names
    ctx.found["wrapping_bar_classes"] = {**ctx.found.get("wrapping_bar_classes", {}), **classes}
    return body[0]


def _only_param_group_loops(stmt) -> bool:
    """Every loop in `stmt` walks an optimizer's param_groups (a learning rate set at the
    epoch's start draws no data: patterns/lr_decay.py reads it)."""
    loops = [s for s in statements(stmt) if isinstance(s, (cst.For, cst.While))]
    if not loops or m.findall(stmt, m.CompFor()):
        return False
    return all(sets_param_group_lr(loop) for loop in loops)


def _evaluation_breaks(ctx, stmt) -> bool:
    """`stmt` is an evaluation pass whose only control flow is `break` of its own loop."""
    return (
        eval_loop_of(ctx, stmt) is not None
        and not direct_breaks(stmt)
        and not contains(stmt, FLOW - {"break"})
    )


def _only_direct_breaks(stmt) -> bool:
    """`stmt` leaves the epoch loop only by `break` (no continue/return), not from a loop
    inside it."""
    if contains(stmt, FLOW - {"break"}) or not direct_breaks(stmt):
        return False
    return not any(
        direct_breaks(loop)
        for loop in statements(stmt)[1:]
        if isinstance(loop, (cst.For, cst.While))
    )


def _read_batch_loop(ctx: LoopContext, loop: cst.For, pre=()) -> dict:
    """What the batch loop holds, as `steps`: its loader, target and index; the statements
    patterns claimed (zero_grad / backward / step / clip / accumulation positions) and the
    others, with their positions (`body`)."""
    if loop.orelse is not None:
        raise Unsupported(CONTROL_FLOW, "`for ... else` on the batch loop", loop)
    iterator, index, target = ctx.unwrap_iter(loop)
    refused = not_a_loader.bound_wrapper(ctx, loop, iterator, pre)
    if refused is not None:
        raise refused
    loader, bound = registry.run_phase("batch_loader", ctx, iterator), None
    if loader is not iterator:  # a name bound to a bar over `enumerate(loader)`
        binding = ctx.found.get("bar_binding")
        bound = (iterator.value, binding) if binding is not None else None
        iterator, index, target = ctx.unwrap_iter(loop, loader, index, target)
    if isinstance(iterator, cst.Call) and ctx.call_qualnames(iterator) & TRANGE:
        from .iteration import range_of_trange

        numbers = range_of_trange(iterator)  # the bar's options draw a bar the Trainer draws
        if numbers is not None:
            return _read_range_batch_loop(ctx, loop, numbers, target, index)
    if "builtins.range" in ctx.call_qualnames(iterator):
        return _read_range_batch_loop(ctx, loop, iterator, target, index)
    if "itertools.count" in ctx.call_qualnames(iterator) and index is None:
        return _read_count_batch_loop(ctx, loop, target)
    if (
        isinstance(iterator, (cst.List, cst.Tuple))
        and iterator.elements
        and all(isinstance(element.value, cst.SimpleString) for element in iterator.elements)
    ):
        # a phase loop patterns/phase_loop.py did not unroll (its target is not one name)
        raise Unsupported(
            NOT_A_LOADER,
            "the loop inside the epoch loop iterates a list of strings "
            f"(`{ctx.module.code_for_node(iterator)}`), not a loader: a train/val phase loop "
            "is converted when its target is one name (`for phase in [...]:`)",
            loop,
        )
    if not isinstance(iterator, cst.Name):
        raise not_a_loader.refusal(ctx, loop, iterator, bound)
    return read_step(ctx, loop, iterator.value, target, index)


def _note_counter(ctx: LoopContext, name: str | None, stmts) -> None:
    """`name` counts the batches (enumerate's index, a range's number): an int in every
    batch when the loop never rebinds it (known_branches.py decides `i % 1 == 0`)."""
    if name is not None and name not in collect_names(*stmts).writes:
        ctx.found["batch_index"] = name


def _read_range_batch_loop(ctx: LoopContext, loop: cst.For, numbers: cst.Call, target, index):
    """Manual batching, `for i in range(0, n, batch_size): xb = x[i : i + batch_size]`: the
    numbers become the batches of a generated loader (shapes/iteration.py's), when the epoch
    loop does not change what the range reads (it is built once, before the Trainer)."""
    from .iteration import number_loader

    numbers = _with_epoch_constants(ctx, numbers, loop)
    _check_numbers_fixed(ctx, loop, numbers, "range(...)")
    if isinstance(target, cst.Name):
        _note_counter(ctx, target.value, loop.body.body)
    code = ctx.module.code_for_node(numbers)
    listed = ctx.found.get("sample_list")  # a loop over a list's positions: sample_lists.py
    what = f"the positions of `{listed}`'s samples" if listed else "the batch loop's numbers"
    loader, ctx.found["loader_stmt"] = number_loader(ctx, "batch_indices", code, what)
    return read_step(ctx, loop, loader, target, index)


def _check_numbers_fixed(ctx: LoopContext, loop: cst.For, numbers, what: str) -> None:
    """The generated loader's numbers are built once, before `fit`: the epoch loop must not
    change what they read (TL104 naming where it does)."""
    changed = sorted(_maybe_changed(ctx, collect_names(numbers).reads))
    if changed:
        how, at = how_changed(ctx, ctx.loop, changed[0])
        if how == "rebinds":  # epoch_constant() found no value the same every epoch
            how += " to a value not known to be the same every epoch"
        raise Unsupported(
            NOT_A_LOADER,
            f"the batch loop's {what} reads `{changed[0]}`, which the epoch loop {how} "
            "(its numbers would be built once, before `fit`; use a DataLoader)",
            at or loop,
        )


def _read_count_batch_loop(ctx: LoopContext, loop: cst.For, target):
    """An episode's steps, `for t in itertools.count():` ... `if done: break` (the DQN
    tutorial's): the counter's values become the batches of a generated loader, a fresh
    iterator each epoch as the script's `count()`, ended where the script's `break` ends the
    loop (shapes/iteration.py's count_numbers; early_break.py ends the epoch there)."""
    from .iteration import count_numbers, number_loader

    if not isinstance(target, cst.Name):
        raise Unsupported(NOT_A_LOADER, "the itertools.count() loop's target is not a name", loop)
    numbers, body = count_numbers(ctx, loop, target.value, list(loop.body.body))
    _check_numbers_fixed(ctx, loop, cst.parse_expression(numbers), "itertools.count() and its stop")
    _note_counter(ctx, target.value, body)
    what = "the step numbers of each pass"
    loader, ctx.found["loader_stmt"] = number_loader(ctx, "batch_indices", numbers, what)
    return read_step(ctx, loop, loader, target, None, body)


def _with_epoch_constants(ctx: LoopContext, numbers: cst.Call, loop: cst.For) -> cst.Call:
    """`numbers` with each name the epoch loop rebinds to the same value every epoch
    (`len_dataloader = min(len(a), len(b))` at its top) replaced by that value: the range is
    built once, before `fit`, where the name is not bound yet."""
    values = {}
    for name in _maybe_changed(ctx, collect_names(numbers).reads):
        value = epoch_constant(ctx, name, loop)
        if value is not None:
            values[name] = value
    return numbers.visit(_Substitute(values)) if values else numbers


class _Substitute(cst.CSTTransformer):
    def __init__(self, values: dict):
        self.values = values

    def leave_Name(self, original, updated):
        return self.values.get(original.value, updated)


_SHAPE_READS = frozenset({"size", "dim", "numel"})


def _maybe_changed(ctx: LoopContext, names: set[str]) -> set[str]:
    """Those of `names` the epoch loop may rebind or mutate (its target included)."""
    loop = ctx.loop
    target = names & collect_names(cst.AssignTarget(loop.target)).writes
    return target | maybe_changed(ctx, loop.body, names)


def how_changed(ctx: LoopContext, loop, name: str, stmts=None) -> tuple[str, object]:
    """How the epoch `loop` (or its statements `stmts`) changes `name`, for a refusal, and
    the innermost statement doing it (None when it is the loop's own variable): "rebinds"
    (`n = ...` each epoch) or "may change" (a call it is handed to, a method of it)."""
    if name in collect_names(cst.AssignTarget(loop.target)).writes:
        return "sets each epoch (its loop variable)", None
    stmts = list(loop.body.body) if stmts is None else stmts
    found = [s for top in stmts for s in statements(top) if maybe_changed(ctx, s, {name})]
    simple = [s for s in found if isinstance(s, cst.SimpleStatementLine)]
    at = (simple or found or [None])[0]
    if at is not None and name in collect_names(at).writes:
        return "rebinds", at
    code = ctx.module.code_for_node(at).strip() if simple else None
    if code and "\n" not in code and rebound_by_calls(ctx, at, {name}):
        return f"may rebind (`{code}` calls a function declaring it `global`)", at
    return ("may change" + (f" (`{code}`)" if code and "\n" not in code else "")), at


def maybe_changed(ctx: LoopContext, code: cst.CSTNode, names: set[str]) -> set[str]:
    """Those of `names` that `code` may rebind or mutate: names it binds, calls a method on
    (but `.size()` and a state dict handed on, see `_handed_state_dicts`), assigns or deletes
    an item or attribute of, or hands to a function that is not torch's or a builtin, or that
    a function of the script it calls declares `global`. A name
    bound only to immutable values (`bptt = 35`) is changed by no call, and an object handed
    to a function of the script that only reads it is not changed by that call
    (analysis/passed_values.py)."""
    found = names & collect_names(code).writes
    found |= rebound_by_calls(ctx, code, names - found)
    handed = _handed_state_dicts(code)
    immutable = immutable_names(ctx) if names - found else frozenset()
    for node in m.findall(code, m.Call() | m.AssignTarget() | m.AugAssign() | m.Del()):
        if isinstance(node, cst.Call):
            if console_call(ctx, node):  # `tqdm.write(s)`, `logger.info(...)`: a line out
                continue
            func = node.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
                called = ctx.call_qualnames(node)
                reads = func.attr.value in _SHAPE_READS or id(node) in handed
                if not reads and not (called and called <= _KEEPS_TORCH_STATE):
                    found |= names & {func.value.value} - immutable
            pure = any(q.split(".")[0] in ("torch", "builtins") for q in ctx.call_qualnames(node))
            if not pure and not _string_method(func):
                passed = {a.value.value for a in node.args if isinstance(a.value, cst.Name)}
                found |= {n for n in names & passed if not call_cannot_change(ctx, node, n)}
        else:
            target = node.target
            while isinstance(target, (cst.Subscript, cst.Attribute)):
                target = target.value
            if isinstance(target, cst.Name):
                found |= names & {target.value}
    return found


def _string_method(func: cst.BaseExpression) -> bool:
    """`"Epoch {}".format(epoch)`, `" ".join(parts)`: a literal's method, which changes none of
    its arguments."""
    return isinstance(func, cst.Attribute) and isinstance(
        func.value, (cst.SimpleString, cst.ConcatenatedString)
    )


# torch functions that leave torch's global state (random generator, grad mode, defaults)
# as they found it: `torch.save(...)` does not change what `torch` is to later code, and a
# `with torch.no_grad():` block restores the grad mode it changed
_KEEPS_TORCH_STATE = frozenset(
    "torch." + name
    for name in (
        "no_grad enable_grad inference_mode save load tensor as_tensor from_numpy zeros ones full arange linspace zeros_like "
        "ones_like full_like stack cat argmax argmin sum mean max min abs exp log sigmoid "
        "softmax topk round clamp where eq isnan isfinite numel equal allclose"
    ).split()
)

_STATE_DICT_CALL = m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("state_dict")), args=[])


def _handed_state_dicts(code: cst.CSTNode) -> set[int]:
    """`x.state_dict()` calls whose result goes straight into a call's arguments or a
    literal's elements (`torch.save(model.state_dict(), path)`, `{"model": net.state_dict()}`):
    reads of `x`. One bound to a name or indexed is not: its tensors are the module's own, and
    `sd["w"].zero_()` would change the module through them."""
    handed: set[int] = set()
    for holder in m.findall(code, m.Arg() | m.Element() | m.DictElement()):
        value = holder.value
        if m.matches(value, _STATE_DICT_CALL):
            handed.add(id(value))
    return handed


def _breaking_step_loop(ctx: LoopContext, inner) -> str:
    """TL107's words for a loop inside the step that can `break` and may hold the step."""
    unsure = None if contains(inner, BACKWARD) else why_may_step(ctx.module, inner)
    if unsure is None:
        return "a loop inside the step holding its optimizer calls uses `break` (not kept)"
    return f"the inner loop uses `break` (kept only in a loop without the step) and calls {unsure}"


def read_step(ctx: LoopContext, loop, loader: str, target, index, stmts=None) -> dict:
    """The `steps` of one training step, the body of `loop` (or `stmts` of it): what patterns
    claimed and the other statements with their positions. Shared by every shape."""
    stmts = list(loop.body.body) if stmts is None else stmts
    # `continue` is skip_batches' to read (the batch loop's own) or an inner loop's own; an
    # inner loop's own `break` stays with it in training_step (an episode's rollout, `if
    # done: break`), unless that loop holds the step, which no pattern keeps whole
    if contains(loop.body, FLOW_NO_BREAK - {"continue"}):
        ctx.block(CONTROL_FLOW, "batch loop uses continue/return (cannot be kept faithfully)", loop)
    else:
        breaking = [
            s
            for s in stmts
            if isinstance(s, (cst.For, cst.While))
            and direct_breaks(s)
            and (contains(s, BACKWARD) or optimizer_calls(ctx.module, s))
        ]
        if breaking:
            ctx.block(CONTROL_FLOW, _breaking_step_loop(ctx, breaking[0]), breaking[0])
    steps: dict = {
        "loader": loader,
        "target": target,
        "index": index,
        "zero_grad": [],
        "backward": None,
        "step": [],
        "clip": None,
        "body": [],
    }
    claims = registry.phase("claim")
    position = 0
    _note_counter(ctx, index, stmts)
    for stmt in registry.run_phase("batch_statements", ctx, stmts):
        position += 1
        if any(claim(ctx, steps, stmt, position) for claim in claims):
            continue
        if contains(stmt, BACKWARD) or optimizer_calls(ctx.module, stmt):
            over = optimizers_in_a_loop(ctx, stmt)  # `for opt in optimizers: opt.step()`
            if over is not None:
                ctx.block(MANUAL_STEP, over, stmt)
                continue
            undecided = ctx.found.get("undecided_branches", {}).get(id(stmt))
            unsure = None if contains(stmt, BACKWARD) else why_may_step(ctx.module, stmt)
            ctx.block(
                ACCUMULATION,
                (
                    "optimizer calls inside a nested statement (conditional step or "
                    "gradient accumulation)"
                    if unsure is None
                    else f"a nested statement calls {unsure}"
                )
                + (
                    ""
                    if undecided is None
                    else f"; the `if` test `{ctx.module.code_for_node(stmt.test)}` "
                    f"{undecided}, and its branches are not the same Lightning step"
                ),
                stmt,
            )
            continue
        steps["body"].append((position, stmt))
    steps["count"] = position  # statements in the batch loop (positions 1..count)
    if steps["backward"] is None:
        if ctx.blockers:  # a backward() the reading refused already (conditional, nested)
            raise Consequence
        raise Unsupported(STEP_SEQUENCE, "no `loss.backward()` statement in the batch loop", loop)
    return steps
