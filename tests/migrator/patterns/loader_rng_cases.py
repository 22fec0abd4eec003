"""Cases of patterns/loader_rng.py: random draws Lightning would reorder around the loader."""

_EPOCH = """
{before}
for epoch in range(2):
    {start}
    for x, y in {loader}:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
"""

_VALIDATION = """
val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))){generator})
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    noise = torch.randn(4)
    with torch.no_grad():
        for x, y in val_loader:
            print(criterion(model(x + noise), y).item())
"""

_PEEKED_VALIDATION = """
val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), shuffle=True)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    first, _ = next(iter(val_loader))
    with torch.no_grad():
        for x, y in val_loader:
            print(criterion(model(x - first), y).item())
"""

# a shuffled loader without workers, its batch size printed at each epoch start
_SIZE_PEEK = """
{before}
train = DataLoader(TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,))), batch_size=4{options})
for epoch in range(2):
    {start}
    print(epoch, b_sz)
    for x, y in train:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
"""


def _size_peek(options=", shuffle=True", start="b_sz = len(next(iter(train))[0])", before=""):
    return _SIZE_PEEK.format(options=options, start=start, before=before)


# a loader factory of the script, `{body}` building its loaders from `ds` and `g`
_FACTORY = """def make_loader(train):
    g = torch.Generator().manual_seed(1)
    ds = TensorDataset(torch.randn(16, 4, generator=g), torch.randint(0, 2, (16,), generator=g))
{body}


"""

CONVERTS = {
    # a factory's loaders shuffling with torch's generator, one with its own unshuffled:
    # no permutation drawn from a generator of the script's
    "factory_tuple_own_generator_only_unshuffled": (
        _EPOCH.format(
            before=_FACTORY.format(
                body="    return DataLoader(ds, batch_size=4, shuffle=True), "
                "DataLoader(ds, batch_size=4, generator=g)"
            )
            + "shuffled, held_out = make_loader(True)",
            start="pass",
            loader="shuffled",
        ),
        ["trainer.fit(lit_model, shuffled)"],
        [],
    ),
    # a loader with its own generator draws nothing from torch's when peeked at
    "batch_peeked_from_a_loader_with_its_own_generator": (
        _EPOCH.format(
            before="ordered = DataLoader(loader.dataset, batch_size=4, "
            "generator=torch.Generator().manual_seed(1))",
            start="images, labels = next(iter(ordered))",
            loader="loader",
        ),
        ["images, labels = next(iter(self.ordered))"],
        [],
    ),
    # iterating the optimizer's groups iterates no loader
    "rate_set_on_param_groups_at_each_epoch_start": (
        _EPOCH.format(
            before="",
            start='for g in optimizer.param_groups: g["lr"] = 0.1 / (epoch + 1)',
            loader="loader",
        ),
        ['g["lr"] = 0.1 / (epoch + 1)'],
        [],
    ),
    # numpy's and Python's generators feed no DataLoader
    "numpy_reseeded_each_epoch": (
        _EPOCH.format(before="import numpy as np", start="np.random.seed(epoch)", loader="loader"),
        [
            "def on_train_epoch_start(self):\n        epoch = self.current_epoch\n"
            "        np.random.seed(epoch)"
        ],
        [],
    ),
    # a peek at the batch size moves one base seed on Lightning (epoch 0): the training's
    # draws stay where they were (analysis/size_peeks.py)
    "batch_size_peeked_at_each_epoch_start_of_a_shuffled_loader": (
        _size_peek(),
        ["b_sz = len(next(iter(self.trainer.train_dataloader))[0])"],
        [],
    ),
    "batch_length_peeked_with_a_sequential_sampler": (
        _size_peek(
            options=", sampler=torch.utils.data.SequentialSampler(range(16))",
            start="b_sz = len(next(iter(train)))",
        ),
        ["b_sz = len(next(iter(self.trainer.train_dataloader)))"],
        [],
    ),
    "batch_size_peeked_at_an_unshuffled_tensor_dataset": (
        _size_peek(options=""),
        ["b_sz = len(next(iter(self.trainer.train_dataloader))[0])"],
        [],
    ),
    # the loader stands in a dict, or comes from a function returning a tuple
    "batch_size_peeked_at_a_loader_in_a_dict": (
        _size_peek(
            before="loaders = {'train': DataLoader(TensorDataset(torch.randn(16, 4), "
            "torch.randint(0, 2, (16,))), batch_size=4, shuffle=True)}",
            start="b_sz = len(next(iter(loaders['train']))[0])",
        ).replace("in train:", "in loaders['train']:"),
        ['b_sz = len(next(iter(self.loaders["train"]))[0])'],
        [],
    ),
    "batch_size_peeked_at_a_loader_returned_in_a_tuple": (
        _size_peek(
            before="def build():\n    dl = DataLoader(TensorDataset(torch.randn(16, 4), "
            "torch.randint(0, 2, (16,))), batch_size=4, shuffle=True)\n"
            "    return model, dl\n\n\nnet, dl = build()",
            start="b_sz = len(next(iter(dl))[0])",
        ).replace("in train:", "in dl:"),
        ["b_sz = len(next(iter(self.trainer.train_dataloader))[0])"],
        [],
    ),
    # a loader that keeps its order and draws its seed from its own generator
    "unshuffled_loader_with_its_own_generator_reseeding_the_global_one": (
        _EPOCH.format(
            before="ordered = DataLoader(loader.dataset, batch_size=4, "
            "generator=torch.Generator().manual_seed(1))",
            start="torch.manual_seed(epoch)",
            loader="ordered",
        ),
        ["torch.manual_seed(epoch)"],
        [],
    ),
    # the validation loader draws from its own generator: the setup's draws are the script's
    "validation_setup_drawing_beside_a_loader_with_its_own_generator": (
        _VALIDATION.format(generator=", generator=torch.Generator().manual_seed(1)"),
        ["self.noise = torch.randn(4)"],
        [],
    ),
}

