"""Cases of patterns/max_steps.py and shapes/step_budget.py: a step budget over a loader."""

CONVERTS = {
    "while_counter_below_the_budget": (
        """
        max_steps = 7
        step = 0
        while step < max_steps:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= max_steps:
                    break
        """,
        ["max_epochs=-1, max_steps=max_steps", "trainer.fit(lit_model, loader)"],
        ["while", "break", "step += 1"],
    ),
    "while_true_with_the_test_repeated_last": (
        """
        max_steps = 7
        step = 0
        epoch = 0
        while True:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= max_steps:
                    break
            epoch += 1
            if step >= max_steps:
                break
        print(epoch, step)
        """,
        [
            "max_epochs=-1, max_steps=max_steps",
            "def on_train_epoch_end(self):\n        self.epoch += 1\n",
            "step = lit_model.step",
        ],
        ["while", "break", "should_stop"],
    ),
    "itertools_count_epochs_with_the_test_repeated": (
        """
        import itertools

        step = 0
        for epoch in itertools.count():
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= 5:
                    break
            print("pass", epoch)
            if step >= 5:
                break
        """,
        ["max_epochs=-1, max_steps=5", "epoch = self.current_epoch"],
        ["itertools.count()", "break"],
    ),
    # code after the step reading the model moves to on_train_batch_end; the budget's
    # `break` after it is max_steps, which stops right after that hook
    "evaluation_every_n_steps_before_the_break": (
        """
        max_steps = 7
        step = 0
        while step < max_steps:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step % 3 == 0:
                    print(step, model.weight.sum().item())
                if step >= max_steps:
                    break
        """,
        [
            "max_epochs=-1, max_steps=max_steps",
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n        self.step += 1",
        ],
        ["break", "while"],
    ),
    "epoch_range_with_the_break_after_an_evaluation": (
        """
        max_steps = 7
        step = 0
        for epoch in range(4):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step % 3 == 0:
                    print(step, model.weight.sum().item())
                if step >= max_steps:
                    break
            if step >= max_steps:
                break
        """,
        ["max_epochs=4, max_steps=max_steps", "def on_train_batch_end"],
        ["break", "should_stop"],
    ),
    # before other epoch code the repeated test skips it on the last epoch: it stays, as
    # `should_stop` and `return` in on_train_epoch_end (epoch_stop.py)
    "epoch_test_before_epoch_code_stays_a_stop": (
        """
        max_steps = 7
        step = 0
        for epoch in range(4):
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
            print("epoch done", epoch)
        """,
        [
            "max_epochs=4, max_steps=max_steps",
            "if self.step >= self.trainer.max_steps:\n            self.trainer.should_stop = True\n"
            "            return\n",
        ],
        [],
    ),
    # a budget known only at run time may be below 1: `while step < limit` then trains
    # nothing, where Lightning's max_steps=-1 means no limit
    "while_budget_from_the_command_line": (
        """
        import argparse

        parser = argparse.ArgumentParser()
        parser.add_argument("--max-steps", type=int, default=100)
        args = parser.parse_args()
        step = 0
        while step < args.max_steps:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= args.max_steps:
                    break
        """,
        ["max_epochs=-1, max_steps=max(args.max_steps, 0)"],
        ["max_steps=args.max_steps", "while"],
    ),
    # `while True` tests after the step: a budget below 1 still trains one step
    "while_true_budget_from_a_config": (
        """
        config = {"max_steps": 100}
        step = 0
        while True:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= config["max_steps"]:
                    break
            if step >= config["max_steps"]:
                break
        """,
        ["max_epochs=-1", 'max_steps=max(config["max_steps"], 1)'],
        ["while"],
    ),
    "epoch_range_budget_from_the_command_line": (
        """
        import argparse

        parser = argparse.ArgumentParser()
        parser.add_argument("--max-steps", type=int, default=100)
        args = parser.parse_args()
        step = 0
        for epoch in range(3):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= args.max_steps:
                    break
            if step >= args.max_steps:
                break
        """,
        ["max_epochs=3, max_steps=max(args.max_steps, 1)"],
        ["break"],
    ),
    # `==` never meets a limit below 1: no limit
    "equal_test_budget_from_the_command_line": (
        """
        import argparse

        parser = argparse.ArgumentParser()
        parser.add_argument("--max-steps", type=int, default=100)
        args = parser.parse_args()
        step = 0
        for epoch in range(3):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step == args.max_steps:
                    break
            if step == args.max_steps:
                break
        """,
        ["max_steps=args.max_steps if args.max_steps > 0 else -1"],
        ["break"],
    ),
    "script_rebinding_max_spells_the_guard_out": (
        """
        import argparse

        parser = argparse.ArgumentParser()
        parser.add_argument("--max-steps", type=int, default=100)
        args = parser.parse_args()
        max = None
        step = 0
        while step < args.max_steps:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= args.max_steps:
                    break
        """,
        ["max_steps=args.max_steps if args.max_steps > 0 else 0"],
        ["max(args"],
    ),
    # without the test repeated after the batch loop, every later epoch runs one step up to
    # the `break` again: not max_steps, an epoch-ending break (early_break.py)
    "epoch_range_without_the_epoch_test_ends_each_epoch": (
        """
        step = 0
        for epoch in range(3):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= 1:
                    break
        """,
        ["max_epochs=3", "self.step >= 1"],
        ["max_steps="],
    ),
    # a known budget of 0 trains one step per epoch before the `break`: not max_steps=0
    "epoch_range_budget_of_zero_is_not_max_steps": (
        """
        max_steps = 0
        step = 0
        for epoch in range(3):
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
        ["max_epochs=3"],
        ["max_steps=max_steps"],
    ),
}

UNCHANGED = {
    "while_without_the_budget_break": (  # the last pass runs to the loader's end
        """
        step = 0
        while step < 10:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
        """,
        "TL102",
    ),
    "while_test_on_another_limit": (
        """
        step = 0
        while step < 12:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= 10:
                    break
        """,
        "TL102",
    ),
    "counter_also_advanced_in_the_epoch": (
        """
        step = 0
        while step < 10:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= 10:
                    break
            step += 1
        """,
        "TL102",
    ),
    "counter_advanced_before_the_step": (
        """
        step = 0
        while step < 10:
            for x, y in loader:
                step += 1
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if step >= 10:
                    break
        """,
        "TL102",
    ),
    "while_true_without_the_epoch_test": (  # each later pass would run one step: forever
        """
        step = 0
        while True:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= 10:
                    break
        """,
        "TL102",
    ),
    "while_on_a_metric": (
        """
        step = 0
        loss = torch.tensor(1.0)
        while loss.item() > 0.1:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL102",
    ),
    "itertools_count_without_the_epoch_test": (
        """
        import itertools

        step = 0
        for epoch in itertools.count():
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= 5:
                    break
        """,
        "TL102",
    ),
    "while_true_budget_below_one": (  # the script still trains one step
        """
        step = 0
        while True:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= 0:
                    break
            if step >= 0:
                break
        """,
        "TL102",
    ),
    "evaluation_pass_after_each_pass": (  # Lightning skips it on the epoch cut short
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
        step = 0
        while step < 5:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= 5:
                    break
            model.eval()
            with torch.no_grad():
                for x, y in val_loader:
                    print(criterion(model(x), y).item())
            model.train()
        """,
        "TL102",
    ),
    "budget_of_zero_steps": (
        """
        max_steps = 0
        step = 0
        while step < max_steps:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                step += 1
                if step >= max_steps:
                    break
        """,
        "TL102",
    ),
}
