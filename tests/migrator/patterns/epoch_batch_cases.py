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
}

UNCHANGED = {
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

# a name the epoch binds to a wrapper of the loader: TL104 at the binding (shapes/not_a_loader.py),
# not TL116 for the rebinding each epoch
UNCHANGED["loop_over_a_name_bound_to_a_loader_wrapper"] = (
    """
    def prefetch(batches):
        for batch in batches:
            yield batch


    for epoch in range(2):
        batches = prefetch(loader)
        for i, (x, y) in enumerate(batches):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
    "TL104",
)
