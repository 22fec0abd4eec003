"""Cases of patterns/scheduler_every.py: a scheduler built before the loop, stepped under a
test on the batch counter after the optimizer -> configure_optimizers' frequency, or TL197."""

_SCHEDULER = "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)\n"

_STEP_LOOP = (
    _SCHEDULER
    + """x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
every = 4
for it in {numbers}:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    if {test}:
        scheduler.step()
"""
)

_BATCH_LOOP = (
    _SCHEDULER
    + """for epoch in range(2):
    for {index}, (x, y) in {batches}:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if {test}:
            scheduler.step()
"""
)


def _accumulated(test: str) -> str:
    """The batch loop with the optimizer stepped every 2 batches (the loss divided by 2)."""
    return (
        _BATCH_LOOP.format(index="i", batches="enumerate(loader)", test=test)
        .replace("loss = criterion(model(x), y)", "loss = criterion(model(x), y) / 2")
        .replace("        optimizer.zero_grad()\n", "", 1)
        .replace(
            "        optimizer.step()\n",
            "        if (i + 1) % 2 == 0:\n            optimizer.step()\n"
            "            optimizer.zero_grad()\n",
        )
    )


_FREQUENCY = '"frequency": 4'

_KEPT = (
    ["def on_train_batch_end(", "        self.scheduler.step()", "return self.optimizer"],
    ['"lr_scheduler"'],
)

CONVERTS = {
    "step_loop_next_counter": (
        _STEP_LOOP.format(numbers="range(20)", test="(it + 1) % every == 0"),
        [_FREQUENCY],
        ["scheduler.step()", "% every"],
    ),
    "step_loop_from_one": (
        _STEP_LOOP.format(numbers="range(1, 21)", test="it % 4 == 0"),
        [_FREQUENCY],
        ["scheduler.step()"],
    ),
    "batch_index_one_plus": (
        _BATCH_LOOP.format(index="i", batches="enumerate(loader)", test="(1 + i) % 4 == 0"),
        [_FREQUENCY],
        ["scheduler.step()"],
    ),
    "batch_index_from_one": (
        _BATCH_LOOP.format(index="step", batches="enumerate(loader, 1)", test="step % 4 == 0"),
        [_FREQUENCY],
        ["scheduler.step()"],
    ),
    # other tests: the `if` as written, after Lightning's optimizer step, on the script's
    # optimizer and scheduler (handed to the module: kept_optimizers.py)
    "step_loop_counter_from_zero": (
        _STEP_LOOP.format(numbers="range(20)", test="it % every == 0"),
        *_KEPT,
    ),
    "after_a_warmup": (
        _STEP_LOOP.format(numbers="range(20)", test="it >= 8 and (it + 1) % 4 == 0"),
        *_KEPT,
    ),
    # a count of its own over the epochs: Lightning's batch_idx starts again at each epoch
    "counter_of_the_script": (
        "step = 0\n"
        + _BATCH_LOOP.format(index="_", batches="enumerate(loader)", test="step % 4 == 0").replace(
            "        if step", "        step += 1\n        if step"
        ),
        *_KEPT,
    ),
    "counter_rebound_by_the_step": (
        _STEP_LOOP.format(numbers="range(20)", test="(it + 1) % 4 == 0").replace(
            "    optimizer.zero_grad()", "    it = it * 2\n    optimizer.zero_grad()"
        ),
        *_KEPT,
    ),
    # a log line beside the step: a frequency would step before it, the `if` is kept whole
    "with_a_log_line_on_the_batch_index": (
        _BATCH_LOOP.format(index="i", batches="enumerate(loader)", test="(i + 1) % 4 == 0").replace(
            "            scheduler.step()\n",
            "            scheduler.step()\n            print(i, scheduler.get_last_lr())\n",
        ),
        _KEPT[0] + ["            print(batch_idx, self.scheduler.get_last_lr())"],
        _KEPT[1],
    ),
    # Lightning's accumulation steps on every 2nd batch: every 4th is one of them
    "with_gradient_accumulation": (
        _accumulated("(i + 1) % 4 == 0"),
        [_FREQUENCY, "accumulate_grad_batches=2"],
        ["scheduler.step()"],
    ),
}

UNCHANGED = {
    # an optimizer call beside the scheduler's step: not a scheduler's `if` (zero_grad twice)
    "with_the_optimizer_zeroed_in_the_if": (
        _BATCH_LOOP.format(index="i", batches="enumerate(loader)", test="(i + 1) % 4 == 0").replace(
            "            scheduler.step()\n",
            "            scheduler.step()\n            optimizer.zero_grad()\n",
        ),
        "TL105",
    ),
    # Lightning steps the scheduler only on batches the optimizer steps on: not the 3rd
    "every_n_not_a_multiple_of_the_accumulation": (
        _accumulated("(i + 1) % 3 == 0"),
        "TL197",
    ),
    # Lightning steps its own scheduler right after the optimizer, before the kept `if`
    "kept_and_stepped_every_batch": (
        _STEP_LOOP.format(numbers="range(20)", test="it % 4 == 0").replace(
            "        scheduler.step()\n", "        scheduler.step()\n    scheduler.step()\n"
        ),
        "TL197",
    ),
}
