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
        ["trainer.fit(lit_model, loader)"],
        ["bar", "set_postfix"],
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
}
