"""Cases of patterns/bar_closes.py: a bar's `close()` in the `if` of a stop, before `break`."""

CONVERTS = {
    "closes_before_the_max_steps_breaks": (
        """
        from tqdm import tqdm, trange

        global_step = 0
        train_iterator = trange(3, desc="Epoch")
        for _ in train_iterator:
            epoch_iterator = tqdm(loader, desc="Iteration")
            for x, y in epoch_iterator:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                global_step += 1
                if global_step >= 5:
                    epoch_iterator.close()
                    break
            if global_step >= 5:
                train_iterator.close()
                break
        """,
        ["max_epochs=3", "max_steps=5", "trainer.fit(lit_model, loader)"],
        ["close()", "trange", "tqdm(", "break"],
    ),
    "close_in_an_else_of_the_epoch": (
        """
        from tqdm import trange

        epochs = trange(2)
        for epoch in epochs:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if epoch == 0:
                print("first epoch done")
            else:
                epochs.close()
                print("last epoch done")
        """,
        ['print("first epoch done")', 'print("last epoch done")', "max_epochs=2"],
        ["close()", "trange"],
    ),
}

UNCHANGED = {
    "epoch_bar_closed_alone_in_its_block": (
        """
        from tqdm import trange

        epochs = trange(2)
        for epoch in epochs:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if epoch == 1:
                epochs.close()
        """,
        "TL101",
    ),
    "bar_read_in_the_stop_test": (
        """
        from tqdm import tqdm

        for epoch in range(2):
            bar = tqdm(loader)
            for x, y in bar:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                if bar.n >= 1:
                    bar.close()
                    break
        """,
        "TL104",
    ),
}
