"""Cases of patterns/eval_ranges.py: evaluation passes over range(...) numbers."""

_EPOCH = """
val_data = torch.randn(9, 4)
step = 2
for epoch in range(2):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    {evaluation}
"""

_PASS = """model.eval()
    total = 0.0
    with torch.no_grad():
        for i in range({numbers}):
            total += model(val_data[i : i + step]).sum().item()
    print(total / len(val_data))"""

_CONFIG = """
class Config:
    step = 2


cfg = Config()


"""

CONVERTS = {
    "range_pass_over_a_generated_loader": (
        _EPOCH.format(evaluation=_PASS.format(numbers="0, val_data.size(0) - 1, step")),
        [
            "val_indices = DataLoader(\n"
            "    range(0, val_data.size(0) - 1, step), batch_size=None, generator=torch.Generator()\n)",
            "def validation_step(self, batch, batch_idx):\n        i = batch\n",
            "trainer.fit(lit_model, loader, val_indices)",
        ],
        ["for i in range("],
    ),
    # a range loop with no .eval() before it runs in train mode: epoch-end code, as before
    "range_loop_without_eval_stays_epoch_code": (
        _EPOCH.format(
            evaluation="""with torch.no_grad():
        for i in range(0, val_data.size(0) - 1, step):
            print(model(val_data[i : i + step]).sum().item())"""
        ),
        [
            "def on_train_epoch_end(self):",
            "for i in range(0, self.val_data.size(0) - 1, self.hparams.step)",
        ],
        ["val_indices", "validation_step"],
    ),
    # no call changes an int: `step` handed to a function of the script each epoch
    "range_reads_an_int_handed_to_a_function": (
        "def scaled(n):\n    return n * 2\n\n\n"
        + _EPOCH.format(
            evaluation="width = scaled(step)\n    "
            + _PASS.format(numbers="0, val_data.size(0) - 1, step")
        ),
        ["val_indices = DataLoader(", "trainer.fit(lit_model, loader, val_indices)"],
        ["for i in range("],
    ),
    # `report` only reads the attributes of the object it is handed
    "range_reads_a_config_a_function_only_reads": (
        _CONFIG
        + "def report(cfg, value):\n    print(cfg.step, value)\n\n\n"
        + _EPOCH.format(
            evaluation="report(cfg, 1)\n    "
            + _PASS.format(numbers="0, val_data.size(0) - 1, cfg.step")
        ),
        ["val_indices = DataLoader(", "range(0, val_data.size(0) - 1, cfg.step)"],
        ["for i in range("],
    ),
}

UNCHANGED = {
    # a range over a list's length, the list grown by the epoch: the range built once before
    # `fit` would keep its first length
    "range_over_the_length_of_a_list_the_epoch_grows": (
        "held_out = [torch.randn(2, 4)]\n"
        + _EPOCH.format(
            evaluation="held_out.append(val_data[epoch : epoch + 2])\n    "
            + _PASS.format(numbers="0, len(held_out)")
        ),
        "TL192",
    ),
    # a list is not immutable: the function may append to it
    "range_reads_a_list_handed_to_a_function": (
        "steps = [2]\n"
        + _EPOCH.format(
            evaluation="grow(steps)\n    "
            + _PASS.format(numbers="0, val_data.size(0) - 1, steps[0]")
        ),
        "TL192",
    ),
    # an int some function declares `global` may be rebound by any call of it
    "range_reads_an_int_a_function_declares_global": (
        "def bump():\n    global step\n    step += 1\n\n\n"
        + _EPOCH.format(
            evaluation="bump()\n    " + _PASS.format(numbers="0, val_data.size(0) - 1, step")
        ),
        "TL192",
    ),
    # the function stores into the object it is handed
    "range_reads_a_config_a_function_changes": (
        _CONFIG
        + "def bump(cfg):\n    cfg.step += 1\n\n\n"
        + _EPOCH.format(
            evaluation="bump(cfg)\n    " + _PASS.format(numbers="0, val_data.size(0) - 1, cfg.step")
        ),
        "TL192",
    ),
    # ... or hands it on to code of unknown effect
    "range_reads_a_config_a_function_hands_on": (
        _CONFIG
        + "def report(cfg):\n    log_config(cfg)\n\n\n"
        + _EPOCH.format(
            evaluation="report(cfg)\n    "
            + _PASS.format(numbers="0, val_data.size(0) - 1, cfg.step")
        ),
        "TL192",
    ),
    "range_reads_a_tensor_the_epoch_rebinds": (
        _EPOCH.format(
            evaluation="val_data = val_data[1:]\n    "
            + _PASS.format(numbers="0, val_data.size(0) - 1, step")
        ),
        "TL192",
    ),
    "range_reads_a_size_bound_in_the_epoch": (
        _EPOCH.format(
            evaluation="n = val_data.size(0) - 1\n    " + _PASS.format(numbers="0, n, step")
        ),
        "TL192",
    ),
    "range_reads_a_tensor_handed_to_a_function": (
        _EPOCH.format(
            evaluation="shuffle_rows(val_data)\n    "
            + _PASS.format(numbers="0, int(val_data.sum().item()), step")
        ),
        "TL192",
    ),
    "range_reads_a_tensor_reshaped_in_place": (
        _EPOCH.format(
            evaluation="val_data.resize_(8, 4)\n    "
            + _PASS.format(numbers="0, val_data.size(0) - 1, step")
        ),
        "TL192",
    ),
}
