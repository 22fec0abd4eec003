"""Pattern: the optimizer step sequence, which the Trainer runs itself.

    optimizer.zero_grad()     -> removed (Lightning zeroes, steps and calls backward)
    loss = criterion(...)     -> training_step ... `return loss`
    loss.backward()           -> removed
    optimizer.step()          -> removed

Accepted: the three calls once per batch, in any order with the same effect (zero_grad
before backward or after step; `model.zero_grad()` too, and module calls such as
`decoder.zero_grad(); encoder.zero_grad()` that reach every parameter the optimizer steps:
patterns/module_zero_grad.py). The loss is the name backward() is called on; if the step
rebinds that name after backward(), the value of backward() is kept as `step_loss` and
returned. backward() on an expression (`loss.mean().backward()`, `criterion(out,
y).backward()`) binds it first, where the script computed it: `train_loss = loss.mean()` (or
another name the file does not use) is returned. Refused (TL105): a missing or extra
zero_grad (or module calls leaving an optimized parameter out), step before backward,
zero_grad between them, code between backward and step reading the model, step() with
arguments, several optimizers, `zero_grad(set_to_none=False)` (Lightning's sets the gradients
to None: a parameter without a gradient in a step is then skipped by the optimizer, where the
script's updates it with a zero one).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.function_reads import functions_doing, module_functions
from ..analysis.names import collect_names
from ..analysis.statements import call_method
from ..rule import Rule, Unsupported
from ..shapes.context import EPOCH_STATEMENT
from .accumulation import ACCUMULATION
from .closure_step import takes_step
from .module_zero_grad import dotted_path, uncovered

STEP_SEQUENCE = Rule(
    "TL105",
    "optimizer step sequence not understood (zero_grad/backward/step)",
    """Lightning runs `zero_grad`, `backward` and `optimizer.step` itself, once per batch and
    in that order. The loop must call each exactly once per batch in an order with the same
    effect: no missing `zero_grad()` (gradients would accumulate), no `step()` before
    `backward()`, clipping between them, one optimizer.""",
    """Call `optimizer.zero_grad()`, `loss.backward()` and `optimizer.step()` once per batch.
    Several optimizers (GANs) need manual optimization, written by hand.""",
    """
    for epoch in range(2):
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
)

RULES = (STEP_SEQUENCE,)


def record_backward(ctx, steps, stmt, position, receiver) -> None:
    """Note `<receiver>.backward()` at `position` as the batch's backward."""
    if steps["backward"] is not None:
        ctx.block(ACCUMULATION, "backward() called twice per batch", stmt)
        return
    if divided(receiver):  # `(loss / N).backward()`: accumulation's own division
        receiver, steps["loss_divisor"] = receiver.left, receiver.right
    elif not isinstance(receiver, cst.Name) and steps.get("loss_divisor") is None:
        # `loss.mean().backward()`, `criterion(out, y).backward()`: the value backward() was
        # called on, bound where it was computed, is what training_step returns
        name = _free_name(ctx, ("train_loss", "step_loss", "batch_loss"))
        bound = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(name))], receiver)],
            leading_lines=stmt.leading_lines,
        )
        steps["body"].append((position, bound))
        receiver = cst.Name(name)
    if not isinstance(receiver, cst.Name):
        raise Unsupported(
            ACCUMULATION,
            f"backward() on an expression (`{ctx.module.code_for_node(receiver)}.backward()`), "
            "not on a loss variable training_step could return",
            stmt,
        )
    if stmt.body[0].value.args:
        ctx.block(ACCUMULATION, "backward() with arguments", stmt)
    steps["backward"] = position
    steps["loss"] = receiver.value
    steps["backward_stmt"] = stmt


def lightning_zero_grad(stmt) -> bool:
    """`stmt`'s `zero_grad(...)` is the one Lightning calls: no argument, or
    `set_to_none=True` (the default of both `Optimizer.zero_grad` and `Module.zero_grad`)."""
    args = stmt.body[0].value.args
    if not args:
        return True
    keyword = m.Name("set_to_none") | None
    return len(args) == 1 and m.matches(args[0], m.Arg(keyword=keyword, value=m.Name("True")))


def _free_name(ctx, bases: tuple[str, ...]) -> str:
    """The first of `bases` the file does not use anywhere, else `<first>_2`, ..."""
    used = {n.value for n in m.findall(ctx.module, m.Name())}
    name = next((base for base in bases if base not in used), None)
    n = 2
    while name is None or name in used:
        name, n = f"{bases[0]}_{n}", n + 1
    return name


def divided(receiver) -> bool:
    """`name / N`: a loss divided by the accumulation group's size."""
    return (
        isinstance(receiver, cst.BinaryOperation)
        and isinstance(receiver.operator, cst.Divide)
        and isinstance(receiver.left, cst.Name)
    )


