"""Cases of shapes/epoch_batch.py: the epoch loop around the batch loop."""

CONVERTS = {
    "epoch_range_start_read_from_a_local_of_the_function": (  # once: `args` undefined (TL150)
        """
        import argparse


        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--start-epoch", type=int, default=1)
            args = parser.parse_args([])
            net = nn.Linear(4, 2)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(args.start_epoch, 3):
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
                print(epoch, loss.item())


        main()
        """,
        [
            "epoch = self.current_epoch + self.args.start_epoch",
            "max_epochs=3 - args.start_epoch",
        ],
        [],
    ),
    "comment_above_an_interrupt_guard_stays_once": (  # once written twice above `try:`
        """
        # At any point you can hit Ctrl + C to break out of training early.
        try:
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
        except KeyboardInterrupt:
            print("Exiting from training early")
        """,
        ["# At any point you can hit Ctrl + C to break out of training early.\ntry:\n"],
        ["early.\n# At any point"],
    ),
    # `range(0, args.epochs)`: the epochs are `args.epochs`, not `args.epochs - 0`
    "range_from_zero_to_a_name": (
        """
        epochs = 2
        for epoch in range(0, epochs):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["max_epochs=epochs)"],
        ["epochs - 0"],
    ),
    # Hugging Face's older examples: the epoch loop over a trange bound just before it
    "epoch_loop_over_a_trange_bound_before_it": (
        """
        from tqdm import trange

        train_iterator = trange(0, 2, desc="Epoch", disable=False)
        for _ in train_iterator:
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                model.zero_grad()
        """,
        ["max_epochs=2)"],
        ["trange("],
    ),
    "epoch_loop_over_a_trange_with_keywords": (
        """
        from tqdm import trange

        for epoch in trange(2, desc="Epoch", leave=False):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        ["max_epochs=2)"],
        ["trange("],
    ),
}

UNCHANGED = {
    "epoch_bar_closed_after_the_loop": (
        """
        from tqdm import trange

        train_iterator = trange(2, desc="Epoch")
        for _ in train_iterator:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        train_iterator.close()
        """,
        "TL101",
    ),
    # (a loop around the epoch loop is a loop over training runs: shapes/runs.py)
    "outer_loop_over_a_list_around_the_batch_loop": (
        """
        for lr in [0.1, 0.01]:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL101",
    ),
}
