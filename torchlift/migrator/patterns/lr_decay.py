"""Pattern: learning rates set by hand on `optimizer.param_groups` -> a scheduler, or kept.

    for epoch in range(N):                                 configure_optimizers returns
        lr = args.lr * (0.1 ** (epoch // 30))              LambdaLR(optimizer,
        for g in optimizer.param_groups: g["lr"] = lr          lambda epoch: 0.1 ** (epoch // 30))
        if epoch in [2, 4]:                                MultiStepLR(optimizer, [2, 4], 0.1)
            for g in optimizer.param_groups: g["lr"] *= 0.1
        <batch loop>
            lr = base_lr * min(1, (it + 1) / warmup)       LambdaLR(optimizer,
            for g in optimizer.param_groups: g["lr"] = lr      lambda it: min(1, ...)), "step"
            ...; it += 1
        lr *= 0.95                                         ExponentialLR(optimizer, 0.95)
        for g in optimizer.param_groups: g["lr"] = lr

A scheduler is chosen only when its arithmetic is the script's, so every optimizer step runs
with the same float: LambdaLR computes `base_lr * f(n)` (the script's `B * f(n)`, B the
optimizer's own `lr=`), MultiStepLR and ExponentialLR `group["lr"] * gamma` (the script's
repeated `*=`; MultiStepLR only for milestones that are distinct integers, as it raises gamma
to the number of times a milestone is listed). A scheduler's state is checkpointed, so a
resumed run continues the schedule. `optimizer.param_groups[0]["lr"] = ...` counts as the
loop over the groups when the optimizer is built on `model.parameters()` (one group).

Anything else stays where the script wrote it (`on_train_epoch_start`, `training_step`,
`on_train_epoch_end`): a value computed from the epoch, or from the optimizer's own `lr`
(restored with the optimizer's state), resumes as it ran. A carried variable the learning
rate is computed from (`lr *= 0.5` read by a print too) is saved in the checkpoint
(`on_save_checkpoint` / `on_load_checkpoint`) when it only feeds on itself, the epoch,
constants and other such variables.

A decision on training results (`if val_loss > best: lr *= 0.5; best = ...`, the word
language model's `lr /= 4.0` when the validation loss did not improve) is kept the same way:
its carried variables (`lr`, `best`) are saved; a value the epoch computes before reading it
(`val_loss`) is computed again after a resume.

Refused (TL185): a rate following carried state the loop changes in place
(`history.append(val_loss)`), which the saved values would not restore.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names, definition_reads
from ..analysis.statements import single_assign, statements
from ..rule import Rule
from ..source.code_text import code_of

UNRESTORED_LR_STATE = Rule(
    "TL185",
    "a hand-set learning rate depends on loop state a resumed run would not restore",
    """A learning rate set by hand on `optimizer.param_groups` is converted to a scheduler
    when one computes the same values, or kept where the script sets it. Kept code must give
    the same rates after `trainer.fit(ckpt_path=...)`: each variable it follows that the
    loop carries from one epoch to the next (`lr`, `best_val_loss`) is saved in the
    checkpoint (`on_save_checkpoint` / `on_load_checkpoint`); a value each epoch computes
    afresh (`val_loss = evaluate(...)`) is computed again. A carried object the loop
    changes in place (`history.append(val_loss)`) is not saved: loading it back would
    rebind the module's name only, so a resumed run could set other rates.""",
    """Keep the decision's state in a variable the loop rebinds (`best = min(best,
    val_loss)` instead of a list of losses), or use
    `torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=0)` stepped
    with the validation loss, which the migrator converts.""",
    """
    lr, history = 0.1, []
    for epoch in range(3):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        if history and loss.item() > min(history):
            lr *= 0.5
            for group in optimizer.param_groups:
                group["lr"] = lr
        history.append(loss.item())
    """,
)

RULES = (UNRESTORED_LR_STATE,)

# functions a schedule's formula may call (and math's): pure, drawing from no RNG
_PURE_CALLS = frozenset(
    {f"builtins.{name}" for name in ("min", "max", "abs", "float", "int", "round", "pow")}
)


def sets_param_group_lr(stmt: cst.CSTNode) -> bool:
    """`stmt` is a loop over some optimizer's `param_groups` (a learning-rate update, harmless
    before the batch loop: it draws no data)."""
    return (
        isinstance(stmt, cst.For)
        and isinstance(stmt.iter, cst.Attribute)
        and stmt.iter.attr.value == "param_groups"
    )


