"""Cases of patterns/bar_draws.py: a tqdm.auto bar's iter() of its loader, kept at its point."""

_STEP = """
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()"""

_VAL = """
        val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))"""

# the first epoch's draw, before `fit` creates that epoch's iterator
_BEFORE_FIT = "iter(loader)\ntrainer.fit(lit_model, loader"
# the next epochs' draws, at the end of on_train_epoch_start
_EPOCH_START = "if self.current_epoch > 0:\n            iter(self.trainer.train_dataloader)"

CONVERTS = {
    # `len(loader)` iterates nothing: the bar goes with its total
    "bar_total_from_the_loader_length": (
        f"""
        from tqdm import tqdm

        for epoch in range(2):
            for x, y in tqdm(loader, total=len(loader), desc=f"epoch {{epoch}}"):{_STEP}
        """,
        ["trainer.fit(lit_model, loader)"],
        ["tqdm(", "iter(loader)"],
    ),
    "auto_bar_in_the_loop_header": (
        f"""
        from tqdm.auto import tqdm

        for epoch in range(2):
            for x, y in tqdm(loader, desc=f"epoch {{epoch}}"):{_STEP}
        """,
        [_BEFORE_FIT, _EPOCH_START, "tqdm.auto's bar over `loader` called iter() on it"],
        ["tqdm(loader"],
    ),
    "auto_bar_bound_in_the_epoch": (
        f"""
        from tqdm.auto import tqdm

        for epoch in range(2):
            model.train()
            pbar = tqdm(loader, leave=False)
            for x, y in pbar:{_STEP}
                pbar.set_postfix(loss=loss.item())
        """,
        [_BEFORE_FIT, _EPOCH_START],
        ["pbar"],
    ),
    "enumerate_around_a_bound_auto_bar": (
        f"""
        from tqdm.auto import tqdm

        for epoch in range(2):
            pbar = tqdm(loader)
            for i, (x, y) in enumerate(pbar):{_STEP}
        """,
        [_BEFORE_FIT, _EPOCH_START],
        ["pbar"],
    ),
    "enumerate_around_an_auto_bar": (
        f"""
        from tqdm.auto import tqdm

        for epoch in range(2):
            for i, (x, y) in enumerate(tqdm(loader)):{_STEP}
        """,
        [_BEFORE_FIT, _EPOCH_START],
        [],
    ),
    # the module spelled out, and tqdm.asyncio's bar, which tqdm.auto's is
    "auto_bar_through_its_module": (
        f"""
        import tqdm.auto

        for epoch in range(2):
            for x, y in tqdm.auto.tqdm(loader):{_STEP}
        """,
        [_BEFORE_FIT, _EPOCH_START],
        [],
    ),
    "asyncio_bar": (
        f"""
        from tqdm.asyncio import tqdm

        for epoch in range(2):
            for x, y in tqdm(loader):{_STEP}
        """,
        [_BEFORE_FIT, _EPOCH_START],
        [],
    ),
    # in a per-epoch helper, inlined
    "auto_bar_in_a_train_helper": (
        """
        from tqdm.auto import tqdm


        def train_one_epoch(model, data, optimizer):
            model.train()
            for x, y in tqdm(data, leave=False):
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


        for epoch in range(2):
            train_one_epoch(model, loader, optimizer)
        """,
        [_BEFORE_FIT, _EPOCH_START],
        ["tqdm(data"],
    ),
    # a dict's entry: the same expression before `fit` as in it
    "auto_bar_over_a_keyed_loader": (
        f"""
        from tqdm.auto import tqdm

        loaders = {{"train": loader}}
        for epoch in range(2):
            for x, y in tqdm(loaders["train"]):{_STEP}
        """,
        ['iter(loaders["train"])\ntrainer.fit(lit_model, loaders["train"])', _EPOCH_START],
        [],
    ),
    "validation_bar": (
        _VAL
        + f"""
        from tqdm.auto import tqdm

        for epoch in range(2):
            model.train()
            for x, y in loader:{_STEP}
            model.eval()
            total = 0.0
            with torch.no_grad():
                for x, y in tqdm(val_loader):
                    total += criterion(model(x), y).item()
            print(total)
        """,
        [
            "def on_validation_model_zero_grad(self):\n"
            "        super().on_validation_model_zero_grad()\n"
            "        # tqdm.auto's bar over `val_loader` called iter() on it",
            "        iter(self.trainer.val_dataloaders)\n",
        ],
        ["iter(loader)", "iter(val_loader)", "current_epoch > 0"],
    ),
    # the first of two passes: the first validation dataloader's
    "bar_on_the_first_of_two_passes": (
        _VAL
        + f"""
        from tqdm.auto import tqdm

        ema = nn.Linear(4, 2)
        for epoch in range(2):
            for x, y in loader:{_STEP}
            correct = 0
            with torch.no_grad():
                for x, y in tqdm(val_loader):
                    correct += (model(x).argmax(1) == y).sum().item()
            ema_correct = 0
            with torch.no_grad():
                for x, y in val_loader:
                    ema_correct += (ema(x).argmax(1) == y).sum().item()
            print(correct, ema_correct)
        """,
        ["iter(self.trainer.val_dataloaders[0])", "[val_loader, val_loader]"],
        [],
    ),
    "test_bar": (
        _VAL
        + f"""
        from tqdm.auto import tqdm

        for epoch in range(2):
            for x, y in loader:{_STEP}
        model.eval()
        total = 0.0
        with torch.no_grad():
            for x, y in tqdm(val_loader):
                total += criterion(model(x), y).item()
        print(total)
        """,
        ["iter(val_loader)\ntrainer.test(lit_model, val_loader)"],
        ["iter(loader)"],
    ),
    # tqdm.tqdm (std) does not call iter() when built; nor does any bar over an iterator
    "std_bar_draws_nothing": (
        f"""
        from tqdm import tqdm

        for epoch in range(2):
            for x, y in tqdm(loader):{_STEP}
        """,
        ["trainer.fit(lit_model, loader)"],
        ["iter("],
    ),
    "auto_bar_over_enumerate": (
        f"""
        from tqdm.auto import tqdm

        for epoch in range(2):
            for i, (x, y) in tqdm(enumerate(loader), total=len(loader)):{_STEP}
        """,
        ["trainer.fit(lit_model, loader)"],
        ["iter("],
    ),
    # a generated loader over the script's numbers: iterating a range draws nothing
    "auto_bar_over_a_range_of_batches": (
        """
        from tqdm.auto import tqdm

        xs, ys = torch.randn(8, 4), torch.randint(0, 2, (8,))
        for epoch in range(2):
            for i in tqdm(range(0, 8, 4)):
                optimizer.zero_grad()
                loss = criterion(model(xs[i : i + 4]), ys[i : i + 4])
                loss.backward()
                optimizer.step()
        """,
        ["trainer.fit(lit_model, "],
        ["iter(", "current_epoch > 0"],
    ),
    # a bar around the whole loop iterated the loader once, before the first epoch
    "auto_bar_wrapping_the_loop": (
        f"""
        from tqdm.auto import tqdm

        with tqdm(loader) as pbar:
            for epoch in range(2):
                for x, y in loader:{_STEP.replace(chr(10), chr(10) + "    ")}
                    pbar.update(1)
        """,
        ["iter(loader)\ntrainer.fit(lit_model, loader)"],
        ["current_epoch > 0", "pbar"],
    ),
}

