"""Cases of patterns/schedulers.py: per-epoch, per-step and ReduceLROnPlateau schedulers."""

_LOOP = """
scheduler = {scheduler}
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        {in_step}
    {in_epoch}
"""

CONVERTS = {
    "per_epoch": (
        _LOOP.format(
            scheduler="torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)",
            in_step="pass",
            in_epoch="scheduler.step()",
        ),
        ['"lr_scheduler": {"scheduler": scheduler, "interval": "epoch"}'],
        ["scheduler.step()"],
    ),
    "per_step": (
        _LOOP.format(
            scheduler="torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)",
            in_step="scheduler.step()",
            in_epoch="pass",
        ),
        ['"interval": "step"'],
        ["scheduler.step()"],
    ),
    "plateau_on_a_metric": (
        _LOOP.format(
            scheduler="torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)",
            in_step="pass",
            in_epoch="scheduler.step(loss.item())",
        ),
        ['self.log("monitor", self.loss.item())', '"monitor": "monitor"'],
        ["scheduler.step("],
    ),
}

UNCHANGED = {
    "stepped_before_the_optimizer": (
        _LOOP.format(
            scheduler="torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)",
            in_step="pass",
            in_epoch="pass",
        ).replace("optimizer.zero_grad()", "scheduler.step()\n        optimizer.zero_grad()"),
        "TL105",
    ),
    "step_with_an_epoch_argument": (
        _LOOP.format(
            scheduler="torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)",
            in_step="pass",
            in_epoch="scheduler.step(epoch)",
        ),
        "TL106",
    ),
}

# the epoch's rate printed before the script's step: Lightning would have stepped the scheduler
# already (after the epoch's last batch), so the script's step stays where it was
CONVERTS["rate_printed_before_the_epoch_step"] = (
    """
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        print(epoch, scheduler.get_last_lr()[0])
        scheduler.step()
    """,
    [
        "print(epoch, self.scheduler.get_last_lr()[0])\n        self.scheduler.step()",
        "LitModel(model, optimizer, scheduler, criterion)",
    ],
    [],
)
