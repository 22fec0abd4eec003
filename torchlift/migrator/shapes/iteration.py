"""The step-loop shape: one optimizer step per iteration of a counted loop, no batch loop.

    for it in range(a, b):                    -> iterations = DataLoader(range(a, b),
        <step>                                       batch_size=None, generator=...)
                                                 Trainer(max_epochs=1)
                                                 training_step(batch, ...): it = batch

Full-batch training (`for t in range(500): loss = loss_fn(model(x), y); ...`) and step loops
that fetch their own batch (`xb, yb = get_batch("train")`, `next(data_iter)`) are both this
shape: the iteration numbers become the batches of a generated loader, one epoch long, and
the body's own batch fetch stays in `training_step`, so the global RNG sees the script's draws
in the script's order (the loader has its own generator: iterating it draws nothing). The
step's statements go through the same patterns as a batch loop's (registry.py); code after
`optimizer.step()` that reads the model runs in `on_train_batch_end`, after the step as in
the script. `range(...)` may be wrapped in `tqdm(...)`; `trange(...)` is `range(...)`.

Not converted here: a counter that is not a plain name (TL120), a step loop with no
`torch` import to build the loader from (TL121), a `break` in code moved after the step
(TL122). `while` loops and `for` loops over anything else keep epoch_batch's refusals.
"""

from __future__ import annotations

import libcst as cst

from .. import registry
from ..analysis.names import collect_names, file_identifiers
from ..analysis.qualnames import TQDM, TRANGE
from ..analysis.statements import BACKWARD, LOOP, contains, direct_breaks
from ..plan import LoopPlan
from ..rule import Rule, Unsupported
from .context import CONTROL_FLOW, LoopContext
from .epoch_batch import finish_plan, plan_with, read_step

STEP_COUNTER = Rule(
    "TL120",
    "step loop's counter is not a single name",
    """A step loop `for it in range(N):` becomes one epoch over a loader of the numbers
    `range(N)`, each handed to `training_step` as its batch and bound to the counter's name.
    A counter unpacked into several names has no such batch.""",
    """Count with one name: `for it in range(N):`.""",
    """
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    for it, _ in zip(range(10), range(10)):
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

BREAK_AFTER_STEP = Rule(
    "TL122",
    "`break` in step-loop code that reads the model after optimizer.step()",
    """Code after `optimizer.step()` that reads the model (a test accuracy printed every k
    steps) moves to `on_train_batch_end`, which runs after the step as in the script; a
    `break` there would have to stop the Trainer from a hook, which is not converted.""",
    """Move the `break` before the code reading the model, or drop it and set the number of
    steps in `range(...)`.""",
    """
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    for t in range(100):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        accuracy = (model(x).argmax(1) == y).float().mean()
        if accuracy > 0.9:
            break
    """,
)

RULES = (STEP_COUNTER, NO_TORCH_NAME, BREAK_AFTER_STEP)

_LOADER_NAME = "iterations"
_LOADER_QUALNAMES = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")


def takes(ctx: LoopContext) -> bool:
    """A `for` over range(...) whose own body calls backward() (no batch loop inside)."""
    loop = ctx.loop
    if not isinstance(loop, cst.For) or _counted_range(ctx, loop.iter) is None:
        return False
    body = loop.body.body
    nested = any(contains(s, LOOP) and contains(s, BACKWARD) for s in body)
    return not nested and any(contains(s, BACKWARD) for s in body)


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
    if names & TRANGE:  # trange(*args, **bar_options) is tqdm(range(*args))
        args = [a for a in iterator.args if a.keyword is None]
        if any(a.star for a in args):
            return None
        return cst.Call(func=cst.Name("range"), args=_without_trailing_comma(args))
    return None


def _without_trailing_comma(args):
    return [*args[:-1], args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)] if args else []


def _plan(ctx: LoopContext) -> LoopPlan:
    loop = ctx.loop
    ctx.locate()
    if loop.orelse is not None:
        raise Unsupported(CONTROL_FLOW, "`for ... else` on the step loop", loop)
    counted = _counted_range(ctx, loop.iter)
    target = loop.target
    if not isinstance(target, cst.Name):
        raise Unsupported(STEP_COUNTER, "the step loop's counter is not a single name", loop)
    body = list(loop.body.body)
    if target.value == "_" or not any(target.value in collect_names(s).reads for s in body):
        target = None
    loader = _unique(_LOADER_NAME, file_identifiers(ctx.module.code, "<module>"))
    steps = read_step(ctx, loop, loader, target, None)
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
    plan.loader_stmt = _loader_statement(ctx, loader, counted)
    plan.add_trainer_arg("max_epochs", "1")
    registry.run_each("bind", ctx, plan, steps)
    _move_code_after_step(ctx, plan, steps)
    registry.run_each("read", ctx, plan, steps)
    return finish_plan(ctx, plan)


def _unique(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    return name


def _loader_statement(ctx: LoopContext, loader: str, counted: cst.Call) -> str:
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
    counted_code = ctx.module.code_for_node(counted)
    return (
        "# the iteration numbers as batches; its own generator keeps the global RNG untouched\n"
        f"{loader} = {data_loader}({counted_code}, batch_size=None, "
        f"generator={torch_name}.Generator())"
    )


def _move_code_after_step(ctx: LoopContext, plan: LoopPlan, steps: dict) -> None:
    """Code after optimizer.step() that reads the model -> on_train_batch_end (with the rest
    of the code after the step, in order): Lightning runs training_step before the step."""
    if "optimizer_step" not in steps:
        return
    after = [(p, s) for p, s in steps["body"] if p > steps["optimizer_step"]]
    model = plan.model
    model_names = {model.name, *model.aliases}
    if not any(model_names & collect_names(s).reads for _, s in after):
        return
    for _, stmt in after:
        if direct_breaks(stmt):
            ctx.block(BREAK_AFTER_STEP, "`break` after the step in code reading the model", stmt)
    moved = [s for _, s in after]
    moved[0] = moved[0].with_changes(leading_lines=[])  # the blank line before it
    if any(plan.loss_name in collect_names(s).reads for s in moved):
        # the hook's `outputs["loss"]` is the value training_step returned, detached
        moved.insert(0, cst.parse_statement(f'{plan.loss_name} = outputs["loss"]\n'))
    plan.after_step = moved
    steps["body"] = [(p, s) for p, s in steps["body"] if p <= steps["optimizer_step"]]
    plan.train_body = [stmt for _, stmt in steps["body"]]