UNCHANGED = {
    "global_seed_set_at_each_epoch_start": (
        _EPOCH.format(before="", start="torch.manual_seed(100 + epoch)", loader="loader"),
        "TL190",
    ),
    "epoch_start_helper_drawing_noise": (  # a function of the script that draws
        _EPOCH.format(
            before="def jitter():\n    return torch.randn(1).item()\n\n\ndef scale():\n"
            "    return 1.0 + jitter()\n",
            start="factor = scale()",
            loader="loader",
        ),
        "TL190",
    ),
    # a peek at a batch makes an iterator of the loader: it draws a seed from torch's generator
    "batch_peeked_at_each_epoch_start": (
        _EPOCH.format(before="", start="images, labels = next(iter(loader))", loader="loader"),
        "TL190",
    ),
    "batches_counted_by_iterating_at_each_epoch_start": (
        _EPOCH.format(before="", start="n = sum(1 for _ in loader)", loader="loader"),
        "TL190",
    ),
    # a function of the script given the loader, peeking at it
    "epoch_start_helper_showing_a_batch": (
        _EPOCH.format(
            before="def show_batch(dl):\n    x, y = next(iter(dl))\n    print(x.shape, y)\n",
            start="show_batch(loader)",
            loader="loader",
        ),
        "TL190",
    ),
    # size peeks whose moved draws something reads, or may: workers seeded from the base
    # seed, a collate function, a sampler of the script's own, a dataset that may be
    # iterable (Lightning fetches its first batch ahead), the batch itself read
    "batch_size_peeked_at_a_loader_with_workers": (
        _size_peek(options=", shuffle=True, num_workers=2"),
        "TL190",
    ),
    "batch_size_peeked_at_a_loader_with_a_collate_function": (
        _size_peek(options=", shuffle=True, collate_fn=lambda b: b"),
        "TL190",
    ),
    "batch_size_peeked_at_a_loader_with_a_sampler_of_its_own": (
        _size_peek(
            before="class Every(torch.utils.data.Sampler):\n    def __iter__(self):\n"
            "        return iter(torch.randperm(16).tolist())\n\n    def __len__(self):\n"
            "        return 16\n",
            options=", sampler=Every()",
        ),
        "TL190",
    ),
    "batch_size_peeked_at_a_loader_of_a_dataset_it_cannot_see": (
        _size_peek(
            before="from data import make_dataset",
            options=", shuffle=False",
        ).replace(
            "DataLoader(TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))",
            "DataLoader(make_dataset()",
        ),
        "TL190",
    ),
    "batch_size_peeked_at_a_batch_sampler_loader": (
        _size_peek(options=", batch_sampler=None, shuffle=True"),
        "TL190",
    ),
    "peeked_batch_read_beyond_its_size": (
        _size_peek(start="b_sz = next(iter(train))[0].sum().item()"),
        "TL190",
    ),
    "size_peek_beside_a_draw": (
        _size_peek(start="b_sz = len(next(iter(train))[0]) + torch.randint(2, ()).item()"),
        "TL190",
    ),
    "size_peek_through_a_function_of_the_script": (
        _size_peek(
            before="def size(dl):\n    return len(next(iter(dl))[0])\n",
            start="b_sz = size(train)",
        ),
        "TL190",
    ),
    "shuffled_loader_with_its_own_generator": (
        _EPOCH.format(
            before="shuffled = DataLoader(loader.dataset, batch_size=4, shuffle=True, "
            "generator=torch.Generator().manual_seed(1))",
            start="pass",
            loader="shuffled",
        ),
        "TL191",
    ),
    "random_sampler_with_its_own_generator": (
        _EPOCH.format(
            before="g = torch.Generator().manual_seed(1)\nshuffled = DataLoader(loader.dataset, "
            "batch_size=4, sampler=torch.utils.data.RandomSampler(loader.dataset, generator=g))",
            start="pass",
            loader="shuffled",
        ),
        "TL191",
    ),
    # the same loader built by a function of the script, its generator drawn from first
    "shuffled_loader_returned_by_a_function_of_the_script": (
        _EPOCH.format(
            before="def make_loader(seed):\n    g = torch.Generator().manual_seed(seed)\n"
            "    x = torch.randn(16, 4, generator=g)\n"
            "    return DataLoader(TensorDataset(x, x.sum(1) > 0), batch_size=4, shuffle=True, "
            "generator=g)\n\n\nshuffled = make_loader(1)",
            start="pass",
            loader="shuffled",
        ),
        "TL191",
    ),
    "shuffled_loader_bound_in_a_function_of_the_script": (
        _EPOCH.format(
            before="def make_loader():\n    dl = DataLoader(loader.dataset, batch_size=4, "
            "shuffle=True, generator=torch.Generator().manual_seed(5))\n    return dl\n\n\n"
            "shuffled = make_loader()",
            start="pass",
            loader="shuffled",
        ),
        "TL191",
    ),
    # a factory with two returns, the shuffled one with its own generator
    "shuffled_loader_one_of_two_returns_of_a_factory": (
        _EPOCH.format(
            before=_FACTORY.format(
                body="    if train:\n        return DataLoader(ds, batch_size=4, shuffle=True, "
                "generator=g)\n    return DataLoader(ds, batch_size=4)"
            )
            + "shuffled = make_loader(True)",
            start="pass",
            loader="shuffled",
        ),
        "TL191",
    ),
    # a method of the script's class builds it
    "shuffled_loader_built_by_a_method": (
        _EPOCH.format(
            before="class Data:\n    def __init__(self, seed):\n"
            "        self.g = torch.Generator().manual_seed(seed)\n\n"
            "    def train_loader(self):\n        return DataLoader(loader.dataset, batch_size=4, "
            "shuffle=True, generator=self.g)\n\n\ndata = Data(1)\nshuffled = data.train_loader()",
            start="pass",
            loader="shuffled",
        ),
        "TL191",
    ),
    # a factory returning (train, val): the train loader unpacked from the tuple
    "shuffled_loader_unpacked_from_a_factory_tuple": (
        _EPOCH.format(
            before=_FACTORY.format(
                body="    train = DataLoader(ds, batch_size=4, shuffle=True, generator=g)\n"
                "    return train, DataLoader(ds, batch_size=4)"
            )
            + "shuffled, held_out = make_loader(True)",
            start="pass",
            loader="shuffled",
        ),
        "TL191",
    ),
    # a factory returning a dict of loaders, the train loader read from it by key
    "shuffled_loader_read_from_a_factory_dict": (
        _EPOCH.format(
            before=_FACTORY.format(
                body='    return {"train": DataLoader(ds, batch_size=4, shuffle=True, '
                'generator=g), "val": DataLoader(ds, batch_size=4)}'
            )
            + 'loaders = make_loader(True)\nshuffled = loaders["train"]',
            start="pass",
            loader="shuffled",
        ),
        "TL191",
    ),
    # Lightning creates the pass's iterator before on_validation_epoch_start, where the
    # setup would run: the noise would take the iterator's seed
    "validation_setup_drawing_noise": (_VALIDATION.format(generator=""), "TL195"),
    # the setup peeks at the pass's own loader: one more iterator, made before the pass's
    "validation_setup_peeking_at_the_loader": (_PEEKED_VALIDATION, "TL195"),
}

