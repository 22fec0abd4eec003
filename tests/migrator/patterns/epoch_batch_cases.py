"""Cases of shapes/epoch_batch.py: the epoch loop around the batch loop."""

_MANUAL_BATCHES = """
x_all, y_all = torch.randn(8, 4), torch.randint(0, 2, (8,))
batch_size = 4


def describe(n):
    print("batch size", n)


for epoch in range(2):
    {before}
    for i in range(0, {count}, batch_size):
        xb, yb = x_all[i : i + batch_size], y_all[i : i + batch_size]
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
"""

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
    # the DDP tutorial series' `range(self.epochs_run, max_epochs)` with `self.epochs_run = 0`
    # (no snapshot to resume from): the epochs count from 0, as the Trainer's do
    "range_from_a_name_bound_once_to_zero": (
        """
        def main(epochs):
            epochs_run = 0
            for epoch in range(epochs_run, epochs):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                print(epoch, loss.item())


        main(2)
        """,
        ["max_epochs=epochs)", "epoch = self.current_epoch\n"],
        ["epochs - epochs_run", "hparams"],
    ),
    # a start rebound by a function declaring it global: not the 0 it was bound to
    "range_from_a_zero_a_function_rebinds": (
        """
        start = 0


        def resume():
            global start
            start = 1


        resume()
        for epoch in range(start, 3):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            print(epoch, loss.item())
        """,
        ["max_epochs=3 - start", "epoch = self.current_epoch + start"],
        [],
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
    # a notebook's epoch bar bound in the header, its postfix showing the epoch's numbers:
    # the bar and its display calls go, the Trainer draws its own
    "epoch_loop_over_a_walrus_trange_with_its_postfix": (
        """
        from tqdm.auto import trange

        losses = []
        for epoch in (pbar := trange(2, desc="train")):
            total = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item()
            losses.append(total)
            pbar.set_postfix(loss=f"{losses[-1]:.4f}")
        """,
        ["max_epochs=2)", "self.losses.append(self.total)"],
        ["pbar", "trange", "set_postfix"],
    ),
    "epoch_loop_over_a_bound_trange_with_its_postfix": (
        """
        from tqdm import trange

        pbar = trange(2)
        for epoch in pbar:
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            if epoch % 2 == 0:
                pbar.set_description(f"epoch {epoch}")
        """,
        ["max_epochs=2)"],
        ["pbar", "trange", "set_description"],
    ),
    # episodes drawn by the step itself, counted by a bar: `trange(n, ...)` is
    # `tqdm(range(n))`, the bar's options dropped (the Trainer draws its own)
    "trange_batch_loop_counts_episodes": (
        """
        from tqdm import trange
        episodes = 3
        for epoch in range(2):
            for _ in trange(episodes, desc=f"epoch {epoch}", leave=False):
                xb, yb = torch.randn(4, 4), torch.randint(0, 2, (4,))
                optimizer.zero_grad()
                loss = criterion(model(xb), yb)
                loss.backward()
                optimizer.step()
        """,
        ["batch_indices = DataLoader(", "range(episodes)", "max_epochs=2"],
        ["trange", "for _ in"],
    ),
    # manual batching counted by a bar: `trange(0, n, batch_size)`
    "trange_batch_loop_over_manual_batches": (
        _MANUAL_BATCHES.replace("range(0, {count}", "trange(0, {count}").format(
            before="pass", count="len(x_all)"
        ).replace("x_all, y_all =", "from tqdm.auto import trange\nx_all, y_all ="),
        ["batch_indices = DataLoader(", "range(0, len(x_all), batch_size)"],
        ["trange"],
    ),
    # manual batching: `batch_size` is an int, which `describe(batch_size)` cannot change
    "range_batch_loop_reads_an_int_handed_to_a_function": (
        _MANUAL_BATCHES.format(before="describe(batch_size)", count="len(x_all)"),
        ["batch_indices = DataLoader(", "range(0, len(x_all), batch_size)"],
        ["for i in range("],
    ),
    # the count is rebound at the top of every epoch to the same value (the lengths of
    # tensors nothing changes): the numbers are built from the value itself
    "range_batch_loop_reads_a_count_the_epoch_rebinds_to_the_same_value": (
        _MANUAL_BATCHES.format(before="count = min(len(x_all), len(y_all))", count="count"),
        ["range(0, min(len(x_all), len(y_all)), batch_size)"],
        ["for i in range("],
    ),
    # DANN: the count of the shorter of two loaders, each read by next() in the step
    "range_batch_loop_reads_the_shorter_of_two_loaders_lengths": (
        """
        other = DataLoader(TensorDataset(torch.randn(12, 4), torch.randint(0, 2, (12,))), batch_size=4)
        for epoch in range(2):
            n_batches = min(len(loader), len(other))
            first, second = iter(loader), iter(other)
            for i in range(n_batches):
                x, y = next(first)
                x2, y2 = next(second)
                optimizer.zero_grad()
                loss = criterion(model(x), y) + criterion(model(x2), y2)
                loss.backward()
                optimizer.step()
        """,
        ["range(min(len(loader), len(other)))", "iter(self.loader), iter(self.other)"],
        [],
    ),
}

