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
}

CONVERTS["bar_wrapping_the_whole_loop"] = (
    """
    from tqdm import tqdm

    with tqdm(total=2 * len(loader)) as pbar:
        for epoch in range(2):
            pbar.set_description(f"epoch {epoch}")
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
                    pbar.write(str(loss.item()))
        """,
        "TL150",
    ),
    "other_context_manager": (
        """
        with open("log.txt", "w") as log:
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