_LR_KEY = m.SubscriptElement(m.Index(m.SimpleString('"lr"') | m.SimpleString("'lr'")))


def _indexed_update(stmt: cst.CSTNode, optimizer: str):
    """("=", value) or ("*=", factor) when `stmt` is `optimizer.param_groups[0]["lr"] = value`
    (or `*= factor`): the same update as the loop when the optimizer has one group."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    key = m.Subscript(
        value=m.Subscript(
            value=m.Attribute(value=m.Name(optimizer), attr=m.Name("param_groups")),
            slice=[m.SubscriptElement(m.Index(m.Integer("0")))],
        ),
        slice=[_LR_KEY],
    )
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        if m.matches(small.targets[0].target, key):
            return "=", small.value
    elif isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.MultiplyAssign):
        if m.matches(small.target, key):
            return "*=", small.value
    return None


def _group_update(stmt: cst.CSTNode, optimizer: str, one_group: bool = False):
    """("=", value) or ("*=", factor) when `stmt` is
    `for g in optimizer.param_groups: g["lr"] = value` (or `*= factor`), or, for an optimizer
    of `one_group`, `optimizer.param_groups[0]["lr"] = value`; else None."""
    if one_group and _indexed_update(stmt, optimizer) is not None:
        return _indexed_update(stmt, optimizer)
    if not (
        isinstance(stmt, cst.For)
        and stmt.orelse is None
        and m.matches(stmt.iter, m.Attribute(value=m.Name(optimizer), attr=m.Name("param_groups")))
        and isinstance(stmt.target, cst.Name)
    ):
        return None
    body = stmt.body.body
    if len(body) != 1:
        return None
    line = body[0]
    if isinstance(line, cst.SimpleStatementLine):
        smalls = line.body
    elif isinstance(stmt.body, cst.SimpleStatementSuite):
        smalls = stmt.body.body
    else:
        return None
    if len(smalls) != 1:
        return None
    small = smalls[0]
    key = m.Subscript(value=m.Name(stmt.target.value), slice=[_LR_KEY])
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        if m.matches(small.targets[0].target, key):
            value, kind = small.value, "="
        else:
            return None
    elif isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.MultiplyAssign):
        if m.matches(small.target, key):
            value, kind = small.value, "*="
        else:
            return None
    else:
        return None
    if stmt.target.value in collect_names(value).reads:
        return None
    return kind, value


def _optimizer_lr(ctx, optimizer) -> cst.BaseExpression | None:
    """The `lr=` the optimizer is built with, when its parameters form one group (a group of
    its own `lr` would make LambdaLR's base differ from the value the script scales)."""
    if optimizer.stmt is None or optimizer.given:
        return None
    found = single_assign(optimizer.stmt)
    if found is None or not isinstance(found[1], cst.Call):
        return None
    args = found[1].args
    if not args or args[0].keyword is not None or args[0].star:
        return None
    params = args[0].value
    if not isinstance(params, cst.Call) or m.findall(params, m.Dict() | m.List()):
        return None
    for position, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == "lr":
            return arg.value
        if arg.keyword is None and position == 1:
            return arg.value
    return None


def _same(ctx, a: cst.CSTNode, b: cst.CSTNode) -> bool:
    code = ctx.module.code_for_node
    return code(a).strip() == code(b).strip()


class _Schedules:
    """What one loop offers: the optimizer, its `lr=`, and the names the loop may change."""

    def __init__(self, ctx, plan) -> None:
        self.ctx, self.plan = ctx, plan
        self.optimizer = plan.optimizer
        self.base = _optimizer_lr(ctx, self.optimizer)

    def constant(self, node: cst.CSTNode, allowed: set[str] = frozenset()) -> bool:
        """`node` gives the same value every time: it reads only names the loop leaves alone
        (and `allowed`), and calls only pure builtins."""
        reads = collect_names(node).reads - set(allowed)
        if changed_by_loop(self.ctx, self.plan, reads):
            return False
        for call in m.findall(node, m.Call()):
            names = self.ctx.call_qualnames(call)
            if not names or not all(q in _PURE_CALLS or q.startswith("math.") for q in names):
                return False
        return not m.findall(node, m.Lambda() | m.NamedExpr() | m.Await() | m.Yield())

    def factor_of(self, value: cst.BaseExpression, variable: str) -> cst.BaseExpression | None:
        """f when `value` is `B * f` or `f * B` (B the optimizer's `lr=`), f a formula of
        `variable` and constants."""
        if self.base is None or not isinstance(value, cst.BinaryOperation):
            return None
        if not isinstance(value.operator, cst.Multiply):
            return None
        for base, factor in ((value.left, value.right), (value.right, value.left)):
            if (
                _same(self.ctx, base, self.base)
                and self.constant(base)
                and variable in collect_names(factor).reads
                and self.constant(factor, {variable})
            ):
                return factor
        return None


def _epoch_code(plan) -> list:
    """The loop's statements as planned (helpers inlined, hand-set rates not yet removed)."""
    return [
        *plan.pre_train,
        *plan.before_step,
        *plan.train_body,
        *plan.after_step,
        *plan.post_train,
    ]


def changed_by_loop(ctx, plan, names: set[str]) -> set[str]:
    """Those of `names` the training loop may rebind or mutate."""
    from ..shapes.epoch_batch import maybe_changed

    found: set[str] = set()
    for stmt in _epoch_code(plan):
        found |= maybe_changed(ctx, stmt, names)
    return found


def _unparen(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[], rpar=[])


def _value_via(stmts, at: int, update):
    """The value a group update writes: its own expression, or `name = expr` right before it
    (`name`, the statement). -> (value, name or None, the assignment or None)."""
    kind, value = update
    if isinstance(value, cst.Name) and at > 0:
        found = single_assign(stmts[at - 1])
        if found is not None and found[0] == value.value:
            return found[1], value.value, stmts[at - 1]
    return value, None, None


def read(ctx, plan, steps) -> None:
    if plan.step_loop:
        return  # a step loop keeps its learning rates in the step (shapes/iteration.py)
    setting = [s for s in _epoch_code(plan) if _sets_lr(ctx, s)]
    if not setting:
        return
    optimizer = plan.optimizer
    one_optimizer = len(plan.optimizers) == 1 and not steps.get("manual")
    if one_optimizer and optimizer.scheduler is None and not optimizer.given:
        schedules = _Schedules(ctx, plan)
        one_group = schedules.base is not None  # built on `model.parameters()`, one lr
        found = [
            (where, stmts, at, update)
            for where, stmts in (("pre", plan.pre_train), ("step", plan.train_body))
            + (("post", plan.post_train),)
            for at, stmt in enumerate(stmts)
            for update in [
                _group_update(stmt, optimizer.name, one_group)
                or _milestone_update(stmt, optimizer.name, one_group)
            ]
            if update is not None
        ]
        if len(found) == len(setting) == 1:
            if _to_scheduler(ctx, plan, steps, schedules, *found[0]):
                return
    _keep(ctx, plan, setting)


def _milestone_update(stmt, optimizer: str, one_group: bool):
    """("milestones", (epoch name, milestones, factor)) for `if epoch in M:` around
    `for g in optimizer.param_groups: g["lr"] *= factor`."""
    if not isinstance(stmt, cst.If) or stmt.orelse is not None:
        return None
    if len(stmt.body.body) != 1:
        return None
    update = _group_update(stmt.body.body[0], optimizer, one_group)
    test = stmt.test
    if (
        update is None
        or update[0] != "*="
        or not m.matches(
            test, m.Comparison(left=m.Name(), comparisons=[m.ComparisonTarget(operator=m.In())])
        )
    ):
        return None
    return "milestones", (test.left.value, test.comparisons[0].comparator, update[1])


def _to_scheduler(ctx, plan, steps, schedules, where, stmts, at, update) -> bool:
    """Replace the one hand-set learning rate by a scheduler computing the same floats, when
    one does; False to keep the script's code."""
    kind, payload = update
    optimizer = plan.optimizer
    epoch = plan.epoch_var if plan.epoch_start is None else None  # schedulers count from 0
    removed, name, counter = [stmts[at]], None, None
    if kind == "milestones" and where == "pre":
        variable, milestones, factor = payload
        if variable != epoch or not _distinct_integers(ctx, schedules, milestones):
            return False
        if not schedules.constant(factor):
            return False
        milestones, factor = (code_of(n, ctx.module).strip() for n in (milestones, factor))
        call = f"MultiStepLR({{o}}, milestones={milestones}, gamma={factor})"
        interval = "epoch"
    elif kind == "=" and where in ("pre", "step"):
        value, name, assign = _value_via(stmts, at, update)
        if assign is not None:
            removed.append(assign)
        counter = epoch if where == "pre" else _step_counter(ctx, plan, steps, stmts, at)
        if counter is None:
            return False
        # the scheduler sets the rate before the hook or step begins: nothing there may read it
        before = [s for s in stmts[:at] if s is not assign]
        if before and collect_names(*before).reads & {optimizer.name, name}:
            return False
        factor = schedules.factor_of(value, counter)
        if factor is None:
            return False
        call = f"LambdaLR({{o}}, lambda {counter}: {code_of(_unparen(factor), ctx.module).strip()})"
        interval = "epoch" if where == "pre" else "step"
    elif kind in ("=", "*=") and where == "post":
        factor, assign = _decay_factor(ctx, schedules, stmts, at, update)
        if factor is None:
            return False
        if assign is not None:
            removed.append(assign)
            name = update[1].value
        later = stmts[at + 1 :]
        if later and collect_names(*later).reads & {optimizer.name}:
            return False  # Lightning steps the scheduler after the epoch's hooks
        call = f"ExponentialLR({{o}}, gamma={code_of(factor, ctx.module).strip()})"
        interval = "epoch"
    else:
        return False
    others = [s for s in _epoch_code(plan) if not any(s is r for r in removed)]
    if name is not None and name in collect_names(*others).all() | _reads_outside(ctx):
        return False  # the variable holding the rate is read elsewhere: it stays
    scheduler, torch = _scheduler_name(ctx), ctx.names.alias("torch")
    if scheduler is None or torch is None:
        return False
    if where == "step":
        increment, binding = ctx.found["lr_counter"]
        rest = [s for s in others if s is not increment]
        if counter not in collect_names(*rest).all() | _reads_outside(ctx):
            removed.append(increment)  # the counter only fed the rate: the scheduler counts
            plan.remove_stmts.append(binding)
    code = call.format(o=optimizer.name)
    stmt = cst.parse_statement(f"{scheduler} = {torch}.optim.lr_scheduler.{code}\n")
    optimizer.scheduler, optimizer.scheduler_stmt, optimizer.interval = scheduler, stmt, interval
    ids = {id(s) for s in removed}
    plan.pre_train = [s for s in plan.pre_train if id(s) not in ids]
    plan.train_body = [s for s in plan.train_body if id(s) not in ids]
    steps["body"] = [(p, s) for p, s in steps["body"] if id(s) not in ids]
    plan.post_train = [s for s in plan.post_train if id(s) not in ids]
    plan.notes.append(f"the learning rate set by hand -> {code.split('(')[0]} ({interval})")
    return True


def _reads_outside(ctx) -> set[str]:
    """Names that may see a value the loop leaves: read after the loop, or by a function or
    class of the module (which may be called from the loop and read it as a global)."""
    after = collect_names(*ctx.scope_after).reads if ctx.scope_after else set()
    return after | _module_function_reads(ctx)


def _distinct_integers(ctx, schedules, milestones) -> bool:
    """`milestones` is (or names, bound once and never changed) a literal of distinct ints:
    MultiStepLR multiplies by gamma ** (times listed), the script once."""
    node = milestones
    if isinstance(node, cst.Name):
        found, count = ctx.binding(node.value)
        if found is None or count != 1 or not schedules.constant(node):
            return False
        node = found[1]
    if not isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return False
    values = [e.value for e in node.elements]
    if not values or not all(isinstance(v, cst.Integer) for v in values):
        return False
    numbers = [v.evaluated_value for v in values]
    return len(set(numbers)) == len(numbers)


def _step_counter(ctx, plan, steps, stmts, at) -> str | None:
    """The counter a per-step rate is computed from: bound to 0 before the loop, `+= 1`
    once per batch after the rate is set, and written nowhere else; Lightning's per-step
    scheduler counts optimizer steps, the same number only without accumulation."""
    if steps.get("accumulate") is not None or plan.after_step:
        return None
    positions = {id(stmt): position for position, stmt in steps["body"]}
    if positions.get(id(stmts[at]), steps["optimizer_step"]) > steps["optimizer_step"]:
        return None  # set after the step: for the next one, one count later than a scheduler
    for position, stmt in enumerate(stmts):
        if position <= at or not isinstance(stmt, cst.SimpleStatementLine):
            continue
        small = stmt.body[0] if len(stmt.body) == 1 else None
        if not (
            isinstance(small, cst.AugAssign)
            and isinstance(small.operator, cst.AddAssign)
            and isinstance(small.target, cst.Name)
            and m.matches(small.value, m.Integer("1"))
        ):
            continue
        counter = small.target.value
        binding, count = ctx.binding(counter)
        if binding is None or count != 1 or not m.matches(binding[1], m.Integer("0")):
            continue
        writers = [s for s in statements(ctx.loop) if counter in _own_writes(s)]
        if len(writers) != 1 or writers[0] is not stmt or counter in _module_function_reads(ctx):
            continue  # a function of the module may change it as a global
        ctx.found["lr_counter"] = (stmt, binding[0])
        return counter
    return None


def _own_writes(stmt) -> set[str]:
    """Names `stmt` binds itself (a compound statement's body is looked at on its own)."""
    if isinstance(stmt, cst.SimpleStatementLine):
        return collect_names(stmt).writes
    if isinstance(stmt, cst.For):
        return collect_names(cst.AssignTarget(stmt.target)).writes
    if isinstance(stmt, cst.With):
        return {
            name
            for item in stmt.items
            if item.asname is not None
            for name in collect_names(cst.AssignTarget(item.asname.name)).writes
        }
    return set()


def _module_function_reads(ctx) -> set[str]:
    names: set[str] = set()
    for stmt in ctx.module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            names |= definition_reads(stmt)
    return names


def _decay_factor(ctx, schedules, stmts, at, update):
    """(gamma, the `lr *= gamma` statement or None) of an epoch-end decay: `g["lr"] *=
    gamma`, or `lr *= gamma` / `lr = lr * gamma` right before `g["lr"] = lr`, `lr` being the
    optimizer's own `lr=` (so both hold the same float all along)."""
    kind, value = update
    if kind == "*=":
        return (value, None) if schedules.constant(value) else (None, None)
    if not isinstance(value, cst.Name) or at == 0 or schedules.base is None:
        return None, None
    if not m.matches(schedules.base, m.Name(value.value)):
        return None, None
    previous = stmts[at - 1]
    if not isinstance(previous, cst.SimpleStatementLine) or len(previous.body) != 1:
        return None, None
    small = previous.body[0]
    factor = None
    if (
        isinstance(small, cst.AugAssign)
        and isinstance(small.operator, cst.MultiplyAssign)
        and m.matches(small.target, m.Name(value.value))
    ):
        factor = small.value
    found = single_assign(previous)
    if found is not None and found[0] == value.value:
        product = found[1]
        if (
            isinstance(product, cst.BinaryOperation)
            and isinstance(product.operator, cst.Multiply)
            and m.matches(product.left, m.Name(value.value))
        ):
            factor = product.right
    if factor is None or not schedules.constant(factor):
        return None, None
    return factor, previous


def _scheduler_name(ctx) -> str | None:
    taken = collect_names(ctx.module).all()
    for name in ("scheduler", "lr_scheduler"):
        if name not in taken:
            return name
    return None


def _keep(ctx, plan, kept) -> None:
    """The script's own updates stay in their hook. The loop state they follow is saved in
    the checkpoint, so that `fit(ckpt_path=...)` sets the same rates: each name the epoch
    carries over to the next one (reads before it writes), followed through the values it
    is rebound to. A value the epoch computes afresh before reading it (`val_loss =
    evaluate(...)`) needs no saving, only what it is computed from; the model and the
    optimizer are restored by the checkpoint itself. Refused (TL185): carried state the
    loop changes in place (`history.append(loss)`), which a saved value does not restore
    for whatever else holds the object."""
    free = {plan.epoch_var} | {optimizer.name for optimizer in plan.optimizers}
    free |= {n for model in plan.models for n in (model.name, *model.aliases)}
    free |= _batch_names(plan)  # bound by each step, from the data
    carried = collect_names(*_epoch_code(plan)).read_first
    closure, queue = set(), sorted(_followed(ctx, plan, kept, free))
    while queue:  # every loop variable the kept updates follow, however indirectly
        name = queue.pop()
        if name in closure:
            continue
        closure.add(name)
        for writer in _top_writers(ctx, plan, name):
            if name in collect_names(writer).writes:  # its new value is computed from these
                queue.extend(_followed(ctx, plan, [writer], free) - closure)
    saved = sorted(name for name in closure & carried if not _imported(ctx, name))
    for name in saved:
        for writer in _top_writers(ctx, plan, name):
            if _mutates(ctx, writer, name):
                ctx.block(
                    UNRESTORED_LR_STATE,
                    f"the learning rate set by hand follows `{name}`, which the loop changes in "
                    "place: the checkpoint saves the values the loop rebinds, not an object "
                    "it changes, so a run resumed from it could set other rates",
                    writer,
                )
                return
    rebound = collect_names(*_epoch_code(plan)).writes
    plan.checkpoint_state = sorted(set(plan.checkpoint_state) | (set(saved) & rebound))


def _mutates(ctx, stmt, name: str) -> bool:
    """`stmt` changes the object `name` holds itself: calls a method of it, assigns or deletes
    an item or attribute of it, or a function of the script rebinds it as a global (a name
    only handed to a function, `get_batch(source, i)`, is read there)."""
    from ..shapes.epoch_batch import maybe_changed

    if name in collect_names(stmt).writes:
        return False
    target = m.Subscript(value=m.Name(name)) | m.Attribute(value=m.Name(name))
    if m.findall(stmt, m.AssignTarget(target=target) | m.AugAssign(target=target) | m.Del(target)):
        return True
    for call in m.findall(stmt, m.Call()):
        method_call = m.matches(call.func, m.Attribute(value=m.Name(name)))
        if maybe_changed(ctx, call, {name}) and (method_call or not _handed(call, name)):
            return True
    return False


def _handed(call, name: str) -> bool:
    return any(m.matches(arg.value, m.Name(name)) for arg in call.args)


def _imported(ctx, name: str) -> bool:
    """`name` is bound at module level only by imports: a module, not state of the run."""
    binders = [s for s in ctx.module.body if name in collect_names(s).writes]
    return bool(binders) and all(
        isinstance(s, cst.SimpleStatementLine)
        and all(isinstance(small, (cst.Import, cst.ImportFrom)) for small in s.body)
        for s in binders
    )


def _batch_names(plan) -> set[str]:
    names = {plan.train_index} - {None}
    if plan.train_target is not None:
        names |= collect_names(cst.AssignTarget(plan.train_target)).writes
    return names


def _followed(ctx, plan, stmts, free) -> set[str]:
    """Names `stmts` read (before writing them) that the training loop may change."""
    return changed_by_loop(ctx, plan, collect_names(*stmts).read_first - free)


def _sets_lr(ctx, stmt) -> bool:
    """`stmt` walks an optimizer's param_groups, itself or through a function of the module
    it calls (`update_lr(optimizer, lr)`)."""
    if any(sets_param_group_lr(s) for s in statements(stmt)):
        return True
    if _writes_a_group_item(stmt):
        return True
    setters = ctx.found.get("lr_setters")
    if setters is None:
        setters = ctx.found["lr_setters"] = {
            top.name.value
            for top in ctx.module.body
            if isinstance(top, cst.FunctionDef)
            and any(sets_param_group_lr(s) for s in statements(top))
        }
    called = {
        call.func.value
        for call in m.findall(stmt, m.Call(func=m.Name()))
        if isinstance(call.func, cst.Name)
    }
    return bool(called & setters)


def _writes_a_group_item(stmt) -> bool:
    """`stmt` assigns to an item of a param group (`optimizer.param_groups[0]["lr"] = lr`)."""
    item = m.Subscript(value=m.Subscript(value=m.Attribute(attr=m.Name("param_groups"))))
    return bool(m.findall(stmt, m.AssignTarget(target=item) | m.AugAssign(target=item)))


def _top_writers(ctx, plan, name: str) -> list:
    """The statements of the epoch (top level of a hook or step) that rebind `name` or may
    change it in place (`history.append(loss.item())`)."""
    from ..shapes.epoch_batch import maybe_changed

    return [s for s in _epoch_code(plan) if maybe_changed(ctx, s, {name})]
