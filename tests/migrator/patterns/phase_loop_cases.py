"""Cases of patterns/phase_loop.py: train/val phase loops unrolled into a training pass and an
evaluation pass."""

_LOADERS = """
val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
loaders = {"train": loader, "val": val_loader}
"""

_TUTORIAL = _LOADERS + """
best = 0.0
for epoch in range(2):
    for phase in PHASES:
        MODE
        running = 0.0
        for x, y in loaders[phase]:
            optimizer.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                loss = criterion(model(x), y)
                if phase == "train":
                    loss.backward()
                    optimizer.step()
            running += loss.item()
        AFTER
"""


def _tutorial(phases='["train", "val"]', mode='model.train(phase == "train")', after=""):
    after = after or 'print(f"{phase}: {running:.3f}")'
    return _TUTORIAL.replace("PHASES", phases).replace("MODE", mode).replace("AFTER", after)

_SAVE_THEN_VALIDATE = _LOADERS + """
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    SAVE
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            total += criterion(model(x), y).item()
    print("val", total)
    model.train()
"""

# the transfer-learning tutorial without a phase loop: both passes reuse `total`
_SPLIT = _LOADERS + """
for epoch in range(2):
    model.train()
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    print("train", total)
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            total += criterion(model(x), y).item()
    print("val", total)
"""


CONVERTS = {
    "literal_list_of_phases": (
        _tutorial(),
        [
            "def validation_step(self, batch, batch_idx):\n        x, y = batch\n"
            "        loss = self.criterion(self(x), y)\n        self.val_running += loss.item()",
            'print(f"train: {self.train_running:.3f}")',
            'print(f"val: {self.val_running:.3f}")',
            'trainer.fit(lit_model, loaders["train"], loaders["val"])',
        ],
        ["phase", "set_grad_enabled", "zero_grad"],
    ),
    "if_else_mode_switch_and_tuple_of_phases": (
        _tutorial(
            phases='("train", "valid")',
            mode='if phase == "train":\n            model.train()\n        else:\n'
            "            model.eval()",
        ).replace('"val"', '"valid"'),
        ['print(f"valid: {self.valid_running:.3f}")', 'loaders["valid"]'],
        ["phase", "model.eval()"],
    ),
    "phases_bound_once_before_the_loop": (
        _tutorial(phases="phases").replace("best = 0.0", 'best = 0.0\nphases = ["train", "val"]'),
        ["def validation_step(self, batch, batch_idx):"],
        ["phases", "phase =="],
    ),
    "best_value_carried_back_after_fit": (
        _tutorial(after='if phase == "val" and running > best:\n            best = running')
        + "print(best)\n",
        ["if self.val_running > self.best:", "best = lit_model.best"],
        ["phase"],
    ),
    "format_field_with_a_spec": (
        _tutorial(after='print(f"{phase:>6} {running:.2f}")'),
        ['print(f" train {self.train_running:.2f}")', 'print(f"   val {self.val_running:.2f}")'],
        ["phase"],
    ),
    "loader_chosen_per_phase": (
        _tutorial().replace(
            "        for x, y in loaders[phase]:",
            '        data = loader if phase == "train" else val_loader\n'
            "        for x, y in data:",
        ),
        ["trainer.fit(lit_model, loader, val_loader)"],
        ["data =", "in data", "phase"],
    ),
    "flag_set_from_the_phase": (
        _tutorial(mode='is_train = phase == "train"\n        model.train(is_train)')
        .replace('set_grad_enabled(phase == "train")', "set_grad_enabled(is_train)")
        .replace('if phase == "train":', "if is_train:"),
        ["def validation_step(self, batch, batch_idx):", 'print(f"val: {self.val_running:.3f}")'],
        ["is_train", "set_grad_enabled"],
    ),
}

# a state dict handed straight to torch.save or into a checkpoint dict only reads the model
CONVERTS["model_saved_before_the_validation_pass"] = (
    _SAVE_THEN_VALIDATE.replace("SAVE", 'torch.save(model.state_dict(), "last.pt")'),
    ['def on_train_epoch_end(self):\n        torch.save(self.model.state_dict(), "last.pt")'],
    [],
)
CONVERTS["checkpoint_dict_saved_before_the_validation_pass"] = (
    _SAVE_THEN_VALIDATE.replace(
        "SAVE",
        'state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}\n'
        '    torch.save(state, "last.pt")',
    ),
    ['"model": self.model.state_dict()'],
    [],
)

# the validation pass's copy of the accumulator gets a name of its own, as a phase loop's does
CONVERTS["split_accumulator_renamed_for_validation"] = (
    _SPLIT,
    [
        "def on_validation_epoch_start(self):\n        self.val_total = 0.0",
        'print("train", self.total)\n        print("val", self.val_total)',
    ],
    [],
)

