"""Cases of patterns/early_break.py: `break` after optimizer.step() ends the epoch."""

CONVERTS = {
    "break_after_step": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if i == 2:
                    break
        """,
        [
            "def on_train_epoch_start(self):\n        self.stop_epoch = False",
            "def on_train_batch_start(self, batch, batch_idx):\n"
            "        if self.stop_epoch:\n            return -1",
            "if batch_idx == 2:\n            self.stop_epoch = True",
        ],
        ["break"],
    ),
    "dry_run_flag_is_limit_train_batches": (
        """
        dry_run = True
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if i % 10 == 0:
                    print(loss.item())
                    if dry_run:
                        break
        """,
        [
            "max_epochs=2,\n    limit_train_batches=1 if dry_run else 1.0",
            "if batch_idx % 10 == 0:\n            print(loss.item())\n        self.log",
        ],
        ["break", "stop_epoch", "if dry_run:"],
    ),
    "unconditional_break_is_one_batch": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                break
        """,
        ["limit_train_batches=1)"],
        ["break", "stop_epoch"],
    ),
    "flag_the_loop_changes_stays_a_flag": (
        """
        config = {"dry_run": False}
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                config["dry_run"] = loss.item() < 0.5
                if config["dry_run"]:
                    break
        """,
        ["self.stop_epoch = True"],
        ["limit_train_batches"],
    ),
    "step_counter_is_max_steps": (
        """
        step = 0
        max_steps = 3
        for epoch in range(5):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= max_steps:
                    break
            if step >= max_steps:
                break
        """,
        ['L.Trainer(accelerator="cpu", devices=1, max_epochs=5, max_steps=max_steps)'],
        ["break", "stop_epoch", "should_stop", "step += 1"],
    ),
    "step_counter_read_after_the_loop_is_kept": (
        """
        step = 0
        for epoch in range(5):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step == 3:
                    break
            if step == 3:
                break
        print(step)
        """,
        ["max_steps=3)", "self.step += 1", "step = lit_model.step"],
        ["break", "should_stop"],
    ),
    "max_batches_is_limit_train_batches": (
        """
        max_batches = 2
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if i + 1 >= max_batches:
                    break
        """,
        ['accelerator="cpu", devices=1, max_epochs=2, limit_train_batches=max_batches'],
        ["break", "stop_epoch"],
    ),
    "max_batches_maybe_a_float_stays_a_flag": (
        """
        max_batches = 2.5
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if i >= max_batches - 1:
                    break
        """,
        ["self.stop_epoch = True"],
        ["limit_train_batches"],
    ),
    "guarded_step_past_the_limit_is_max_steps": (  # Hugging Face's run_glue
        """
        max_steps = 3
        global_step = 0
        for epoch in range(5):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                global_step += 1
                if max_steps > 0 and global_step > max_steps:
                    break
            if max_steps > 0 and global_step > max_steps:
                break
        """,
        ["max_steps=int(max_steps) + 1 if max_steps > 0 else -1,"],
        ["break", "stop_epoch", "global_step += 1"],
    ),
    # without the test repeated after the batch loop, each later epoch runs again up to the
    # `break` (one step once the limit is reached): an epoch-ending flag, not max_steps
    "guarded_step_without_the_epoch_test_ends_each_epoch": (
        """
        max_steps = -1
        global_step = 0
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                global_step += 1
                if max_steps > 0 and global_step >= max_steps:
                    break
        """,
        ["self.stop_epoch = True"],
        ["max_steps="],
    ),
    "guard_on_another_name_is_a_flag": (
        """
        max_steps, budget = 3, 4
        global_step = 0
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                global_step += 1
                if budget > 0 and global_step > max_steps:
                    break
        """,
        ["self.stop_epoch = True"],
        ["max_steps="],
    ),
    "flag_break_beside_a_scheduler_under_manual_accumulation": (  # the script steps it
        """
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.9**step)
        accumulation_steps = 3
        updates = 0
        for epoch in range(2):
            for step, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / accumulation_steps
                loss.backward()
                if (step + 1) % accumulation_steps == 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad()
                    updates += 1
                if updates > 1:
                    break
        """,
        ["self.stop_epoch = True", "self.lr_schedulers().step()"],
        ["break"],
    ),
}

UNCHANGED = {
    "break_before_step": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                if loss.item() < 0.1:
                    break
                loss.backward()
                optimizer.step()
        """,
        "TL107",
    ),
    "code_after_break_would_run": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if i == 3:
                    break
                print(loss.item())
        """,
        "TL107",
    ),
    "per_batch_scheduler_would_step_once_more": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                scheduler.step()
                if loss.item() < 0.5:
                    break
        """,
        "TL107",
    ),
    # the epoch Lightning ends early skips its validation; the script evaluated every epoch
    "loss_target_break_before_a_validation_pass": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
        for epoch in range(3):
            model.train()
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if loss.item() < 0.5:
                    break
            model.eval()
            with torch.no_grad():
                for x, y in val_loader:
                    print(criterion(model(x), y).item())
        """,
        "TL107",
    ),
}

# a hand counter from 0, one `cnt += 1` per batch, tested last (the quantization tutorials)
_COUNTED = """
max_batches = 2
for epoch in range(2):
    cnt = 0
    for x, y in loader:
        {increment}
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if cnt {compare} max_batches:
            break
"""
CONVERTS["hand_counter_break_is_limit_train_batches"] = (
    _COUNTED.format(increment="cnt += 1", compare=">="),
    ["limit_train_batches=max_batches", "self.cnt += 1"],
    ["break", "stop_epoch"],
)
# `>`: the script trains one batch more than the limit: no batch limit claimed, the flag
CONVERTS["hand_counter_past_the_limit_stays_a_flag"] = (
    _COUNTED.format(increment="cnt += 1", compare=">"),
    ["self.stop_epoch = True"],
    ["limit_train_batches"],
)
# a batch that may not count: no batch limit claimed
CONVERTS["hand_counter_counting_some_batches_stays_a_flag"] = (
    _COUNTED.format(increment="if y.sum() > 0:\n            cnt += 1", compare=">="),
    ["self.stop_epoch = True"],
    ["limit_train_batches"],
)