UNCHANGED = {
    "walrus_epoch_bar_read_after_the_loop": (
        """
        from tqdm import trange

        for epoch in (pbar := trange(2)):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        print(pbar.n)
        """,
        "TL101",
    ),
    # the postfix's argument draws a number: dropping the call would lose the draw
    "walrus_epoch_bar_postfix_computing_something": (
        """
        from tqdm import trange

        for epoch in (pbar := trange(2)):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            pbar.set_postfix(noise=torch.rand(1).item())
        """,
        "TL104",
    ),
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
    # the count is rebound every epoch to a value that reads the epoch
    "range_batch_loop_reads_a_count_the_epoch_rebinds_from_the_epoch": (
        _MANUAL_BATCHES.format(before="count = len(x_all) - 4 * epoch", count="count"),
        "TL104",
    ),
    # ... to the length of a tensor the epoch loop changes (the script's next epoch reads it)
    "range_batch_loop_reads_a_count_of_a_tensor_the_epoch_changes": (
        _MANUAL_BATCHES.format(
            before="count = len(x_all)\n    x_all = x_all[:4]", count="count"
        ),
        "TL104",
    ),
    # ... after the batch loop: the first epoch reads the count bound before the loop
    "range_batch_loop_reads_a_count_rebound_after_it": (
        """
        x_all, y_all = torch.randn(8, 4), torch.randint(0, 2, (8,))
        count = 4
        for epoch in range(2):
            for i in range(0, count, 4):
                optimizer.zero_grad()
                loss = criterion(model(x_all[i : i + 4]), y_all[i : i + 4])
                loss.backward()
                optimizer.step()
            count = min(len(x_all), len(y_all))
        """,
        "TL104",
    ),
    # ... by a call of the script (which could return anything)
    "range_batch_loop_reads_a_count_a_function_gives": (
        _MANUAL_BATCHES.format(before="count = describe(len(x_all)) or 8", count="count"),
        "TL104",
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

# the word-language-model loop written at top level: the range reads `train_data`, handed
# each step to `get_batch`, which reads slices of it and reshapes one (`.view(-1)`, a view,
# a method that changes no tensor): no call of the epoch changes it
_TOP_LEVEL_BPTT = """
train_data = torch.randint(0, 4, (13, 2))
bptt = 3


{helpers}


for epoch in range(2):
    {before}
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        optimizer.zero_grad()
        loss = criterion(model(data.float().repeat(1, 2)), targets[:2])
        loss.backward()
        optimizer.step()
"""
_GET_BATCH = """def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].view(-1)
    return data, target"""
CONVERTS["range_batch_loop_reads_a_tensor_a_helper_only_views_slices_of"] = (
    _TOP_LEVEL_BPTT.format(helpers=_GET_BATCH, before="model.train()"),
    ["range(0, train_data.size(0) - 1, bptt)", "get_batch(self.train_data, i)"],
    ["for batch, i in enumerate(range("],
)
# ... a helper that changes a slice of it in place changes it
UNCHANGED["range_batch_loop_reads_a_tensor_a_helper_changes_in_place"] = (
    _TOP_LEVEL_BPTT.format(
        helpers=_GET_BATCH.replace("    return", "    source[i : i + 1].clamp_(0, 2)\n    return"),
        before="model.train()",
    ),
    "TL104",
)
# ... a helper called by the epoch that rebinds it as a global
UNCHANGED["range_batch_loop_reads_a_tensor_a_called_helper_rebinds_globally"] = (
    _TOP_LEVEL_BPTT.format(
        helpers=_GET_BATCH
        + "\n\n\ndef trim():\n    global train_data\n    train_data = train_data[:-2]",
        before="trim()",
    ),
    "TL104",
)
# ... a `view` of the script's own class, which may do anything to its object
UNCHANGED["range_batch_loop_reads_an_object_whose_own_view_a_helper_calls"] = (
    _TOP_LEVEL_BPTT.format(
        helpers=_GET_BATCH
        + """


class Tokens:
    def __init__(self, t):
        self.t = t

    def size(self, dim):
        return self.t.size(dim)

    def __len__(self):
        return len(self.t)

    def __getitem__(self, key):
        return self

    def view(self, *shape):
        self.t = self.t[:-1]
        return self.t.view(*shape)""",
        before="model.train()",
    ).replace("torch.randint(0, 4, (13, 2))", "Tokens(torch.randint(0, 4, (13, 2)))"),
    "TL104",
)

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

# an episode's steps, `for t in itertools.count():` until `if done: break` (the DQN tutorial's):
# a fresh count each epoch, over a loader of step numbers ended by the break
_EPISODE_STEPS = """
import itertools

for episode in range(3):
    state = torch.randn(4)
    for t in itertools.count():
        optimizer.zero_grad()
        loss = model(state).pow(2).mean()
        loss.backward()
        optimizer.step()
        state = state * 0.5 + 1.0
        if state.sum().item() > 7.0:
            break
    print(episode, t)
"""

CONVERTS["episode_steps_until_their_break"] = (
    _EPISODE_STEPS,
    [
        "import sys",
        "batch_indices = DataLoader(\n    range(sys.maxsize), batch_size=None",
        "self.stop_epoch = True",
        "max_epochs=3",
    ],
    ["itertools.count", "break"],
)
CONVERTS["episode_steps_counted_from_one_to_a_limit"] = (
    _EPISODE_STEPS.replace("itertools.count():", "itertools.count(1):").replace(
        "            break\n", "            break\n        if t >= 5:\n            break\n"
    ),
    ["range(1, 6), batch_size=None", "self.stop_epoch = True"],
    ["itertools.count"],
)
# no `break` at all: the script's loop never ends
UNCHANGED["episode_steps_without_a_break"] = (
    _EPISODE_STEPS.replace(
        "        if state.sum().item() > 7.0:\n            break\n", ""
    ),
    "TL123",
)
# the count starts where the epoch loop says: numbers built once, before `fit`, would not
UNCHANGED["episode_steps_counted_from_an_epoch_value"] = (
    _EPISODE_STEPS.replace("itertools.count():", "itertools.count(offset):").replace(
        "    state = torch.randn(4)\n", "    state = torch.randn(4)\n    offset = episode * 10\n"
    ),
    "TL104",
)
