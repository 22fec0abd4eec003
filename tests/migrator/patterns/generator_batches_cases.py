"""Cases of patterns/generator_batches.py: a batch loop over a counted generator of the
script, created each epoch, fetched with next() inside the step."""

_GEN = """
def batches(n):
    for _ in range(n):
        x = torch.randn(4, 4)
        yield x, (x.sum(dim=1) > 0).long()


"""

CONVERTS = {
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
    # the count is a name the epoch's call could change (the loader is built before fit)
    "count_from_a_name_passed_each_epoch": (
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
        "TL104",
    ),
}
