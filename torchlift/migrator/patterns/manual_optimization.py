"""Pattern: several optimizers (GANs, critics) -> manual optimization, the script's order kept.

    optimizer_d = Adam(net_d.parameters())    -> configure_optimizers returns both, in order
    optimizer_g = Adam(net_g.parameters())
    for i, real in enumerate(loader):         -> training_step(self, batch, batch_idx):
                                                    optimizer_d, optimizer_g = self.optimizers()
        net_d.zero_grad()                           self.net_d.zero_grad()
        loss_d = ...                                loss_d = ...
        loss_d.backward(retain_graph=True)          self.manual_backward(loss_d, retain_graph=True)
        optimizer_d.step()                          optimizer_d.step()
        if i % n_critic == 0:                       if batch_idx % self.n_critic == 0:
            ...                                         ...
        clip_grad_norm_(net_g.parameters(), 1.0)    self.clip_gradients(optimizer_g, 1.0, "norm")

The module sets `self.automatic_optimization = False` and holds every model an optimizer
trains. Every statement of the batch loop stays where the script has it: Lightning runs
nothing between them under manual optimization. `detach()`, `torch.autograd.grad` and
conditions on the batch index are ordinary code and are kept as written.

Schedulers stay stepped where the script steps them, in the step or at the epoch's end,
through `self.lr_schedulers()`; configure_optimizers returns them with their optimizers.

A `break` in the loop's last statement, nothing after it in its blocks, ends the epoch there
(early_break.py's flag: `on_train_batch_start` returns -1 on the next batch; a dry-run flag's
`break` on the first batch: `limit_train_batches=1` under the flag); anywhere else it is
refused (TL107): code after it would run on the batch that ends the epoch.

Refused (TL125): an optimizer step taken with a closure or other arguments, or at epoch level,
mixed precision (the scaler's calls), clipping of parameters that are not exactly one
optimizer's model, `backward()` on an expression; (TL126) a scheduler bound twice, not built
on one of the loop's optimizers, or a second one on the same optimizer.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.statements import call_method, loop_breaks
from ..plan import ModelPlan, OptimizerPlan
from ..rule import Rule, Unsupported
from ..shapes.context import CONTROL_FLOW
from .bindings import BINDING, models_from_optimizer, optim_kind
from .clipping import clip_call
from .early_break import break_ends_its_blocks, end_epoch_at, limit_to_first_batch
from .passed_in import given_optimizer
from .scheduler_factories import built_on

MANUAL_STEP = Rule(
    "TL125",
    "several optimizers: a step manual optimization cannot keep as written",
    """Several optimizers become manual optimization: the step keeps the script's
    `zero_grad()`, `backward()` (as `self.manual_backward`) and `step()` calls in order.
    A step taken with a closure, mixed precision's scaler calls, or clipping of parameters
    that are not one optimizer's model have no faithful manual form here.""",
    """Call `optimizer.step()` without arguments, clip `model.parameters()` of the model the
    optimizer trains, and write mixed precision by hand (`precision="16-mixed"` with
    `self.manual_backward`).""",
    """
    netG = nn.Linear(4, 4)
    optimizerG = torch.optim.LBFGS(netG.parameters())
    for epoch in range(2):
        for x, y in loader:
            def closure():
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                return loss

            optimizer.step(closure)
            optimizerG.zero_grad()
            loss_g = netG(x).pow(2).mean()
            loss_g.backward()
            optimizerG.step()
    """,
)

MANUAL_SCHEDULER = Rule(
    "TL126",
    "several optimizers: a learning-rate scheduler not tied to exactly one of them",
    """Under manual optimization the step calls each scheduler itself, from
    `self.lr_schedulers()`, where the script stepped it; configure_optimizers returns each
    with the optimizer it is built on. A scheduler bound twice, built on something else than
    one of the loop's optimizers, or a second scheduler on the same optimizer has no such
    place.""",
    """Build one scheduler per optimizer, once, before the loop.""",
    """
    netG = nn.Linear(4, 2)
    optimizerG = torch.optim.SGD(netG.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            optimizerG.zero_grad()
            loss_g = criterion(netG(x), y)
            loss_g.backward()
            optimizerG.step()
        scheduler.step()
        warmup.step()
    """,
)

RULES = (MANUAL_STEP, MANUAL_SCHEDULER)

_SCALER_CALLS = {"scale", "unscale_", "update"}


def _step_calls(node) -> list[cst.Call]:
    """`<name>.step(...)` calls anywhere in `node`."""
    return [
        call
        for call in m.findall(node, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("step"))))
    ]


