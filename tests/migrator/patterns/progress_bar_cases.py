"""Cases of patterns/progress_bar.py: a tqdm bar around the loader and its display calls."""

CONVERTS = {
    "bar_bound_before_the_loop": (
        """
        from tqdm import tqdm

        for epoch in range(2):
            bar = tqdm(loader, desc="train")
            for x, y in bar:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                bar.set_postfix(loss=loss.item())
        """,
        ["trainer.fit(lit_model, loader)", 'self.log("train_loss", loss, prog_bar=True)'],
        ["bar =", "bar.", "set_postfix", "tqdm"],
    ),
    "bar_in_the_loop_header": (
        """
        from tqdm.auto import tqdm

        for epoch in range(2):
            for x, y in tqdm(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["trainer.fit(lit_model, loader)"],
        ["tqdm(loader)"],
    ),
    # the rate after the group's scheduler step, shown on every batch: logged in the hook,
    # which Lightning calls after its own accumulated optimizer and scheduler steps
    "learning_rate_in_the_postfix_after_an_accumulated_step": (
        """
        from tqdm import tqdm

        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1 / (s + 1))
        for epoch in range(2):
            pbar = tqdm(loader)
            for i, (x, y) in enumerate(pbar):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                    scheduler.step()
                pbar.set_postfix(lr=f"{scheduler.get_last_lr()[0]:.2e}")
        """,
        [
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            '        self.log("lr", self.lr_schedulers().get_last_lr()[0], prog_bar=True)',
        ],
        ["pbar", "tqdm"],
    ),
    # `get_last_lr()` only reads: the display call goes, its rate logged after the step
    "learning_rate_from_the_scheduler_in_the_postfix": (
        """
        from tqdm import tqdm

        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1 / (s + 1))
        for epoch in range(2):
            pbar = tqdm(loader)
            for x, y in pbar:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                scheduler.step()
                pbar.set_postfix(lr=f"{scheduler.get_last_lr()[0]:.2e}")
        """,
        [
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            '        self.log("lr", self.lr_schedulers().get_last_lr()[0], prog_bar=True)',
        ],
        ["pbar", "tqdm"],
    ),
}

CONVERTS["bar_wrapping_the_whole_loop"] = (
    """
    from tqdm import tqdm

    with tqdm(total=2 * len(loader)) as pbar:
        for epoch in range(2):
            pbar.set_description(f"epoch {{epoch}}")
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                pbar.update(1)
    """,
    ["trainer.fit(lit_model, loader)", 'self.log("train_loss", loss)'],
    ["pbar", "tqdm", "with "],
)

# `write` is tqdm's classmethod: the same line, printed through the bar's class
CONVERTS["wrapping_bar_write_goes_to_its_class"] = (
    """
    from tqdm import tqdm

    with tqdm(total=2 * len(loader)) as pbar:
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                pbar.update(1)
                pbar.write(str(loss.item()))
    """,
    ["tqdm.write(str(loss.item()))"],
    ["pbar"],
)

UNCHANGED = {
    "bar_over_zipped_tensors": (
        """
        from tqdm import tqdm

        data = torch.randn(8, 4)
        for epoch in range(2):
            for x in tqdm(zip(data, data)):
                optimizer.zero_grad()
                loss = model(x[0]).sum()
                loss.backward()
                optimizer.step()
        """,
        "TL104",
    ),
    "bar_used_beyond_display_calls": (
        """
        from tqdm import tqdm

        with tqdm(total=2 * len(loader)) as pbar:
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    pbar.update(1)
                    print(pbar.n)
        """,
        "TL104",
    ),
    "bar_and_another_context_manager": (
        """
        from tqdm import tqdm

        with tqdm(total=2 * len(loader)) as pbar, open("log.txt", "w") as log:
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
        """,
        "TL103",
    ),
    "try_catching_more_than_ctrl_c": (
        """
        try:
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
        except (KeyboardInterrupt, RuntimeError):
            print("stopped")
        """,
        "TL103",
    ),
}

_POSTFIX = """
from tqdm import tqdm

