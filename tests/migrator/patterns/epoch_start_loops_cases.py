"""Cases of patterns/epoch_start_loops.py: a loop before the batch loop that draws no data."""

_METERS = """
class Meter:
    def __init__(self):
        self.values = []

    def reset(self):
        self.values = []

    def __call__(self, loss):
        self.values.append(loss.item())


meters = [Meter(), Meter()]
for epoch in range(2):
    {before}
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        for meter in meters:
            meter(loss)
    print(sum(meters[0].values))
"""

CONVERTS = {
    # the siamese-triplet trainer's `for metric in metrics: metric.reset()`: a list of the
    # script's plain objects, no loader, no optimizer, no model -> the epoch's start
    "metrics_reset_at_the_epoch_start": (
        _METERS.format(before="for meter in meters:\n        meter.reset()"),
        [
            "def on_train_epoch_start(self):\n        for meter in self.meters:\n            meter.reset()"
        ],
        [],
    ),
    # counters in a dict, over its keys
    "counters_cleared_over_a_dict": (
        """
counts = {"seen": 0, "steps": 0}
for epoch in range(2):
    for key in counts:
        counts[key] = 0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        counts["seen"] += len(x)
        counts["steps"] += 1
    print(counts)
""",
        ["def on_train_epoch_start(self):\n        for key in self.counts:"],
        [],
    ),
}

UNCHANGED = {
    # a forward of the model at the epoch's start (dropout would draw from torch's generator
    # after Lightning drew the epoch's loader seed)
    "loop_running_the_model": (
        _METERS.format(
            before="for probe in [torch.ones(1, 4), torch.zeros(1, 4)]:\n        print(model(probe))"
        ),
        "TL109",
    ),
    # the same through a function of the script reading the global model
    "loop_calling_a_function_of_the_model": (
        "def probe(x):\n    return model(x).sum()\n\n\n"
        + _METERS.format(before="for x0 in [torch.ones(1, 4)]:\n        print(probe(x0))"),
        "TL109",
    ),
    # a `while` loop: not followed
    "while_loop_at_the_epoch_start": (
        _METERS.format(before="k = 0\n    while k < 2:\n        k += 1"),
        "TL109",
    ),
    # the loop iterates the loader itself (its iterator draws a seed)
    "loop_over_the_loader": (
        _METERS.format(before="for xb, _ in loader:\n        print(xb.shape)"),
        "TL109",
    ),
}
