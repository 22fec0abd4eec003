"""Cases of patterns/generator_batches.py: a batch loop over a counted generator of the
script, created each epoch, fetched with next() inside the step."""

_GEN = """
def batches(n):
    for _ in range(n):
        x = torch.randn(4, 4)
        yield x, (x.sum(dim=1) > 0).long()


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
}