for epoch in range(2):
    bar = tqdm(loader)
    for x, y in bar:
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, y)
        acc = (out.argmax(1) == y).float().mean().item()
        loss.backward()
        optimizer.step()
        bar.set_postfix({postfix})
"""

CONVERTS.update(
    {
        "postfix_values_logged_on_the_bar": (
            _POSTFIX.format(postfix='loss=f"{loss.item():.3f}", acc=f"{acc:.3f}"'),
            [
                'self.log("acc", acc, prog_bar=True)\n'
                '        self.log("train_loss", loss, prog_bar=True)'
            ],
            ["set_postfix"],
        ),
        "postfix_learning_rate_read_after_the_step": (
            _POSTFIX.format(postfix='lr=optimizer.param_groups[0]["lr"]'),
            [
                "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
                '        self.log("lr", self.optimizers().param_groups[0]["lr"], prog_bar=True)'
            ],
            ["set_postfix"],
        ),
        "postfix_dict_and_counters": (
            _POSTFIX.format(postfix='{"acc": acc}, epoch=epoch'),
            ['self.log("acc", acc, prog_bar=True)'],
            ['self.log("epoch"', "set_postfix"],
        ),
        "postfix_text_is_not_a_number": (
            _POSTFIX.format(postfix='acc=f"{100 * acc:.1f}%", note="warmup"'),
            [],
            ['self.log("acc"', 'self.log("note"', "set_postfix"],
        ),
    }
)

CONVERTS["postfix_kept_when_the_loop_rebinds_the_loss"] = (
    _POSTFIX.format(postfix="acc=acc, loss=loss").replace(
        "optimizer.step()\n", "optimizer.step()\n        loss = loss.item()\n"
    ),
    ['self.log("acc", acc, prog_bar=True)', 'self.log("train_loss", step_loss, prog_bar=True)'],
    ["set_postfix"],
)

# a bar bound before the loop and only counted (the Hugging Face course's full training loop)
_COUNTED = """
from tqdm.auto import tqdm

bar = tqdm(range(4))
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        bar.update(1)
bar.close()
{after}
"""

CONVERTS["bar_only_counting_the_steps_goes"] = (
    _COUNTED.format(after=""),
    ["trainer.fit(lit_model, loader)"],
    ["tqdm", "bar.update", "bar.close"],
)
# read after the loop: the script's bar stays, counted where it was
CONVERTS["bar_read_after_the_loop_stays"] = (
    _COUNTED.format(after="print(bar.n)"),
    ["bar = tqdm(range(4))", "self.bar.update(1)", "print(bar.n)"],
    [],
)

# a bar bound in the epoch right before the batch loop, over enumerate (Kaggle kernels):
# the loop reads the batch index through it, as written inline (patterns/bound_bar.py)
_BOUND = """
from tqdm import tqdm