def batch_statements(ctx, stmts):
    """Note a batch loop that steps several optimizers: its statements are all kept."""
    optimizers, unread = {}, {}
    for stmt in stmts:
        for call in _step_calls(stmt):
            name = call.func.value.value
            binding, count = ctx.binding(name)
            if optim_kind(ctx, binding) == "optimizer":
                optimizers.setdefault(name, call)
            elif not count and name in ctx.params:  # handed to the function holding the loop
                try:
                    given_optimizer(ctx, name, call)
                    optimizers.setdefault(name, call)
                except Unsupported as why:
                    unread.setdefault(name, why)
    # a parameter the step zeroes too is an optimizer (a scheduler has no zero_grad): one
    # beside another optimizer whose callers do not show what it trains is refused for that
    zeroed = {name for name in unread if _zeroes(stmts, name)}
    if zeroed and len(optimizers) + len(zeroed) > 1:
        raise unread[sorted(zeroed)[0]]
    _refuse_scaler_stepping_several(ctx, stmts, optimizers)
    if len(optimizers) > 1:
        ctx.found["manual_optimizers"] = optimizers
    return stmts


def _refuse_scaler_stepping_several(ctx, stmts, optimizers) -> None:
    """A GradScaler stepping one of several optimizers (`scaler.step(optD)` ...
    `scaler.step(optG)`, a GAN under float16): manual optimization would keep the scaler's
    calls, which Lightning's mixed precision does not see (it scales `manual_backward`'s
    loss and steps through its own scaler, clipping before its unscale)."""
    scaled = {}
    for stmt in stmts:
        for call in _step_calls(stmt):
            if not call.args or not _is_scaler(ctx, call.func.value.value):
                continue
            stepped = call.args[0].value
            if isinstance(stepped, cst.Name) and stepped.value not in optimizers and (
                optim_kind(ctx, ctx.binding(stepped.value)[0]) == "optimizer"
            ):
                scaled.setdefault(stepped.value, stmt)
    if scaled and len(optimizers) + len(scaled) > 1:
        name, stmt = next(iter(scaled.items()))
        raise Unsupported(
            MANUAL_STEP,
            f"mixed precision with several optimizers: `{name}` is stepped through a "
            "GradScaler, whose calls manual optimization would keep where Lightning's mixed "
            "precision scales and steps through its own",
            stmt,
        )


def _is_scaler(ctx, name: str) -> bool:
    binding, _ = ctx.binding(name)
    return bool(
        binding
        and isinstance(binding[1], cst.Call)
        and any("GradScaler" in q for q in ctx.call_qualnames(binding[1]))
    )


def _zeroes(stmts, name: str) -> bool:
    pattern = m.Call(func=m.Attribute(value=m.Name(name), attr=m.Name("zero_grad")))
    return any(m.findall(stmt, pattern) for stmt in stmts)


def _given_model(ctx, name: str, call) -> str | None:
    """The model parameter beside the optimizer parameter `name` of the function holding the
    loop, when every call site passes a torch.optim optimizer for it (patterns/passed_in.py),
    else None (a scheduler handed in, a function never called here)."""
    if name not in ctx.params:
        return None
    try:
        return given_optimizer(ctx, name, call)
    except Unsupported:
        return None


def claim(ctx, steps, stmt, position) -> bool:
    if "manual_optimizers" not in ctx.found:
        return False
    steps["manual"] = True
    if loop_breaks(stmt):  # the kept statements are a step's: read() ends the epoch there
        steps.setdefault("manual_breaks", []).append((position, stmt))
    keep_statement(ctx, steps, stmt, position)
    return True


def keep_statement(ctx, steps, stmt, position) -> None:
    """Keep one batch statement as written under manual optimization (its backward() as
    `self.manual_backward`), noting the first backward as the step's loss."""
    kept = _KeepStep(ctx, steps, stmt)
    steps.setdefault("kept", []).append((position, stmt.visit(kept)))
    if kept.backward is not None and steps["backward"] is None:
        steps["backward"] = position
        steps["loss"] = kept.backward
        steps["backward_stmt"] = stmt


