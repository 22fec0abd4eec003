"""Cases of patterns/loader_roles.py: a loader read in a hook is the Trainer's loader of the loop
running then; a loader the Trainer does not hold there is refused (TL152)."""

_RUN = """
test_loader = DataLoader(TensorDataset(torch.randn(6, 4), torch.randint(0, 2, (6,))), batch_size=4)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    {epoch_end}
model.eval()
hits = 0
with torch.no_grad():
    for x, y in test_loader:
        hits += (model(x).argmax(1) == y).sum().item()
print({printed})
"""

_VALIDATED_ON_TEST_LOADER = """model.eval()
    val_loss = 0
    with torch.no_grad():
        for x, y in test_loader:
            val_loss += criterion(model(x), y).item()
    print(val_loss / len(test_loader))
    model.train()"""

CONVERTS = {
    "the_test_loader_validated_over_is_the_validation_loader_while_fitting": (
        _RUN.format(epoch_end=_VALIDATED_ON_TEST_LOADER, printed="hits / len(test_loader)"),
        [
            "self.print(self.val_loss / len(self.trainer.val_dataloaders))",
            "self.print(self.hits / len(self.trainer.test_dataloaders))",
        ],
        ["self.val_loss / len(self.trainer.test_dataloaders)"],
    ),
}

UNCHANGED = {
    "the_test_loader_read_while_fitting": (
        _RUN.format(epoch_end="print(epoch, len(test_loader))", printed="hits"),
        "TL152",
    ),
    "the_training_loader_read_while_testing": (
        _RUN.format(epoch_end="pass", printed="hits, len(loader)"),
        "TL152",
    ),
}
