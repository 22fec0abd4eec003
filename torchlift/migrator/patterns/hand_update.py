"""Pattern: parameters updated by hand (no torch.optim optimizer) -> manual optimization.

    for x, y in loader:                          -> training_step(self, batch, batch_idx):
        model.zero_grad()                              self.model.zero_grad()
        loss = criterion(model(x), y)                  loss = self.criterion(self(x), y)
        loss.backward()                                self.manual_backward(loss)
        clip_grad_norm_(model.parameters(), c)         clip_grad_norm_(self.model.parameters(), c)
        for p in model.parameters():                   for p in self.model.parameters():
            p.data.add_(p.grad, alpha=-lr)                 p.data.add_(p.grad, alpha=-self.lr)
                                                  configure_optimizers(self): return None

Why manual optimization: Lightning's automatic loop steps a torch.optim optimizer, and the
script has none; its update (SGD written out, weight decay added by hand, `p.grad = None`) is
ordinary code that `training_step` keeps in the script's order, with backward() as
`self.manual_backward(loss)` (manual_optimization.py's step keeper). Clipping stays the
script's call: `self.clip_gradients` clips an optimizer's parameters, and there is none.
`configure_optimizers` returns None: Lightning then runs with a `_MockOptimizer` (and warns
that the fit runs with no optimizer); `torchlift.runtime` does the same. A learning rate the
epoch code changes (`lr /= 4.0` on a validation plateau) is state the step reads, as any
carried name (resolve_names.py).

An update every N batches (`if (i + 1) % N == 0:` around it) is kept as written too: the
gradients add up between updates exactly as in the script. Lightning's `global_step` counts
optimizer steps, so it stays 0 here: `ModelCheckpoint` (which saves after a step) saves
nothing, and `max_steps` would never end the run. A `break` ends the epoch where the script's
does, as under manual optimization (`limit_train_batches=1` for a dry-run flag's).

Refused (TL127): mixed precision (the scaler's scale would reach the hand-written update),
DDP or DataParallel (the update would read gradients averaged over processes, not proven
equal to the script's), `continue` in the step, the parameters of several models
updated by hand, an update reading state built from the model before the loop (momentum
buffers: Lightning moves the model to its device after they were made); (TL128) plain tensors updated by hand (`a -= lr * a.grad`, the nn
tutorial's `weights` / `bias`): they are not a module's parameters.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.function_reads import module_functions
from ..analysis.names import bound_names, collect_names, only_module_binding
from ..analysis.statements import loop_breaks, statements
from ..plan import ModelPlan
from ..rule import Rule, Unsupported
from .amp import _AUTOCAST, SCALERS
from .bindings import optim_kind
from .manual_optimization import _step_calls, keep_statement, read_breaks
from .skip_batches import direct_continues

HAND_UPDATE = Rule(
    "TL127",
    "parameters updated by hand: a step manual optimization cannot keep as written",
    """A batch loop that updates `model.parameters()` by hand (`p.data.add_(p.grad,
    alpha=-lr)`, `p -= lr * p.grad` under `torch.no_grad()`) becomes manual optimization: the
    step keeps the script's statements in order, `backward()` as `self.manual_backward`, and
    `configure_optimizers` returns None. With mixed precision, DDP or DataParallel the update
    would read gradients the Trainer scaled or averaged; `max_steps` counts optimizer steps,
    of which there are none; `continue` has no place in a kept step.""",
    """Drop the GradScaler / DataParallel / DDP wrapper (or use a torch.optim optimizer, which
    the migrator converts with them), count epochs instead of steps, and update one model's
    `parameters()` in a `for p in model.parameters():` loop.""",
    """
    scaler = torch.amp.GradScaler()
    for epoch in range(2):
        for x, y in loader:
            model.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = criterion(model(x), y)
            scaler.scale(loss).backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= 0.1 * p.grad
    """,
)

RAW_TENSORS = Rule(
    "TL128",
    "plain tensors updated by hand are not a module's parameters",
    """The loop updates tensors created with `requires_grad=True` (`a -= lr * a.grad`), not
    the parameters of an `nn.Module`. A LightningModule trains the parameters of its modules:
    holding these tensors as `nn.Parameter`s would make them tensors the Trainer moves to its
    device, apart from the script's own names, which the functions and the code after
    training read (`model(xb)` reading the global `weights`), so they would no longer see the
    trained values.""",
    """Put the tensors in an `nn.Module` (`self.weights = nn.Parameter(...)`, a `forward`
    reading them) and update `model.parameters()` by hand, or use a torch.optim optimizer.""",
    """
    a = torch.randn((), requires_grad=True)
    b = torch.randn((), requires_grad=True)
    x = torch.linspace(-1, 1, 20)
    for t in range(10):
        loss = (a + b * x - x.sin()).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            a -= 0.01 * a.grad
            b -= 0.01 * b.grad
            a.grad = None
            b.grad = None
    """,
)

RULES = (HAND_UPDATE, RAW_TENSORS)

_IN_PLACE = frozenset({"add_", "sub_", "mul_", "div_", "addcmul_", "addcdiv_", "copy_", "lerp_"})


def _grad_of(node, name: str) -> bool:
    """`node` reads `<name>.grad` (or `<name>.grad.data`, `<name>.data.grad`)."""
    owner = m.Name(name) | m.Attribute(value=m.Name(name), attr=m.Name("data"))
    return bool(m.findall(node, m.Attribute(value=owner, attr=m.Name("grad"))))


def _updated(stmt, name: str) -> bool:
    """`stmt` changes the tensor `name` in place: `name -= ...`, `name.data -= ...`,
    `name.data.add_(name.grad, ...)`."""
    target = m.Name(name) | m.Attribute(value=m.Name(name), attr=m.Name("data"))
    if m.findall(stmt, m.AugAssign(target=target)):
        return True
    method = m.Attribute(value=target, attr=m.MatchIfTrue(lambda a: a.value in _IN_PLACE))
    return bool(m.findall(stmt, m.Call(func=method)))


def _update_loops(stmt) -> list[tuple[cst.For, str]]:
    """(loop, model) of each `for p in <model>.parameters():` in `stmt` updating `p` in place
    from `p.grad`."""
    found = []
    for loop in statements(stmt):
        if not (
            isinstance(loop, cst.For)
            and isinstance(loop.target, cst.Name)
            and m.matches(
                loop.iter,
                m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("parameters")), args=[]),
            )
        ):
            continue
        name = loop.target.value  # updated in place, from its gradient (also through a buffer)
        if _grad_of(loop.body, name) and any(_updated(inner, name) for inner in loop.body.body):
            found.append((loop, loop.iter.func.value.value))
    return found


def _raw_updates(ctx, stmts) -> list[str]:
    """Names of tensors bound in the script (not loop variables) the statements update in
    place from their own gradient: `a -= lr * a.grad`."""
    loop_targets = {
        n
        for stmt in stmts
        for loop in statements(stmt)
        if isinstance(loop, cst.For)
        for n in collect_names(cst.AssignTarget(loop.target)).writes
    }
    names = []
    for stmt in stmts:
        for node in m.findall(stmt, m.AugAssign(target=m.Name()) | m.Call()):
            if isinstance(node, cst.AugAssign):
                name = node.target.value
            elif m.matches(
                node.func,
                m.Attribute(
                    value=m.Name() | m.Attribute(value=m.Name(), attr=m.Name("data")),
                    attr=m.MatchIfTrue(lambda a: a.value in _IN_PLACE),
                ),
            ):
                value = node.func.value
                name = (value if isinstance(value, cst.Name) else value.value).value
            else:
                continue
            if name not in loop_targets and _grad_of(node, name) and name not in names:
                names.append(name)
    return names


def _steps_an_optimizer(ctx, stmts) -> bool:
    """`optimizer.step()` or `scaler.step(optimizer)` of a torch.optim optimizer."""

    def optimizer(node) -> bool:
        return isinstance(node, cst.Name) and (
            optim_kind(ctx, ctx.binding(node.value)[0]) == "optimizer"
        )

    return any(
        optimizer(call.func.value) or any(optimizer(arg.value) for arg in call.args)
        for stmt in stmts
        for call in _step_calls(stmt)
    )


def batch_statements(ctx, stmts):
    """Note a batch loop that updates a model's parameters by hand and steps no optimizer."""
    if "manual_optimizers" in ctx.found or _steps_an_optimizer(ctx, stmts):
        return stmts
    loops = [found for stmt in stmts for found in _update_loops(stmt)]
    raw = _raw_updates(ctx, stmts)
    if raw:  # also beside a model's update: the step would read them as plain attributes
        where = next(s for s in stmts if any(_grad_of(s, name) for name in raw))
        raise Unsupported(
            RAW_TENSORS,
            f"`{'`, `'.join(raw)}` updated by hand: plain tensors, not the parameters of an "
            "nn.Module the LightningModule could hold",
            where,
        )
    if not loops:
        called = _update_in_a_call(ctx, stmts)
        if called is not None:
            stmt, chain, update = called
            raise Unsupported(
                HAND_UPDATE,
                f"the step updates tensors by hand inside `{chain}` "
                f"(`{ctx.module.code_for_node(update).strip().splitlines()[0]}`), which the "
                "batch loop calls: an update the step makes through a function is not followed",
                stmt,
            )
        return stmts
    models = list(dict.fromkeys(model for _, model in loops))
    if len(models) != 1:
        raise Unsupported(
            HAND_UPDATE,
            f"parameters of several models updated by hand ({', '.join(models)})",
            loops[0][0],
        )
    for stmt in stmts:
        for call in m.findall(stmt, m.Call()):
            names = ctx.call_qualnames(call)
            scaled = isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)
            binding = ctx.binding(call.func.value.value)[0] if scaled else None
            if names & _AUTOCAST or (
                binding is not None
                and isinstance(binding[1], cst.Call)
                and ctx.call_qualnames(binding[1]) & SCALERS
            ):
                raise Unsupported(
                    HAND_UPDATE, "mixed precision with parameters updated by hand", stmt
                )
        if direct_continues(stmt):
            raise Unsupported(HAND_UPDATE, "`continue` in a step that updates by hand", stmt)
    for loop, model in loops:
        for name in sorted(collect_names(loop).reads - {model, loop.target.value}):
            stmt = _built_from(ctx, name, model)
            if stmt is not None:
                raise Unsupported(
                    HAND_UPDATE,
                    f"the update reads `{name}`, built from `{model}` before the loop "
                    "(state such as momentum buffers): Lightning moves the model to its device "
                    "after that, the state would stay where it was built",
                    loop,
                )
    ctx.found["hand_update"] = models[0]
    return stmts