def claim(ctx, steps, stmt, position) -> bool:
    receiver = call_method(stmt, "backward")
    if receiver is not None:
        record_backward(ctx, steps, stmt, position, receiver)
        return True
    receiver = call_method(stmt, "zero_grad")
    if receiver is not None:
        path = dotted_path(receiver)  # `encoder.zero_grad()`, `model.head.zero_grad()`
        if path is None:
            raise Unsupported(STEP_SEQUENCE, "zero_grad() on an expression", stmt)
        if not lightning_zero_grad(stmt):
            ctx.block(
                STEP_SEQUENCE,
                f"`{ctx.module.code_for_node(stmt.body[0]).strip()}`: Lightning's zero_grad() "
                "sets the gradients to None, and the optimizer skips a parameter without one "
                "where the script's updates it with a zero gradient (momentum, weight decay)",
                stmt,
            )
        steps["zero_grad"].append((position, path, stmt))
        return True
    receiver = call_method(stmt, "step")
    if receiver is not None and isinstance(receiver, cst.Name):
        if stmt.body[0].value.args and not takes_step(ctx, stmt):
            ctx.block(STEP_SEQUENCE, "step() with arguments", stmt)
        steps["step"].append((position, receiver.value, stmt))
        return True
    holder = _held_by_plain_object(ctx, receiver)
    if holder is not None:
        from .bindings import BINDING  # bindings.py reads this module's rule

        ctx.block(
            BINDING,
            f"`{ctx.module.code_for_node(stmt.body[0]).strip()}` steps an optimizer held by "
            f"`{receiver.value.value}`, an instance of `{holder}` (a class of the script, not an "
            "nn.Module): the LightningModule would have to hold that object's networks, which "
            "is not done; build the optimizer (and the networks) at module level and step it",
            stmt,
        )
        return True
    return False


def _held_by_plain_object(ctx, receiver) -> str | None:
    """The class of `obj` for `obj.attr` (a `.step()` receiver) when `obj` is bound once, in
    the loop's scope, to `C(...)` of a class of the script that is no torch module and whose
    methods assign `self.attr` (an `Agent` holding its networks and optimizer); else None."""
    if not m.matches(receiver, m.Attribute(value=m.Name(), attr=m.Name())):
        return None
    found, count = ctx.binding(receiver.value.value)
    if found is None or count != 1 or not m.matches(found[1], m.Call(func=m.Name())):
        return None
    name = found[1].func.value
    for cls in ctx.module.body:
        if isinstance(cls, cst.ClassDef) and cls.name.value == name:
            bases = [a for a in cls.bases if not m.matches(a, m.Arg(m.Name("object")))]
            if not bases and any(_builds_optimizer(ctx, v) for v in _self_stores(cls, receiver)):
                return name
    return None


def _self_stores(cls: cst.ClassDef, receiver: cst.Attribute) -> list:
    """The values the class's code assigns to `self.<receiver's attribute>`."""
    target = m.Attribute(value=m.Name("self"), attr=m.Name(receiver.attr.value))
    return [a.value for a in m.findall(cls, m.Assign(targets=[m.AssignTarget(target)]))]


def _builds_optimizer(ctx, value) -> bool:
    """`torch.optim.Adam(...)` and the like (no scheduler)."""
    if not isinstance(value, cst.Call):
        return False
    return any(
        q.startswith("torch.optim.") and not q.startswith("torch.optim.lr_scheduler")
        for q in ctx.call_qualnames(value)
    )


def _module_calls(zeros, plan) -> bool:
    """Several zero_grad() calls, none on the optimizer: modules zeroed one by one."""
    return all(name != plan.optimizer.name for _, name, _ in zeros)


def _block_uncovered(ctx, plan, zeros) -> None:
    """Module zero_grad() calls stand for the optimizer's when together they reach every
    parameter it holds (patterns/module_zero_grad.py)."""
    why = uncovered(ctx, plan, [name for _, name, _ in zeros])
    if why is not None:
        names = ", ".join(f"`{name}`" for _, name, _ in zeros)
        ctx.block(STEP_SEQUENCE, f"zero_grad() on {names}: {why}", zeros[0][2])


