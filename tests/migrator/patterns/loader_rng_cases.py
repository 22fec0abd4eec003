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

CONVERTS = {
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
    # Lightning creates the pass's iterator before on_validation_epoch_start, where the
    # setup would run: the noise would take the iterator's seed
    "validation_setup_drawing_noise": (_VALIDATION.format(generator=""), "TL195"),
    # the setup peeks at the pass's own loader: one more iterator, made before the pass's
    "validation_setup_peeking_at_the_loader": (_PEEKED_VALIDATION, "TL195"),
}
