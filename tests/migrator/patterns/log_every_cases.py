"""Cases of patterns/log_every.py: a metric logger's generator iterating the loader."""

_LOGGER = """
import time
from collections import defaultdict


class Meter:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n


class MetricLogger:
    def __init__(self):
        self.meters = defaultdict(Meter)

    def update(self, **kwargs):
        for name, value in kwargs.items():
            self.meters[name].update(value)

    def log_every(self, iterable, print_freq, header=""):
        start = time.time()
        for i, obj in enumerate(iterable):
            {body}
            if i % print_freq == 0:
                print(header, i, len(iterable), time.time() - start)


for epoch in range(2):
    metric_logger = MetricLogger()
    header = f"epoch {{epoch}}"
    for x, y in metric_logger.log_every(loader, 2, header):
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, y)
        loss.backward()
        optimizer.step()
        acc = (out.argmax(1) == y).float().mean()
        metric_logger.update(loss=loss.item(), lr=optimizer.param_groups[0]["lr"])
        metric_logger.meters["acc"].update(acc.item(), n=x.shape[0])
{after}"""


def _logger(body: str = "yield obj", after: str = "") -> str:
    return _LOGGER.format(body=body, after=after)


CONVERTS = {
    "loader_iterated_by_the_trainer_meters_logged": (
        _logger(),
        [
            "trainer.fit(lit_model, loader)",
            'self.log("acc", acc.item(), prog_bar=True)',
            'self.log("train_loss", loss, prog_bar=True)',
            'self.log("lr", self.optimizers().param_groups[0]["lr"], prog_bar=True)',
        ],
        ["log_every(loader", "metric_logger =", "metric_logger.update", 'header = f"epoch'],
    ),
    "timing_before_and_after_the_yield": (
        _logger(
            "start = time.time()\n            yield obj\n            elapsed = time.time() - start"
        ),
        ["trainer.fit(lit_model, loader)"],
        ["log_every(loader"],
    ),
}

UNCHANGED = {
    "wrapper_moves_each_batch": (
        _logger("yield [t.to('cpu') for t in obj]"),
        "TL187",
    ),
    "wrapper_skips_batches": (
        _logger("if len(obj[1]) < 2:\n                continue\n            yield obj"),
        "TL187",
    ),
    "wrapper_yields_twice": (
        _logger("yield obj\n            yield obj"),
        "TL187",
    ),
    "wrapper_draws_random_numbers": (
        _logger("yield obj\n            noise = torch.rand(1)"),
        "TL187",
    ),
    "wrapper_reads_one_batch_ahead": (
        _logger("yield obj\n            peek = next(iter(iterable))"),
        "TL187",
    ),
    "logger_read_after_the_batch_loop": (
        _logger(after="    print(metric_logger.meters['acc'].total)\n"),
        "TL187",
    ),
    "meter_update_draws_random_numbers": (
        _logger().replace(
            "self.count += n\n", "self.count += n\n        self.jitter = torch.rand(1)\n"
        ),
        "TL187",
    ),
}

# an evaluation pass over a logger's generator iterates its loader; its logger stays, updated
# in validation_step and read at the epoch's end as the script did
CONVERTS["evaluation_pass_keeps_its_logger"] = (
    _logger(
        after="""
    model.eval()
    val_logger = MetricLogger()
    with torch.no_grad():
        for x, y in val_logger.log_every(val_loader, 5, "Test:"):
            val_logger.update(loss=criterion(model(x), y).item())
    print(val_logger.meters["loss"].total / val_logger.meters["loss"].count)
"""
    ).replace(
        "for epoch in range(2):",
        "val_loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))))\n"
        "for epoch in range(2):\n    model.train()",
    ),
    [
        "trainer.fit(lit_model, loader, val_loader)",
        "self.val_logger = MetricLogger()",
        "self.val_logger.update(loss=self.criterion(self(x), y).item())",
    ],
    ["log_every(val_loader"],
)

# the evaluation keeps its logger: a generator changing the logger would leave other meters
UNCHANGED["evaluation_logger_changed_by_its_generator"] = (
    CONVERTS["evaluation_pass_keeps_its_logger"][0].replace(
        "print(header, i, len(iterable), time.time() - start)",
        'self.meters["time"].update(time.time() - start)',
    ),
    "TL187",
)