UNCHANGED = {
    # the bar's total iterates the loader (a DataLoader iterator draws a seed): dropped with it
    "bar_total_counted_by_iterating_the_loader": (
        f"""
        from tqdm import tqdm

        for epoch in range(2):
            for x, y in tqdm(loader, total=sum(1 for _ in loader)):{_STEP}
        """,
        "TL194",
    ),
    "bound_bar_total_of_the_listed_loader": (
        f"""
        from tqdm import tqdm

        for epoch in range(2):
            pbar = tqdm(loader, total=len(list(loader)))
            for x, y in pbar:{_STEP}
                pbar.set_postfix(loss=loss.item())
        """,
        "TL194",
    ),
    "validation_bar_total_of_the_listed_loader": (
        _VAL
        + f"""
        from tqdm import tqdm

        for epoch in range(2):
            for x, y in loader:{_STEP}
            correct = 0
            with torch.no_grad():
                for x, y in tqdm(val_loader, total=len(list(val_loader))):
                    correct += (model(x).argmax(1) == y).sum().item()
            print(correct)
        """,
        "TL194",
    ),
    # Lightning creates the second validation loader's iterator inside the pass
    "bar_on_the_second_of_two_passes": (
        _VAL
        + f"""
        from tqdm.auto import tqdm

        ema = nn.Linear(4, 2)
        for epoch in range(2):
            for x, y in loader:{_STEP}
            correct = 0
            with torch.no_grad():
                for x, y in val_loader:
                    correct += (model(x).argmax(1) == y).sum().item()
            ema_correct = 0
            with torch.no_grad():
                for x, y in tqdm(val_loader):
                    ema_correct += (ema(x).argmax(1) == y).sum().item()
            print(correct, ema_correct)
        """,
        "TL194",
    ),
    # `enumerate(loader)` made an iterator of the loader when the bar was built: dropped
    "bar_wrapping_the_loop_over_an_enumerated_loader": (
        f"""
        from tqdm import tqdm

        with tqdm(enumerate(loader)) as pbar:
            for epoch in range(2):
                for x, y in loader:{_STEP.replace(chr(10), chr(10) + "    ")}
                    pbar.update(1)
        """,
        "TL194",
    ),
}