# a validation loader shuffling with its own generator: each pass after the first would see
# its batches in another order (Lightning does not ask the sampler past the last batch, the
# script's `for` does: one more permutation drawn from the generator); TL191 at its binding
_VAL_OWN = """
g = torch.Generator().manual_seed(0)
{binding}
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    total = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            total += criterion(model(x), y).item()
    print(total)
"""
_VAL_DATA = "TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))"
UNCHANGED["validation_loader_shuffled_with_its_own_generator"] = (
    _VAL_OWN.format(
        binding=f"val_loader = DataLoader({_VAL_DATA}, batch_size=4, shuffle=True, generator=g)"
    ),
    "TL191",
)
UNCHANGED["validation_loader_from_a_factory_shuffled_with_its_own_generator"] = (
    _VAL_OWN.format(
        binding="def make_loader(shuffle):\n"
        f"    return DataLoader({_VAL_DATA}, batch_size=4, shuffle=shuffle, generator=g)\n\n\n"
        "val_loader = make_loader(True)"
    ),
    "TL191",
)
# not shuffled: its iterator draws one seed from the generator per pass, in both
CONVERTS["validation_loader_with_its_own_generator_not_shuffled"] = (
    _VAL_OWN.format(binding=f"val_loader = DataLoader({_VAL_DATA}, batch_size=4, generator=g)"),
    ["def validation_step("],
    [],
)
