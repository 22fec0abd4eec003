"""Cases of patterns/trainer_values.py: values the Trainer knows are read from it."""

_LOOP = """
num_epochs = 2
total_step = len(loader)
dry_run = False
for epoch in range(num_epochs):
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        print(f"Epoch [{{epoch + 1}}/{{num_epochs}}], Step [{{i + 1}}/{{total_step}}]")
        {extra}
"""

CONVERTS = {
    "epochs_and_batches_read_from_the_trainer": (
        _LOOP.format(extra=""),
        [
            "{self.trainer.max_epochs}",
            "{self.trainer.num_training_batches}",
            "def __init__(self, model, criterion):",
        ],
        ["total_step = len(loader)", "self.num_epochs", "self.total_step"],
    ),
    "a_batch_limit_keeps_the_length_of_the_loader": (
        _LOOP.format(extra="if dry_run:\n            break"),
        ["{self.trainer.max_epochs}", "{self.total_step}", "total_step = len(loader)"],
        ["num_training_batches"],
    ),
    "a_value_read_in_configure_optimizers_stays_an_argument": (
        """
        num_epochs = 2
        scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, total_iters=num_epochs)
        for epoch in range(num_epochs):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            scheduler.step()
            print(f"epoch {epoch + 1}/{num_epochs}")
        """,
        ["{self.hparams.num_epochs}", "total_iters=self.hparams.num_epochs"],
        ["self.trainer.max_epochs"],
    ),
    "a_name_bound_twice_stays_an_argument": (
        _LOOP.format(extra="").replace("num_epochs = 2\n", "num_epochs = 1\nnum_epochs = 2\n"),
        ["{self.num_epochs}", "{self.trainer.num_training_batches}"],
        ["self.trainer.max_epochs"],
    ),
}
