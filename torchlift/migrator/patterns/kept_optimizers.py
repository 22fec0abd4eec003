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

Refused (TL134): the same for a scheduler stepped per batch (its step would run inside
`training_step`, before the optimizer step Lightning makes after it) or a ReduceLROnPlateau.
"""

from __future__ import annotations

from ..analysis.names import scope_reads
from ..rule import Rule, Unsupported

KEPT_OPTIMIZER = Rule(
    "TL134",
    "an optimizer used outside the loop has a scheduler the module cannot step in place",
    """An optimizer the script reads before the loop (a resume block loading its state) stays
    where it is built and is handed to the LightningModule; its epoch scheduler then stays
    too and is stepped by the module where the script stepped it. A scheduler stepped every
    batch, or a ReduceLROnPlateau, cannot be stepped in place: Lightning steps the optimizer
    after `training_step` returns.""",
    """Load the optimizer's state inside the LightningModule (`on_fit_start`) or resume with
    `trainer.fit(..., ckpt_path=...)` after converting.""",
    """
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)
    optimizer.load_state_dict(optimizer.state_dict())
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
    """,
)

RULES = (KEPT_OPTIMIZER,)


def read(ctx, plan, steps) -> None:
    """Keep the optimizer (and scheduler) in the script when code outside the loop uses them
    in a way `configure_optimizers` would not see."""
    if len(plan.optimizers) != 1 or plan.optimizer.given:  # one optimizer, built here
        return
    optimizer = plan.optimizer
    names = {optimizer.name} | ({optimizer.scheduler} if optimizer.scheduler else set())
    built = {id(optimizer.stmt), id(optimizer.scheduler_stmt)}
    used_before = [
        stmt
        for stmt in ctx.scope_before
        if id(stmt) not in built and scope_reads(stmt) & names  # a def's body is its own
    ]
    read_after_step = ctx.found.get("read_after_scheduler_step")
    if not used_before and read_after_step is None:
        return
    if optimizer.scheduler and (optimizer.interval != "epoch" or optimizer.monitor):
        where = used_before[0] if used_before else read_after_step
        how = "per batch" if optimizer.interval == "step" else "on a metric"
        raise Unsupported(
            KEPT_OPTIMIZER,
            f"`{optimizer.name}` is used outside the loop, and its scheduler "
            f"`{optimizer.scheduler}` is stepped {how}: it cannot be stepped in place",
            where,
        )
    optimizer.given, optimizer.stmt = True, None
    if optimizer.scheduler:
        optimizer.scheduler_held, optimizer.scheduler_stmt = True, None
        step, post_train = ctx.found["epoch_scheduler_step"]
        if not any(s is step for s in plan.post_train):  # schedulers.py took it out
            plan.post_train = post_train
