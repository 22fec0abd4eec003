"""Cases of patterns/eval_metrics.py: the pass's numbers logged, its prints at its epoch end."""

_EPOCH = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    {between}
    model.eval()
    val_loss, hits, outputs = 0.0, 0, []
    with torch.no_grad():
        for x, y in val_loader:
            out = model(x)
            val_loss += criterion(out, y).item()
            hits += (out.argmax(1) == y).sum()
            outputs.append(out)
    val_loss /= len(val_loader)
    print(f"val loss {{val_loss:.3f}}", flush={flush})
"""

CONVERTS = {
    "numbers_logged_and_printed_at_the_validation_epoch_end": (
        _EPOCH.format(between="", flush="False"),
        [
            "def on_validation_epoch_end(self):\n"
            "        self.val_loss /= len(self.trainer.val_dataloaders)\n"
            '        print(f"val loss {self.val_loss:.3f}", flush=False)\n'
            '        self.log("val_loss", self.val_loss)\n'
        ],
        ['self.log("hits"', 'self.log("outputs"', "on_train_epoch_end"],
    ),
    "self_print_without_file_or_flush": (
        _EPOCH.format(between="", flush="False").replace(", flush=False", ""),
        ['self.print(f"val loss {self.val_loss:.3f}")'],
        [],
    ),
    "after_epoch_code_before_the_pass_everything_stays_in_train_epoch_end": (
        _EPOCH.format(between='print("trained", epoch)', flush="False"),
        [
            'def on_train_epoch_end(self):\n        epoch = self.current_epoch\n        print("trained"'
        ],
        ["on_validation_epoch_end"],
    ),
}
