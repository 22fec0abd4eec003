"""Pattern: an optimizer (and its epoch scheduler) the script uses outside the loop stays
where the script builds it, handed to the LightningModule.

    optimizer = Adam(model.parameters())            optimizer = Adam(model.parameters())
    scheduler = ExponentialLR(optimizer, 0.9)       scheduler = ExponentialLR(optimizer, 0.9)
    if os.path.exists(CHECKPOINT):                  if os.path.exists(CHECKPOINT):
        optimizer.load_state_dict(ckpt["opt"])  ->      optimizer.load_state_dict(ckpt["opt"])
        scheduler.load_state_dict(ckpt["sched"])        scheduler.load_state_dict(ckpt["sched"])
    for epoch in range(start_epoch, EPOCHS):        lit_model = LitModel(model, optimizer, scheduler)
        for x, y in loader: ...                     L.Trainer(max_epochs=EPOCHS - start_epoch).fit(...)
        scheduler.step()
        torch.save({"scheduler": scheduler.state_dict(), ...}, CHECKPOINT)

    on_train_epoch_end:  self.scheduler.step(); torch.save({... self.scheduler.state_dict() ...})
    configure_optimizers:  return self.optimizer

Moving the optimizer's construction into `configure_optimizers` would make the resume block
load its state into an object training never uses. So when code before the loop reads the
optimizer or its scheduler (beyond building the scheduler), or code after the epoch's
`scheduler.step()` reads them (Lightning would step the scheduler only after the epoch
hooks, so that code would see the state one step behind), both stay in the script; the
module returns the optimizer from `configure_optimizers` and steps the scheduler itself, at
the place the script stepped it (the Trainer never sees it, so never steps it twice).

A scheduler stepped per batch right after the optimizer stays in the script too, handed to
the module and returned from `configure_optimizers` with `"interval": "step"`: Lightning steps
it right after each optimizer step, where the script did (the research loops' warmup-cosine
LambdaLR of a resumable run).

An optimizer whose build reads what code between the build and the loop may change (a
learning rate rebound, a parameter unfrozen, a list a parameter group holds emptied:
optimizer_window.py), or whose build draws random numbers, stays there too, as the script
built it.

An optimizer the module binds and the function holding the loop reads as a global stays
there too (the helper that stepped it may still run for evaluation, and reads it).

Refused (TL134): a ReduceLROnPlateau (stepped on a metric), or a per-batch scheduler whose
state code after its step reads.
"""

from __future__ import annotations

from ..analysis.names import scope_reads
from ..rule import Rule, Unsupported
from .optimizer_window import changed_since_built, draws_when_built

KEPT_OPTIMIZER = Rule(
    "TL134",
    "an optimizer used outside the loop has a scheduler the module cannot step in place",
    """An optimizer the script reads before the loop (a resume block loading its state) stays
    where it is built and is handed to the LightningModule; its epoch scheduler then stays
    too and is stepped by the module where the script stepped it; a scheduler stepped right
    after each optimizer step is returned to Lightning, which steps it there. A
    ReduceLROnPlateau, or a per-batch scheduler whose state later code reads, has no such
    place.""",
    """Load the optimizer's state inside the LightningModule (`on_fit_start`) or resume with
    `trainer.fit(..., ckpt_path=...)` after converting.""",
    """
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    optimizer.load_state_dict(optimizer.state_dict())
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        scheduler.step(loss.item())
    """,
)

RULES = (KEPT_OPTIMIZER,)


def _since_built(ctx, optimizer) -> list:
    """The statements of the loop's scope before it from the optimizer's build on: what
    comes before it reads an earlier object bound to the name (a phase of training before
    this one, its own optimizer: bindings.rebound_for_this_loop), or code not run yet."""
    index = next((i for i, s in enumerate(ctx.scope_before) if s is optimizer.stmt), None)
    if index is None or ctx.binding(optimizer.name)[1] < 2:
        return list(ctx.scope_before)
    return ctx.scope_before[index:]


def read(ctx, plan, steps) -> None:
    """Keep the optimizer (and scheduler) in the script when code outside the loop uses them
    in a way `configure_optimizers` would not see."""
    if len(plan.optimizers) != 1:
        return
    optimizer = plan.optimizer
    if optimizer.given:  # handed in already: only an epoch scheduler may still need keeping
        _keep_scheduler_of_given(ctx, optimizer)
        return
    names = {optimizer.name} | ({optimizer.scheduler} if optimizer.scheduler else set())
    built = {id(optimizer.stmt), id(optimizer.scheduler_stmt)}
    used_before = [
        stmt
        for stmt in _since_built(ctx, optimizer)
        if id(stmt) not in built and scope_reads(stmt) & names  # a def's body is its own
    ]
    read_after_step = ctx.found.get("read_after_scheduler_step")
    # a module global the function holding the loop reads: any function may read it too
    module_global = ctx.in_function and any(s is optimizer.stmt for s in ctx.module_before)
    # what the build reads, changed before the loop: configure_optimizers would read it changed
    changed = changed_since_built(ctx, plan, [optimizer.stmt, optimizer.scheduler_stmt])
    # a build drawing random numbers would draw them later, when fit starts
    changed = changed or draws_when_built(ctx, [optimizer.stmt, optimizer.scheduler_stmt])
    if not used_before and read_after_step is None and not module_global and changed is None:
        return
    per_batch = optimizer.scheduler and optimizer.interval == "step"
    if optimizer.scheduler and (optimizer.monitor or per_batch and read_after_step is not None):
        where = used_before[0] if used_before else (read_after_step or changed)
        how = "per batch" if per_batch else "on a metric"
        why = (
            "is used outside the loop"
            if where is not changed
            else "stays as the script built it (this line changes what its build reads, "
            "or draws random numbers)"
        )
        raise Unsupported(
            KEPT_OPTIMIZER,
            f"`{optimizer.name}` {why}, and its scheduler "
            f"`{optimizer.scheduler}` is stepped {how}: it cannot be stepped in place",
            where,
        )
    optimizer.kept_stmts = tuple(
        s for s in (optimizer.stmt, optimizer.scheduler_stmt) if s is not None
    )
    optimizer.given, optimizer.stmt = True, None
    if per_batch:  # Lightning steps it right after each optimizer step, as the script did
        optimizer.scheduler_given, optimizer.scheduler_stmt = True, None
    elif optimizer.scheduler:
        optimizer.scheduler_held, optimizer.scheduler_stmt = True, None
        step, post_train = ctx.found["epoch_scheduler_step"]
        if not any(s is step for s in plan.post_train):  # schedulers.py took it out
            plan.post_train = post_train


def _keep_scheduler_of_given(ctx, optimizer) -> None:
    """An optimizer handed to the function holding the loop (already given to the module)
    whose epoch scheduler code reads around its step: the scheduler, too, stays where the
    script builds it, handed to the module, which steps it in place (Lightning never sees it,
    so never steps it a second time)."""
    read_after_step = ctx.found.get("read_after_scheduler_step")
    if read_after_step is None or not optimizer.scheduler:
        return
    if optimizer.monitor or optimizer.interval == "step" or optimizer.scheduler_stmt is None:
        raise Unsupported(
            KEPT_OPTIMIZER,
            f"the scheduler `{optimizer.scheduler}` of the optimizer `{optimizer.name}` the "
            "function is given is read around its step, and cannot be stepped in place",
            read_after_step,
        )
    optimizer.kept_stmts += (optimizer.scheduler_stmt,)
    optimizer.scheduler_held, optimizer.scheduler_stmt = True, None
