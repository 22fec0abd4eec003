"""Cases of patterns/eval_metrics.py: the pass's numbers logged, its prints at its epoch end."""

_EPOCH = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
for epoch in range(2):
    model.train()
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

_COUNTERS = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    correct, total = 0, 0
    with torch.no_grad():
        for x, y in val_loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.size(0)
    {epoch_end}
"""

CONVERTS.update(
    {
        "counters_are_not_metrics_the_printed_ratio_is_logged_under_its_label": (
            _COUNTERS.format(epoch_end='print(f"epoch {epoch}: val acc {correct / total:.3f}")'),
            ['self.log("val_acc", self.correct / self.total)'],
            ['self.log("correct"', 'self.log("total"', 'self.log("epoch"'],
        ),
        "a_metric_computed_from_counters_is_logged_by_its_name": (
            _COUNTERS.format(epoch_end="acc = correct / total\n    print(acc)"),
            ['self.log("acc", acc)'],
            ['self.log("correct"', 'self.log("total"'],
        ),
        # ... but not the count of samples it saw (`total += y.size(0)`): not a metric
        "an_accumulator_printed_as_it_is_is_a_metric": (
            _COUNTERS.format(epoch_end='print("Accuracy: {}/{}".format(correct, total))'),
            ['self.log("correct", self.correct)'],
            ['self.log("total"'],
        ),
        "a_value_printed_under_a_condition_is_not_logged": (
            _COUNTERS.format(epoch_end='if epoch:\n        print(f"acc {correct / total}")'),
            [],
            ['self.log("acc"', 'self.log("correct"'],
        ),
    }
)

CONVERTS["a_dict_of_metrics_is_logged_under_its_keys"] = (
    _COUNTERS.format(
        epoch_end='metrics = {"val_acc": correct / total, "seen": total}\n    print(metrics)'
    ),
    ['self.log("val_acc", metrics["val_acc"])'],
    ['self.log("seen"', 'self.log("correct"'],
)

CONVERTS["a_printed_value_that_calls_the_model_again_is_not_logged"] = (
    _COUNTERS.format(
        epoch_end='print(f"acc {correct / total:.2f} last {criterion(model(x), y).item() / total:.3f}")'
    ),
    ['self.log("acc", self.correct / self.total)'],
    ['self.log("last"'],
)

CONVERTS["a_count_read_from_a_dict_of_numbers"] = (
    _COUNTERS.format(epoch_end="print(f\"val acc {correct / sizes['val']:.3f}\")").replace(
        "for epoch", 'sizes = {split: len(val_loader.dataset) for split in ["val"]}\nfor epoch'
    ),
    ['self.log("val_acc", self.correct / self.sizes["val"])'],
    ['self.log("correct"'],
)

# a tutorial's test pass printing how many samples it saw beside its accuracy: the accuracy
# is a metric, the count is not (Lightning would print it in its metrics table)
CONVERTS["sample_count_printed_beside_a_metric_not_logged"] = (
    """
    val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            n_correct = 0
            n_samples = 0
            for x, y in val_loader:
                n_samples += y.size(0)
                n_correct += (model(x).argmax(1) == y).sum().item()
            acc = 100.0 * n_correct / n_samples
            print(f"Accuracy on the {n_samples} test images: {acc} %")
    """,
    ['self.log("acc", acc)'],
    ['self.log("n_samples"'],
)

# a metric computed only on rank 0 (or under any condition): logging it after the `if` would
# read a name the other ranks never bound
CONVERTS["a_metric_bound_under_a_condition_is_not_logged"] = (
    _COUNTERS.format(epoch_end="if epoch >= 0:\n        acc = correct / total\n        print(acc)"),
    [],
    ['self.log("acc"'],
)