class _KeepStep(cst.CSTTransformer):
    """One batch-loop statement as the manual step keeps it."""

    def __init__(self, ctx, steps, stmt) -> None:
        super().__init__()
        self.ctx = ctx
        self.steps = steps
        self.stmt = stmt
        self.line = None
        self.backward: str | None = None  # the first loss backward() is called on

    def visit_FunctionDef(self, node) -> bool:
        return False  # a closure's own calls are its business (its step is refused)

    def visit_SimpleStatementLine(self, node) -> None:
        self.line = node  # the line a call stands in (`self.stmt` may be an `if` around it)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = updated_node.func
        if not isinstance(func, cst.Attribute) or func.attr.value.startswith("clip_grad_"):
            return self._clip(original_node, updated_node)
        method = func.attr.value
        if method == "backward":
            receiver = func.value
            if isinstance(receiver, cst.Name):
                self.backward = self.backward or receiver.value
            elif "manual_backward" in self.ctx.found:  # one optimizer: a named loss is logged
                receiver = receiver.with_changes(lpar=[], rpar=[])  # `(w * loss_aux)`
            else:
                raise Unsupported(MANUAL_STEP, "backward() on an expression", self.stmt)
            args = [cst.Arg(receiver), *updated_node.args]
            args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args]
            return cst.parse_expression("self.manual_backward()").with_changes(args=args)
        if method in _SCALER_CALLS and isinstance(func.value, cst.Name):
            if _is_scaler(self.ctx, func.value.value):
                raise Unsupported(MANUAL_STEP, "mixed precision with several optimizers", self.stmt)
        if method == "step" and isinstance(func.value, cst.Name):
            name = func.value.value
            kind = optim_kind(self.ctx, self.ctx.binding(name)[0])
            if kind == "scheduler":
                self.steps.setdefault("manual_schedulers", []).append((name, self.stmt))
            if kind == "optimizer" and updated_node.args:
                raise Unsupported(
                    MANUAL_STEP, f"`{name}.step(...)` with a closure or arguments", self.stmt
                )
        return updated_node

    def _clip(self, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
        found = clip_call(self.ctx, call)
        if found is None or "manual_optimizers" not in self.ctx.found:
            return call  # no optimizer (a hand update, hand_update.py): the script's call
        line = self.line
        if not m.matches(line, m.SimpleStatementLine(body=[m.Expr()])) or (
            line.body[0].value is not original
        ):  # self.clip_gradients returns nothing
            raise Unsupported(MANUAL_STEP, "the gradient norm returned by clipping is used", call)
        kind, params, value = found
        owner = m.matches(
            params, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("parameters")))
        )
        optimizers = self.ctx.found["manual_optimizers"]
        trained = {name: models_from_optimizer(self.ctx.binding(name)[0][1]) for name in optimizers}
        match = [
            n for n, models in trained.items() if owner and models == [params.func.value.value]
        ]
        if len(match) != 1:
            raise Unsupported(
                MANUAL_STEP, "clipping parameters that are not one optimizer's model", self.stmt
            )
        code = self.ctx.module.code_for_node(value)
        return cst.parse_expression(
            f"self.clip_gradients({match[0]}, gradient_clip_val={code}, "
            f'gradient_clip_algorithm="{kind}")'
        )


def bind(ctx, plan, steps) -> None:
    """Every optimizer stepped in the loop, in the order the script builds them, and every
    model they train."""
    if "manual_optimizers" not in ctx.found:  # none, or a hand update (hand_update.py)
        return
    optimizers, given = [], []
    for name, step in ctx.found["manual_optimizers"].items():
        binding, count = ctx.binding(name)
        model = _given_model(ctx, name, step) if binding is None and not count else None
        if model is not None:  # handed to the function holding the loop
            given.append((name, model))
            continue
        if binding is None:
            raise Unsupported(
                BINDING, f"optimizer `{name}` is not bound in this scope before the loop", step
            )
        stmt, call = binding
        if count != 1 or stmt not in ctx.before and stmt not in ctx.module_before:
            raise Unsupported(BINDING, f"optimizer `{name}` is bound more than once", stmt)
        optimizers.append((ctx.scope_before.index(stmt), name, stmt, call))
    models: list[str] = []
    # the given ones first, in the order of the function's parameters: `self.optimizers()`
    # and configure_optimizers agree on any one order
    for name, model in sorted(given, key=lambda found: _parameter_order(ctx).index(found[0])):
        plan.optimizers.append(OptimizerPlan(name, None, given=True))
        models += [model] if model not in models else []
    for _, name, stmt, call in sorted(optimizers, key=lambda found: found[0]):
        plan.optimizers.append(OptimizerPlan(name, stmt))
        models += [model for model in models_from_optimizer(call) if model not in models]
    plan.models.extend(ModelPlan(model) for model in models)
    plan.manual_optimization = True


def _parameter_order(ctx) -> list[str]:
    params = ctx.function.params
    return [p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]]


def read(ctx, plan, steps) -> None:
    if "manual_optimizers" not in ctx.found:
        return
    stepped = list(steps.get("manual_schedulers", []))
    for stmt in [*plan.pre_train, *plan.post_train]:
        for call in _step_calls(stmt):
            name = call.func.value.value
            kind = optim_kind(ctx, ctx.binding(name)[0])
            if kind == "optimizer":
                raise Unsupported(MANUAL_STEP, f"`{name}.step()` at epoch level", stmt)
            if kind == "scheduler":
                stepped.append((name, stmt))
    for name, stmt in stepped:
        _bind_scheduler(ctx, plan, name, stmt)
    plan.train_body = [stmt for _, stmt in sorted(steps["kept"], key=lambda found: found[0])]
    read_breaks(ctx, plan, steps)
    plan.notes.append(
        "manual optimization: the step keeps the script's optimizer calls in their order"
    )