# a batch peeked at after the pass: its iterator comes after the pass's, as in the script
CONVERTS["batch_peeked_after_the_validation_pass"] = (
    _SAVE_THEN_VALIDATE.replace("SAVE", "").replace(
        '    print("val", total)\n',
        '    print("val", total)\n    images, labels = next(iter(val_loader))\n    print(labels)\n',
    ),
    ["images, labels = next(iter(self.trainer.val_dataloaders))"],
    [],
)

UNCHANGED = {
    # a peek at a batch before the pass makes an iterator of the loader, which draws a seed
    # from torch's generator: after the pass (on_train_epoch_end), it would take the pass's
    "batch_peeked_before_the_validation_pass": (
        _SAVE_THEN_VALIDATE.replace(
            "SAVE", "images, labels = next(iter(val_loader))\n    print(labels)"
        ),
        "TL177",
    ),
    "batches_counted_by_iterating_before_the_validation_pass": (
        _SAVE_THEN_VALIDATE.replace("SAVE", "print(len(list(val_loader)))"),
        "TL177",
    ),
    # the training phase's epoch code counts its loader's batches by iterating it
    "phase_code_iterating_its_loader": (
        _tutorial(after='print(f"{phase}: {running:.3f}", sum(1 for _ in loaders[phase]))'),
        "TL177",
    ),
    # bound to a name, the state dict's tensors are the module's own: changing them would
    # change the model the pass reads
    "state_dict_bound_before_the_validation_pass": (
        _SAVE_THEN_VALIDATE.replace(
            "SAVE", "weights = model.state_dict()\n    print(len(weights))"
        ),
        "TL177",
    ),
    "evaluation_phase_first": (_tutorial(phases='["val", "train"]'), "TL175"),
    # which phases run depends on a flag (Sentence-VAE's `splits`): refused at its binding
    "phases_chosen_at_run_time": (
        "import sys\nsplits = ['train', 'val'] + (['test'] if '--test' in sys.argv else [])\n"
        + _tutorial(phases="splits"),
        "TL176",
    ),
    # the loaders' dict must be certain as for a loop over `loaders["train"]` (keyed_loaders)
    "loaders_dict_changed_after_training": (
        _tutorial() + 'loaders["test"] = val_loader\n',
        "TL176",
    ),
    "three_phases": (
        _tutorial(phases='["train", "val", "test"]').replace(
            'loaders = {"train": loader, "val": val_loader}',
            'loaders = {"train": loader, "val": val_loader, "test": val_loader}',
        ),
        "TL175",
    ),
    "grad_mode_not_decided_by_the_phase": (
        _tutorial().replace('set_grad_enabled(phase == "train")', "set_grad_enabled(epoch > 0)"),
        "TL176",
    ),
    "phase_read_after_the_phase_loop": (
        _tutorial().rstrip("\n") + "\n    print(phase)\n",
        "TL176",
    ),
    "loaders_changed_by_the_epoch_loop": (
        _tutorial().rstrip("\n") + '\n    loaders["val"] = loader\n',
        "TL176",
    ),
    "accumulator_shared_by_both_phases": (
        _tutorial(after="print(phase, sum(seen))")
        .replace("best = 0.0", "best = 0.0\nseen = []")
        .replace("running += loss.item()", "seen.append(loss.item())"),
        "TL177",
    ),
    "training_epoch_code_calls_a_script_function": (
        "def report(value):\n    print(value)\n\n\n"
        + _tutorial(after='if phase == "train":\n            report(running)'),
        "TL177",
    ),
    "evaluation_phase_calls_backward": (
        _tutorial().replace(
            '                if phase == "train":\n                    loss.backward()\n'
            "                    optimizer.step()",
            '                loss.backward()\n                if phase == "train":\n'
            "                    optimizer.step()",
        ),
        "TL178",
    ),
    "evaluation_phase_reads_gradients": (
        _tutorial(after="print(phase, model.weight.grad)"),
        "TL145",
    ),
    # the shared accumulator's validation copy would be renamed, but what reads it after
    # training (or a function of the script, reading the module's global) must see the
    # validation value: still shared
    "split_accumulator_read_after_training": (_SPLIT + 'print("last", total)\n', "TL177"),
    "split_accumulator_read_by_a_function": (
        "def report():\n    print(total)\n\n\n" + _SPLIT,
        "TL177",
    ),
    # the validation copy carried over from the previous epoch: the training pass reads it
    "split_accumulator_carried_into_training": (
        _SPLIT.replace("    total = 0.0\n    for x, y in loader:", "    for x, y in loader:"),
        "TL177",
    ),
}
