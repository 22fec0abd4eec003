"""Cases of patterns/generator_batches.py: a batch loop over a counted generator of the
script, created each epoch, fetched with next() inside the step; any other generator of the
script (patterns/generator_loader.py) given to the Trainer as a re-iterable calling it anew
each epoch, when reading it one batch ahead changes nothing."""

_GEN = """
def batches(n):
    for _ in range(n):
        x = torch.randn(4, 4)
        yield x, (x.sum(dim=1) > 0).long()


"""

# manual batching over tensors, the last batch partial: the count is the generator's own
_SLICES = """
import numpy as np

X = torch.randn(10, 4)
Y = torch.randint(0, 2, (10,))


def batch_iter(X, y, bs, shuffle=True):
    idx = np.random.permutation(len(X)) if shuffle else np.arange(len(X))
    for i in range(0, len(X), bs):
        yield X[idx[i : i + bs]], y[idx[i : i + bs]]


"""

_LOOP = """
for epoch in range(2):
    for x, y in batch_iter(X, Y, 4):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
"""

# the batch size is a parameter of the function holding the loop, handed each epoch to a
# function of the script (which could change an object it is given, not an int)
_TRAIN_FUNCTION = """
sizes_seen = []


def describe(n):
    sizes_seen.append(n)


def train(data, labels, epochs, bs):
    for epoch in range(epochs):
        describe(bs)
        for x, y in batch_iter(data, labels, bs):
            inputs, targets = x * 1.0, y * 1
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()


"""

CONVERTS = {
    # the count is an int bound once: the epoch's call `batches(steps_per_epoch)` cannot
    # change it, so the numbers are the same each epoch
    "count_from_an_int_passed_each_epoch": (
        _GEN
        + """
steps_per_epoch = 3
for epoch in range(2):
    for x, y in batches(steps_per_epoch):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
""",
        ["range(steps_per_epoch), batch_size=None, generator=torch.Generator()"],
        [],
    ),
    "generator_bound_each_epoch_enumerated": (
        _GEN
        + """
for epoch in range(2):
    data_iter = batches(3)
    for i, (x, y) in enumerate(data_iter):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
""",
        [
            "self.data_iter = batches(3)",
            "i = batch\n        x, y = next(self.data_iter)",
            "DataLoader(range(3), batch_size=None, generator=torch.Generator())",
        ],
        ["enumerate"],
    ),
    "generator_called_by_the_loop": (
        _GEN
        + """
for epoch in range(2):
    for x, y in batches(3):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
""",
        [
            "self.batches_2 = batches(3)",
            "batch_number = batch\n        x, y = next(self.batches_2)",
            "DataLoader(range(3), batch_size=None",
        ],
        [],
    ),
    # every call gives the batch size an int, which no call can change
    "generator_argument_a_parameter_every_call_gives_an_int": (
        _SLICES + _TRAIN_FUNCTION + "batch_size = 4\ntrain(X, Y, 2, bs=batch_size)\n",
        ["EpochBatches(batch_iter, data, labels, bs)"],
        ["for x, y in batch_iter("],
    ),
    # numpy's global generator shuffles, and nothing else of the epoch draws from it
    "generator_read_ahead_given_to_the_trainer": (
        _SLICES + _LOOP,
        [
            "class EpochBatches:",
            "return self.function(*self.args, **self.kwargs)",
            "train_batches = EpochBatches(batch_iter, X, Y, 4)",
            "trainer.fit(lit_model, train_batches)",
        ],
        ["batch_iter(X, Y, 4):"],
    ),
    "generator_bound_in_the_epoch_enumerated_with_a_validation_pass": (
        _SLICES
        + """
for epoch in range(2):
    batches = batch_iter(X, Y, 4)
    for i, (x, y) in enumerate(batches):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        for x, y in batch_iter(X, Y, 5, shuffle=False):
            print(criterion(model(x), y).item())
    model.train()
""",
        [
            "train_batches = EpochBatches(batch_iter, X, Y, 4)",
            "val_batches = EpochBatches(batch_iter, X, Y, 5, shuffle=False)",
            "trainer.fit(lit_model, train_batches, val_batches)",
            "def validation_step(self, batch, batch_idx):",
        ],
        ["batches = batch_iter(X, Y, 4)"],
    ),
    # its own numpy generator, made in its body: the step's draws from numpy's global one
    # do not meet it
    "generator_with_its_own_numpy_generator": (
        _SLICES.replace(
            "idx = np.random.permutation(len(X)) if shuffle else np.arange(len(X))",
            "rng = np.random.default_rng(0)\n    idx = rng.permutation(len(X))",
        )
        + _LOOP.replace(
            "        loss.backward()\n",
            "        loss = loss * float(np.random.rand() > 0.1)\n        loss.backward()\n",
        ),
        ["train_batches = EpochBatches(batch_iter, X, Y, 4)"],
        [],
    ),
}