def read(ctx, plan, steps) -> None:
    if steps.get("manual"):  # several optimizers: the step keeps the script's calls
        return
    if steps.get("loss_divisor") is not None and steps.get("accumulate") is None:
        raise Unsupported(
            ACCUMULATION,
            "backward() on the loss divided by a number with no accumulation group "
            "(`if (i + 1) % N == 0:` around the step), not on a loss variable training_step "
            "could return",
            steps["backward_stmt"],
        )
    backward = steps["backward"]
    opt_step = steps["optimizer_step"]
    models = {n for model in plan.models for n in (model.name, *model.aliases)}
    if opt_step < backward:
        ctx.block(STEP_SEQUENCE, "optimizer.step() before backward()", plan.epoch_loop)
    zeros = steps["zero_grad"]
    if not zeros:
        outside = m.findall(plan.epoch_loop, m.Call(func=m.Attribute(attr=m.Name("zero_grad"))))
        if outside:
            ctx.block(
                STEP_SEQUENCE,
                "zero_grad() runs outside the batch loop (once per epoch): the gradients of "
                "the epoch's batches add up from step to step, where Lightning zeroes them "
                "before every step",
                outside[0],
            )
        else:
            ctx.block(
                STEP_SEQUENCE,
                "no zero_grad() in the loop: the gradients of every step add up, where "
                "Lightning zeroes them before each step",
                plan.epoch_loop,
            )
    elif len(zeros) > 1 and not _module_calls(zeros, plan):
        ctx.block(
            STEP_SEQUENCE,
            "expected one zero_grad() per batch (none means gradients accumulate)",
            plan.epoch_loop,
        )
    elif len(zeros) == 1 and zeros[0][1] in {plan.optimizer.name} | models:
        _, z_name, z_stmt = zeros[0]
        # a model's zero_grad() leaves the gradients of what else the optimizer holds (other
        # models, a bare tensor such as a learned temperature) to add up
        if z_name != plan.optimizer.name:
            _block_uncovered(ctx, plan, zeros)
    else:  # zero_grad() on modules (`decoder.zero_grad(); encoder.zero_grad()`)
        _block_uncovered(ctx, plan, zeros)
    for z_pos, _, z_stmt in zeros:
        if backward > z_pos and z_pos > opt_step or backward < z_pos < opt_step:
            ctx.block(STEP_SEQUENCE, "zero_grad() between backward() and step()", z_stmt)
    if zeros and all(z_pos > opt_step for z_pos, _, _ in zeros):
        leftover = _gradients_left_before(ctx)
        if leftover is not None:
            ctx.block(
                STEP_SEQUENCE,
                "the script zeroes the gradients after each step, and code before the loop "
                "calls backward() (an lr finder, a sanity check) without zeroing them after: "
                "its gradients add into the script's first step, which Lightning zeroes first",
                leftover,
            )
    rebound = False
    # statements between backward and step see gradients; after step, updated weights
    for position, stmt in steps["body"]:
        reads_model = bool(models & collect_names(stmt).reads)
        if backward < position < opt_step and reads_model:
            ctx.block(STEP_SEQUENCE, "code between backward() and step() reads the model", stmt)
        elif backward < position < opt_step and _reads_gradients(stmt):
            # through another name (`params = list(model.parameters())`): training_step runs
            # before backward(), where these gradients are the last step's, or None
            ctx.block(STEP_SEQUENCE, "code between backward() and step() reads `.grad`", stmt)
        if position > opt_step and reads_model:
            ctx.block(
                EPOCH_STATEMENT,
                "code after optimizer.step() reads the model (Lightning runs it before the step)",
                stmt,
            )
        if plan.loss_name in collect_names(stmt).writes and position > backward:
            if steps.get("accumulate") is not None:
                raise Unsupported(ACCUMULATION, "accumulated loss rebound after backward()", stmt)
            rebound = True
            plan.loss_capture = "step_loss"
    if rebound:
        capture = cst.parse_statement(f"{plan.loss_capture} = {plan.loss_name}\n")
        body = [s for p, s in steps["body"] if p < backward]
        body += [capture] + [s for p, s in steps["body"] if p > backward]
        plan.train_body = body


def _reads_gradients(stmt) -> bool:
    """`stmt` reads some tensor's `.grad` (it exists only from backward() on)."""
    return bool(m.findall(stmt, m.Attribute(attr=m.Name("grad"))))


def _gradients_left_before(ctx):
    """The last statement before the loop calling backward() (itself or through a function
    of the script) when no zero_grad() statement follows it there, else None."""
    backward_functions = functions_doing(
        module_functions(ctx.module).values(),
        lambda f, found: bool(_calls_backward(f.body, found)),
    )
    last = None
    for stmt in ctx.scope_before:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        if _calls_backward(stmt, backward_functions):
            last = stmt
        elif last is not None and call_method(stmt, "zero_grad") is not None:
            last = None
    return last


def _calls_backward(node, functions) -> bool:
    return any(
        m.matches(call.func, m.Attribute(attr=m.Name("backward")))
        or (isinstance(call.func, cst.Name) and call.func.value in functions)
        for call in m.findall(node, m.Call())
    )