def read_breaks(ctx, plan, steps) -> None:
    """A `break` in the batch loop's last statement, nothing after it in its blocks (an
    episode's `if done: durations.append(t + 1); break`): the epoch ends there as with an
    automatic step (early_break.py's flag); the step it follows is already taken, in
    training_step. One taken on every epoch's first batch under flags the loop never writes
    (`if args.dry_run: break`) is `limit_train_batches=1` under those flags, as with an
    automatic step: the flag would end the epoch before its validation pass, which Lightning
    then skips. Anywhere else code after it would run on the batch that ends the epoch."""
    breaks = steps.get("manual_breaks", [])
    for position, stmt in breaks:
        if position != steps["count"] or not break_ends_its_blocks(stmt):
            raise Unsupported(
                CONTROL_FLOW,
                "code after a `break` in the batch loop would still run on the batch that "
                "ends the epoch",
                stmt,
            )
    if len(breaks) == 1 and limit_to_first_batch(ctx, plan, steps, breaks[0][1]):
        return
    if breaks:
        end_epoch_at(ctx, plan, breaks[0][1])


def _bind_scheduler(ctx, plan, name: str, stmt) -> None:
    """The scheduler `name`, stepped by `stmt` where the script steps it, joins the optimizer
    it is built on (Lightning steps no scheduler under manual optimization)."""
    if any(optimizer.scheduler == name for optimizer in plan.optimizers):
        return
    (binding, call), count = ctx.binding(name)
    if count != 1 or binding not in ctx.before and binding not in ctx.module_before:
        raise Unsupported(MANUAL_SCHEDULER, f"scheduler `{name}` is bound more than once", stmt)
    first = built_on(ctx, call)
    owner = next((o for o in plan.optimizers if m.matches(first, m.Name(o.name))), None)
    if owner is None or owner.scheduler is not None:
        raise Unsupported(
            MANUAL_SCHEDULER,
            f"scheduler `{name}` is not the only one built on one of the loop's optimizers",
            binding,
        )
    owner.scheduler, owner.scheduler_stmt = name, binding


def clean(ctx, plan) -> None:
    if len(plan.optimizers) > 1 and any(key == "precision" for key, _ in plan.trainer_args):
        raise Unsupported(MANUAL_STEP, "mixed precision with several optimizers", ctx.loop)
    if plan.manual_optimization:  # this module's step, accumulation's or hand_update's
        plan.gradients_outlive_step = not _zeroed_every_step(plan)


def _zeroed_every_step(plan) -> bool:
    """The kept step zeroes every gradient it makes in every batch: `zero_grad()` statements
    of its own (not under an `if`) on every optimizer, or on every model when there is none.
    Otherwise gradients may outlive the step (an accumulation group left partial at an
    epoch's end), and Lightning's zero_grad before validation would drop them."""
    zeroed = {
        receiver.value
        for stmt in plan.train_body
        if isinstance(receiver := call_method(stmt, "zero_grad"), cst.Name)
    }
    if plan.optimizers:
        return all(optimizer.name in zeroed for optimizer in plan.optimizers)
    return bool(plan.models) and all(
        zeroed & {model.name, *model.aliases} for model in plan.models
    )


_OPTIMIZER_METHOD = m.Call(
    func=m.Attribute(value=m.Name(), attr=m.Name("step") | m.Name("zero_grad"))
)


def optimizers_in_a_loop(ctx, stmt) -> str | None:
    """Why a `for` loop of the batch loop calling `step()` / `zero_grad()` on its own loop
    variable (`for opt in optimizers.values(): opt.step()`) is refused: the optimizers of a
    collection have no names the step could take from `self.optimizers()`, nor a count known
    before training; None for any other statement."""
    if not isinstance(stmt, cst.For) or not isinstance(stmt.target, cst.Name):
        return None
    variable = stmt.target.value
    calls = [
        c for c in m.findall(stmt.body, _OPTIMIZER_METHOD) if c.func.value.value == variable
    ]
    if not calls:
        return None
    code = ctx.module.code_for_node
    return (
        f"`{code(calls[0])}` in a loop over a collection of optimizers "
        f"(`for {variable} in {code(stmt.iter)}:`): manual optimization takes each optimizer "
        "from `self.optimizers()` by its place, and how many the collection holds is not "
        "known before training (bind each optimizer to a name and call it)"
    )