UNCHANGED = {
    # how many batches it yields is not known before it runs
    "generator_stopping_on_a_condition": (
        """
def batches():
    while True:
        x = torch.randn(4, 4)
        if x.sum() > 3:
            return
        yield x, (x.sum(dim=1) > 0).long()


for epoch in range(2):
    for x, y in batches():
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
""",
        "TL104",
    ),
    # code after the last yield runs when the loop asks once more: it would be lost
    "generator_with_code_after_its_yield": (
        _GEN.replace(
            "yield x, (x.sum(dim=1) > 0).long()\n",
            "yield x, (x.sum(dim=1) > 0).long()\n        torch.randn(1)\n",
        )
        + """
for epoch in range(2):
    for x, y in batches(3):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
""",
        "TL104",
    ),
    # the count is a name a function the epoch calls rebinds (`global`): the loader of the
    # numbers is built once, before fit
    "count_rebound_by_a_function_each_epoch": (
        _GEN
        + """
def lengthen():
    global steps_per_epoch
    steps_per_epoch += 1


steps_per_epoch = 3
for epoch in range(2):
    lengthen()
    for x, y in batches(steps_per_epoch):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
""",
        "TL104",
    ),
    # ... but one call gives it an object (a function of unknown code could change it)
    "generator_argument_a_parameter_a_call_gives_an_object": (
        _SLICES + _TRAIN_FUNCTION + "sizes = [4]\ntrain(X, Y, 2, bs=4)\ntrain(X, Y, 2, bs=sizes)\n",
        "TL104",
    ),
    # a draw from torch's generator read one batch ahead would come before the step's
    # dropout (the count is not known: generator_batches' next() form does not apply)
    "generator_drawing_from_torch": (
        _SLICES.replace(
            "idx = np.random.permutation(len(X)) if shuffle else np.arange(len(X))",
            "idx = torch.randperm(len(X))",
        )
        + _LOOP,
        "TL104",
    ),
    # the step draws from numpy's generator too: a batch read ahead would reorder the draws
    "generator_and_step_sharing_numpy_generator": (
        _SLICES
        + _LOOP.replace(
            "        loss.backward()\n",
            "        loss = loss * float(np.random.rand() > 0.1)\n        loss.backward()\n",
        ),
        "TL104",
    ),
    # the step changes what the generator reads: the next batch is made before the change
    "generator_reading_what_the_step_changes": (
        _SLICES.replace("yield X[idx[i : i + bs]]", "yield scale * X[idx[i : i + bs]]")
        + "scale = 1.0\n"
        + _LOOP.replace(
            "        optimizer.step()\n", "        optimizer.step()\n        scale *= 0.5\n"
        ),
        "TL104",
    ),
    # the generator prints: read ahead, its line would come before the step's
    "generator_printing": (
        _SLICES.replace("    for i in range", "    print('shuffled')\n    for i in range") + _LOOP,
        "TL104",
    ),
    # the step changes its batch in place (a view of the generator's tensor)
    "step_changing_its_batch_in_place": (
        _SLICES
        + _LOOP.replace(
            "        optimizer.zero_grad()\n", "        optimizer.zero_grad()\n        x.mul_(2)\n"
        ),
        "TL104",
    ),
    # a generator over a DataLoader: its iterator draws from torch's generator
    "generator_over_a_loader": (
        """
def batches(data):
    for x, y in data:
        yield x * 2, y


for epoch in range(2):
    for x, y in batches(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
""",
        "TL104",
    ),
    # DataParallel becomes DDP: Lightning shards a DataLoader, not the script's generator
    "generator_under_data_parallel": (
        _SLICES
        + _LOOP.replace(
            "for epoch",
            'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
            "model = nn.DataParallel(model).to(device)\n"
            "for epoch",
        ).replace("model(x), y)", "model(x.to(device)), y.to(device))"),
        "TL104",
    ),
}