def _update_in_a_call(ctx, stmts):
    """(statement, `f()` or `f() -> g()`, the update) when a statement of the batch loop calls
    a function of the script -- by its name, or through a parameter every caller gives such a
    function (d2l's `updater(X.shape[0])` calling `sgd(...)`) -- that changes a tensor in place
    from its own gradient, itself or through the script's functions it calls."""
    from .passed_in import reaching_values  # (passed_in imports this one's patterns)

    functions = module_functions(ctx.module)

    def callees(call) -> list[cst.FunctionDef]:
        if not isinstance(call.func, cst.Name):
            return []
        name = call.func.value
        if ctx.function is not None and name in ctx.params:
            values = reaching_values(ctx, name) or [None]
            return values if all(isinstance(v, cst.FunctionDef) for v in values) else []
        found = only_module_binding(ctx.module, name)
        return [found] if isinstance(found, cst.FunctionDef) else []

    def update_in(function, seen) -> tuple[str, cst.CSTNode] | None:
        if function.name.value in seen:
            return None
        seen = seen | {function.name.value}
        update = _in_place_from_grad(function.body)
        if update is not None:
            return f"{function.name.value}()", update
        for call in m.findall(function.body, m.Call(func=m.Name())):
            inner = functions.get(call.func.value)
            if inner is not None and only_module_binding(ctx.module, call.func.value) is inner:
                found = update_in(inner, seen)
                if found is not None:
                    return f"{function.name.value}() -> {found[0]}", found[1]
        return None

    for stmt in stmts:
        for call in m.findall(stmt, m.Call()):
            for function in callees(call):
                found = update_in(function, frozenset())
                if found is not None:
                    return stmt, *found
    return None


