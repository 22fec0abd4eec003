"""Cases of patterns/pre_pass_output.py: what the epoch printed before the validation pass."""

_EPOCH = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
history = []
for epoch in range(2):
    model.train()
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    {between}
    model.eval()
    with torch.no_grad():
        for x, y in val_loader:
            print("val", criterion(model(x), y).item())
"""

CONVERTS = {
    "print_before_the_pass_runs_at_the_validation_epoch_start": (
        _EPOCH.format(between='print("train", total)'),
        [
            "def on_validation_epoch_start(self):\n"
            '        print("train", self.total)\n'
            "\n"
            "    def validation_step"
        ],
        ["on_train_epoch_end"],
    ),
    "binding_the_print_reads_moves_with_it": (
        _EPOCH.format(between='avg = total / 2\n    print("train", avg)'),
        [
            "def on_validation_epoch_start(self):\n"
            "        avg = self.total / 2\n"
            '        print("train", avg)\n'
        ],
        ["on_train_epoch_end"],
    ),
    # not a number the pass computed: the code after the pass reading it stays where it was
    "binding_read_after_the_pass_too": (
        _EPOCH.format(between='avg = total / 2\n    print("train", avg)')
        + "    history.append(avg)\n",
        [
            "def on_validation_epoch_start(self):\n        self.avg = self.total / 2\n",
            "def on_train_epoch_end(self):\n        self.history.append(self.avg)\n",
        ],
        ['self.log("avg"', "on_validation_epoch_end"],
    ),
    "code_after_the_print_stays_at_the_train_epoch_end": (
        _EPOCH.format(between='print("train", total)\n    history.append(total)'),
        [
            'def on_validation_epoch_start(self):\n        print("train", self.total)\n',
            "def on_train_epoch_end(self):\n        self.history.append(self.total)\n",
        ],
        [],
    ),
    "unrelated_code_before_the_print_stays": (
        _EPOCH.format(between='history.append(loss.item())\n    print("train", total)'),
        ['def on_validation_epoch_start(self):\n        print("train", self.total)\n'],
        [],
    ),
    # the pass prints nothing: no order to keep, the epoch's code stays where it was
    "pass_without_prints_leaves_the_epoch_code": (
        _EPOCH.replace('print("val", criterion(model(x), y).item())', "model(x)").format(
            between='print("train", total)'
        ),
        ['def on_train_epoch_end(self):\n        print("train", self.total)\n'],
        ["on_validation_epoch_start"],
    ),
    # a helper of the script printing inside the pass counts as the pass's print
    "pass_printing_through_a_helper": (
        "def show(value):\n    print('val', value)\n"
        + _EPOCH.replace(
            'print("val", criterion(model(x), y).item())', "show(model(x).sum())"
        ).format(between='print("train", total)'),
        ['def on_validation_epoch_start(self):\n        print("train", self.total)\n'],
        ["on_train_epoch_end"],
    ),
    # every console write keeps its order with the others: a bar's `tqdm.write`, logging
    "tqdm_write_before_a_printing_pass": (
        "from tqdm import tqdm\n"
        + _EPOCH.format(between='tqdm.write(f"train {total}")'),
        ['def on_validation_epoch_start(self):\n        tqdm.write(f"train {self.total}")\n'],
        ["on_train_epoch_end"],
    ),
    "print_before_a_pass_writing_through_tqdm": (
        "from tqdm.auto import tqdm\n"
        + _EPOCH.replace(
            'print("val", criterion(model(x), y).item())',
            'tqdm.write(str(criterion(model(x), y).item()))',
        ).format(between='print("train", total)'),
        ['def on_validation_epoch_start(self):\n        print("train", self.total)\n'],
        ["on_train_epoch_end"],
    ),
    "logger_lines_before_a_logging_pass": (
        "import logging\nlogger = logging.getLogger(__name__)\n"
        + _EPOCH.replace(
            'print("val", criterion(model(x), y).item())',
            'logger.info("val %f", criterion(model(x), y).item())',
        ).format(between='logging.info("train %f", total)'),
        ['def on_validation_epoch_start(self):\n        logging.info("train %f", self.total)\n'],
        ["on_train_epoch_end"],
    ),
    # the same bar class or logger on both sides: a line out, no state the pass reads
    "one_logger_before_and_in_the_pass": (
        "import logging\nlogger = logging.getLogger(__name__)\n"
        + _EPOCH.replace(
            'print("val", criterion(model(x), y).item())',
            'logger.info("val %f", criterion(model(x), y).item())',
        ).format(between='logger.info("train %f", total)'),
        ["def on_validation_epoch_start(self):\n        self.logger_.info(\"train %f\", self.total)\n"],
        ["on_train_epoch_end"],
    ),
}

UNCHANGED = {
    "code_before_the_print_changes_what_it_prints": (
        _EPOCH.format(between='history.append(total)\n    print("train", history[-1])'),
        "TL199",
    ),
    "code_before_the_print_prints_too": (
        _EPOCH.format(between='log_epoch(epoch)\n    print("train", total)'),
        "TL199",
    ),
    # Lightning skips the validation of an epoch that on_train_batch_start ended (-1)
    "epoch_ended_by_the_early_break_flag": (
        _EPOCH.replace(
            "        total += loss.item()",
            "        total += loss.item()\n        if loss.item() < 0.1:\n            break",
        ).format(between='print("train", total)'),
        "TL199",
    ),
    # a method of the script's own class that prints, before the print
    "a_printing_method_before_the_print": (
        "class Meter:\n    def show(self):\n        print('meter')\n\n\nmeter = Meter()\n"
        + _EPOCH.format(between='meter.show()\n    print("train", total)'),
        "TL199",
    ),
    "print_reads_the_batch_index": (
        _EPOCH.replace("for x, y in loader", "for i, (x, y) in enumerate(loader)").format(
            between='print("train", total / (i + 1))'
        ),
        "TL199",
    ),
}