for epoch in range(2):
    pbar = tqdm(enumerate(loader), total=len(loader), leave=False)
    pbar.set_description(f"epoch {{epoch}}")
    for i, (x, y) in pbar:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        pbar.set_postfix(loss=loss.item(), step=i)
{after}"""

CONVERTS["bar_over_enumerate_bound_before_the_loop"] = (
    _BOUND.format(after="    pbar.close()\n"),
    [
        "trainer.fit(lit_model, loader)",
        "def training_step(self, batch, batch_idx):\n        x, y = batch",
        'self.log("train_loss", loss, prog_bar=True)',
    ],
    ["pbar", "tqdm", 'self.log("step"'],
)
# `write` is tqdm's classmethod: the same line, printed through the bar's class
CONVERTS["bound_bar_write_goes_to_its_class"] = (
    _BOUND.format(after='    pbar.write(f"epoch {epoch} done")\n'),
    ["def on_train_epoch_end(self):", 'tqdm.write(f"epoch {epoch} done")'],
    ["pbar"],
)
# handed on as a function (Umar Jamil's `run_validation(..., lambda msg: batch_iterator.write(msg))`)
CONVERTS["bound_bar_write_handed_on_in_a_lambda"] = (
    _BOUND.format(after='    say = lambda msg: pbar.write(msg)\n    say(f"epoch {epoch} done")\n'),
    ["say = lambda msg: tqdm.write(msg)"],
    ["pbar"],
)
# a lambda of its own parameter named like the bar writes through that parameter
UNCHANGED["bound_bar_name_shadowed_by_a_lambda_parameter"] = (
    _BOUND.format(after='    say = lambda pbar: pbar.write("x")\n    say(pbar)\n'),
    "TL104",
)
CONVERTS["bound_bar_in_a_per_epoch_helper"] = (
    """
    from tqdm.auto import tqdm


    def train_one_epoch(model, loader, optimizer, epoch):
        model.train()
        running = 0.0
        pbar = tqdm(enumerate(loader), total=len(loader), desc=f"epoch {epoch}")
        for i, (x, y) in pbar:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item()
            pbar.set_postfix(loss=f"{loss.item():.4f}")
        pbar.close()
        return running / len(loader)


    for epoch in range(2):
        train_loss = train_one_epoch(model, loader, optimizer, epoch)
        print(epoch, train_loss)
    """,
    ["trainer.fit(lit_model, loader)", 'self.log("train_loss", loss, prog_bar=True)'],
    ["pbar", "tqdm", "train_one_epoch"],
)
UNCHANGED.update(
    {
        # what the bar is besides a display: refused, naming the use
        "bound_bar_read_in_the_loop": (
            _BOUND.format(after="").replace("step=i)", "step=i)\n        print(pbar.n)"),
            "TL104",
        ),
        "bound_bar_passed_on": (
            "def show(bar, value):\n    bar.set_postfix(loss=value)\n\n"
            + _BOUND.format(after="    show(pbar, loss.item())\n"),
            "TL104",
        ),
        "bound_bar_iterated_twice": (
            _BOUND.format(after="    for i, (x, y) in pbar:\n        print(i)\n"),
            "TL104",
        ),
        "bound_bar_read_after_the_epoch_loop": (_BOUND.format(after="print(pbar.n)\n"), "TL104"),
        "bound_bar_reused_for_validation": (
            _BOUND.format(
                after="    pbar = tqdm(loader)\n"
                "    with torch.no_grad():\n"
                "        for x, y in pbar:\n"
                "            print(criterion(model(x), y).item())\n"
            ),
            "TL104",
        ),
        "bound_bar_over_zipped_batches": (
            _BOUND.format(after="").replace("enumerate(loader)", "enumerate(zip(loader, loader))"),
            "TL104",
        ),
    }
)
# a display call nested in the batch loop's `if` (rank 0 only, every k batches): still only a
# display, dropped with its `if` when nothing else is in it
CONVERTS["bound_bar_postfix_under_a_rank_zero_test"] = (
    _BOUND.format(after="").replace(
        "        pbar.set_postfix(loss=loss.item(), step=i)\n",
        "        if is_master:\n            pbar.set_postfix(loss=f\"{loss.item():.4f}\")\n",
    ),
    ["trainer.fit(lit_model, loader)"],
    ["pbar", "tqdm", "if is_master"],
)
CONVERTS["bound_bar_postfix_in_an_if_with_other_code"] = (
    _BOUND.format(after="").replace(
        "        pbar.set_postfix(loss=loss.item(), step=i)\n",
        "        if i % 10 == 0:\n            pbar.set_postfix(loss=loss.item())\n"
        "            print(i, loss.item())\n",
    ),
    ["if batch_idx % 10 == 0:", "print(batch_idx, loss.item())"],
    ["pbar", "set_postfix"],
)
UNCHANGED.update(
    {
        # the test reads the bar, a nested call computes with it: not only a display
        "bound_bar_read_by_a_nested_test": (
            _BOUND.format(after="").replace(
                "        pbar.set_postfix(loss=loss.item(), step=i)\n",
                "        if pbar.n % 10 == 0:\n            pbar.set_postfix(loss=loss.item())\n",
            ),
            "TL104",
        ),
        "bound_bar_read_inside_a_nested_block": (
            _BOUND.format(after="").replace(
                "        pbar.set_postfix(loss=loss.item(), step=i)\n",
                "        if is_master:\n            print(pbar.n)\n",
            ),
            "TL104",
        ),
    }
)