def _in_place_from_grad(body):
    """The first statement of `body` changing a name in place from that name's gradient (a
    loop variable's too: `for param in params: param -= lr * param.grad`)."""
    for stmt in m.findall(body, m.SimpleStatementLine()):
        names = {n.value for n in m.findall(stmt, m.Name())}
        if any(_updated(stmt, name) and _grad_of(stmt, name) for name in names):
            return stmt
    return None


def _built_from(ctx, name: str, model: str):
    """The statement before the loop binding `name` from `model` (`velocity = [torch.zeros_like(p)
    for p in model.parameters()]`), else None."""
    for stmt in ctx.scope_before:
        if name in bound_names(stmt) and model in collect_names(stmt).reads:
            return stmt
    return None


def claim(ctx, steps, stmt, position) -> bool:
    """Every statement of the step, kept in order (backward() -> self.manual_backward)."""
    if "hand_update" not in ctx.found:
        return False
    steps["manual"] = steps["hand_update"] = True
    if loop_breaks(stmt):  # read() ends the epoch there, as manual optimization does
        steps.setdefault("manual_breaks", []).append((position, stmt))
    keep_statement(ctx, steps, stmt, position)
    return True


def bind(ctx, plan, steps) -> None:
    """The model whose parameters the step updates; no optimizer."""
    if not steps.get("hand_update"):
        return
    plan.models.append(ModelPlan(ctx.found["hand_update"]))
    plan.manual_optimization = True


def read(ctx, plan, steps) -> None:
    if not steps.get("hand_update"):
        return
    plan.train_body = [stmt for _, stmt in sorted(steps["kept"], key=lambda found: found[0])]
    read_breaks(ctx, plan, steps)
    plan.notes.append(
        "manual optimization: the parameters are updated by hand in training_step, "
        "configure_optimizers returns None (Lightning warns that the fit runs with no "
        "optimizer); global_step stays 0"
    )


def clean(ctx, plan) -> None:
    """What the Trainer would add to the step: refused (the facts of amp, ddp,
    data_parallel, read before this phase)."""
    if not plan.manual_optimization or plan.optimizers:
        return
    from .ddp import uses_ddp

    if "precision" in ctx.found or plan.scaler is not None:
        why = "mixed precision"
    elif uses_ddp(ctx) or ctx.found.get("data_parallel_conditions"):
        why = "DDP / DataParallel (the update would read gradients averaged over processes)"
    else:
        return
    raise Unsupported(HAND_UPDATE, f"{why} with parameters updated by hand", ctx.loop)
