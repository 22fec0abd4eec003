"""LearningRateMonitor: metric names and logging points, checked against Lightning's callback."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import pytest
import torch

from torchlift.runtime.callbacks import LearningRateMonitor
from torchlift.runtime.errors import MisconfigurationException

try:
    from callback_fakes import FakeTrainer, simulate_fit
except ImportError:  # tests/ turned into a package
    from .callback_fakes import FakeTrainer, simulate_fit

lightning_callbacks = pytest.importorskip("lightning.pytorch.callbacks")


class RecordingLogger:
    version = 0
    name = "rec"
    save_dir = None

    def __init__(self) -> None:
        self.rows: list[tuple[int, dict]] = []

    def log_metrics(self, metrics, step=None):
        self.rows.append((step, dict(metrics)))


def _setup(case: str):
    """Optimizers and scheduler configs for a few shapes users write."""
    a = torch.nn.Linear(2, 2)
    b = torch.nn.Linear(2, 2)
    config = lambda sched, interval="epoch", name=None: SimpleNamespace(  # noqa: E731
        scheduler=sched, interval=interval, frequency=1, name=name
    )
    if case == "one_adam":
        return [torch.optim.Adam(a.parameters(), lr=0.01)], []
    if case == "two_groups":
        opt = torch.optim.SGD(
            [{"params": a.parameters()}, {"params": b.parameters(), "lr": 0.5}],
            lr=0.1,
            momentum=0.9,
        )
        return [opt], []
    if case == "named_groups":
        opt = torch.optim.SGD(
            [{"params": a.parameters(), "name": "enc"}, {"params": b.parameters(), "name": "dec"}],
            lr=0.1,
        )
        return [opt], []
    if case == "two_sgd_with_schedulers":
        o1 = torch.optim.SGD(a.parameters(), lr=0.1)
        o2 = torch.optim.SGD(b.parameters(), lr=0.2)
        s1 = torch.optim.lr_scheduler.StepLR(o1, 1, gamma=0.5)
        s2 = torch.optim.lr_scheduler.StepLR(o2, 1, gamma=0.5)
        return [o1, o2], [config(s1, "step"), config(s2, "epoch")]
    if case == "named_scheduler":
        o1 = torch.optim.AdamW(a.parameters(), lr=0.1)
        o2 = torch.optim.Adam(b.parameters(), lr=0.3)
        return [o1, o2], [config(torch.optim.lr_scheduler.StepLR(o1, 1), "step", "my-lr")]
    raise AssertionError(case)


CASES = ["one_adam", "two_groups", "named_groups", "two_sgd_with_schedulers", "named_scheduler"]


@pytest.mark.lightning
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("interval", [None, "step", "epoch"])
@pytest.mark.parametrize("extras", [{}, dict(log_momentum=True, log_weight_decay=True)])
def test_names_and_logged_rows_match_lightning(tmp_path, case, interval, extras):
    outcomes = []
    for cls in (LearningRateMonitor, lightning_callbacks.LearningRateMonitor):
        optimizers, configs = _setup(case)
        logger = RecordingLogger()
        trainer = FakeTrainer(tmp_path, loggers=[logger])
        trainer.optimizers, trainer.lr_scheduler_configs = optimizers, configs
        monitor = cls(logging_interval=interval, **extras)
        with warnings.catch_warnings():  # "no momentum" warnings are not under test here
            warnings.simplefilter("ignore")
            simulate_fit(monitor, trainer, [{}, {}], steps_per_epoch=2)
        outcomes.append((sorted(monitor.lrs), monitor.lrs, logger.rows))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][2], "something was logged"


def test_names_for_common_shapes(tmp_path):
    optimizers, configs = _setup("two_sgd_with_schedulers")
    trainer = FakeTrainer(tmp_path, loggers=[RecordingLogger()])
    trainer.optimizers, trainer.lr_scheduler_configs = optimizers, configs
    monitor = LearningRateMonitor()
    monitor.on_train_start(trainer)
    assert list(monitor.lrs) == ["lr-SGD", "lr-SGD-1"]
    optimizers, _ = _setup("two_groups")
    trainer.optimizers, trainer.lr_scheduler_configs = optimizers, []
    monitor.on_train_start(trainer)
    assert list(monitor.lrs) == ["lr-SGD/pg1", "lr-SGD/pg2"]


def test_values_reach_callback_metrics(tmp_path):
    optimizers, _ = _setup("one_adam")
    trainer = FakeTrainer(tmp_path, loggers=[RecordingLogger()])
    trainer.optimizers = optimizers
    monitor = LearningRateMonitor(logging_interval="step")
    monitor.on_train_start(trainer)
    monitor.on_train_batch_start(trainer, None, None, 0)
    assert float(trainer.callback_metrics["lr-Adam"]) == pytest.approx(0.01)


def test_requires_a_logger(tmp_path):
    with pytest.raises(MisconfigurationException, match="no logger"):
        LearningRateMonitor().on_train_start(FakeTrainer(tmp_path))


def test_bad_interval_is_a_clear_error():
    with pytest.raises(MisconfigurationException, match="logging_interval should be"):
        LearningRateMonitor(logging_interval="batch")


def test_duplicate_group_names_rejected(tmp_path):
    a, b = torch.nn.Linear(1, 1), torch.nn.Linear(1, 1)
    opt = torch.optim.SGD(
        [{"params": a.parameters(), "name": "x"}, {"params": b.parameters(), "name": "x"}], lr=0.1
    )
    trainer = FakeTrainer(tmp_path, loggers=[RecordingLogger()])
    trainer.optimizers = [opt]
    with pytest.raises(MisconfigurationException, match="identical `name`"):
        LearningRateMonitor().on_train_start(trainer)
