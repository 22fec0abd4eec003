"""TQDMProgressBar: what it draws, how rarely it reads metrics, and when it stays silent."""

from __future__ import annotations

import io
import warnings

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from torchlift.runtime.callbacks import ProgressBar, TQDMProgressBar
from torchlift.runtime.callbacks.progress import Tqdm, convert_inf

try:
    from callback_fakes import FakeTrainer
except ImportError:  # tests/ turned into a package
    from .callback_fakes import FakeTrainer


class CountingTrainer(FakeTrainer):
    """Counts reads of `progress_bar_metrics`: each read would sync the device on a GPU."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.metric_reads = 0
        self.num_training_batches = 1000

    @property
    def progress_bar_metrics(self):
        self.metric_reads += 1
        return {"loss": torch.tensor(0.25)}

    @progress_bar_metrics.setter
    def progress_bar_metrics(self, value) -> None:
        pass


def _train_epoch(bar, trainer, batches):
    bar.setup(trainer, None, "fit")
    bar.on_train_start(trainer, None)
    bar.on_train_epoch_start(trainer, None)
    for batch_idx in range(batches):
        bar.on_train_batch_end(trainer, None, None, None, batch_idx)
    bar.on_train_epoch_end(trainer, None)
    bar.on_train_end(trainer, None)


def test_redraws_are_time_throttled_and_metrics_read_only_on_redraw(tmp_path, monkeypatch, capsys):
    trainer = CountingTrainer(tmp_path)
    bar = TQDMProgressBar()
    monkeypatch.setattr(TQDMProgressBar, "REFRESH_INTERVAL", 3600.0)
    _train_epoch(bar, trainer, 1000)
    # first batch, last batch, epoch end: nothing in between within the interval
    assert trainer.metric_reads == 3
    out = capsys.readouterr().out
    assert "Epoch 0" in out and "1000/1000" in out and "loss=0.250" in out


def test_refresh_rate_counts_batches_when_not_throttled(tmp_path, monkeypatch, capsys):
    trainer = CountingTrainer(tmp_path)
    monkeypatch.setattr(TQDMProgressBar, "REFRESH_INTERVAL", 0.0)
    monkeypatch.setattr(TQDMProgressBar, "REFRESH_BUDGET", float("inf"))
    _train_epoch(TQDMProgressBar(refresh_rate=100), trainer, 1000)
    assert trainer.metric_reads == 10 + 1  # batches 100, 200, ..., 1000, plus epoch end
    capsys.readouterr()


def test_drawing_time_is_kept_under_budget(tmp_path, monkeypatch, capsys):
    """With slow redraws (as on a busy machine) the bar draws less often, not more."""
    trainer = CountingTrainer(tmp_path)
    bar = TQDMProgressBar()
    monkeypatch.setattr(TQDMProgressBar, "REFRESH_INTERVAL", 0.0)
    clock = [0.0]
    monkeypatch.setattr("torchlift.runtime.callbacks.progress.time.monotonic", lambda: clock[0])
    bar.setup(trainer, None, "fit")
    bar.on_train_start(trainer, None)
    bar.on_train_epoch_start(trainer, None)
    real_refresh = bar.train_progress_bar.refresh

    def slow_refresh(*args, **kwargs):
        clock[0] += 0.01  # every redraw takes 10 ms
        return real_refresh(*args, **kwargs)

    bar.train_progress_bar.refresh = slow_refresh
    for batch_idx in range(999):
        clock[0] += 0.001  # a 1 ms step
        bar.on_train_batch_end(trainer, None, None, None, batch_idx)
    # 1 s of steps; 10 ms per redraw within a 1 % budget allows about one redraw per second
    assert 1 <= trainer.metric_reads <= 2
    bar.on_train_end(trainer, None)
    capsys.readouterr()


def test_zero_refresh_rate_and_other_ranks_draw_nothing(tmp_path, capsys):
    trainer = CountingTrainer(tmp_path)
    _train_epoch(TQDMProgressBar(refresh_rate=0), trainer, 50)
    other_rank = CountingTrainer(tmp_path)
    other_rank.is_global_zero = False
    bar = TQDMProgressBar()
    _train_epoch(bar, other_rank, 50)
    assert bar.is_disabled
    assert trainer.metric_reads == other_rank.metric_reads == 0
    assert capsys.readouterr().out == ""


def test_bad_refresh_rate_is_a_clear_error():
    with pytest.raises(ValueError, match="refresh_rate=-1"):
        TQDMProgressBar(refresh_rate=-1)


def test_version_and_prog_bar_metrics_in_postfix(tmp_path):
    from torchlift.runtime.loggers import CSVLogger

    trainer = FakeTrainer(tmp_path, loggers=[CSVLogger(tmp_path, version="run-12345")])
    trainer.progress_bar_metrics = {"acc": torch.tensor(0.5), "n": 3}
    metrics = TQDMProgressBar().get_metrics(trainer, None)
    assert metrics == {"v_num": "2345", "acc": 0.5, "n": 3}


def test_total_train_batches_with_max_steps(tmp_path):
    trainer = FakeTrainer(tmp_path)
    trainer.max_epochs, trainer.max_steps, trainer.global_step = -1, 10, 7
    bar = TQDMProgressBar()
    bar.setup(trainer, None, "fit")
    assert bar.total_train_batches == 3
    assert convert_inf(float("inf")) is None and convert_inf(4) == 4


def test_tqdm_pads_numbers():
    tqdm_class = type(Tqdm(disable=True))
    assert tqdm_class.format_num(0.5) == "0.500"
    assert tqdm_class.format_num(3) == "3"
    assert tqdm_class.format_num("1") == "1.000"


def test_print_goes_above_active_bar(tmp_path, capsys):
    trainer = CountingTrainer(tmp_path)
    bar = TQDMProgressBar()
    bar.setup(trainer, None, "fit")
    bar.on_train_start(trainer, None)
    bar.print("hello", "world")
    bar.on_train_end(trainer, None)
    assert "hello world" in capsys.readouterr().out


def test_base_class_requires_enable_disable():
    with pytest.raises(NotImplementedError):
        ProgressBar().disable()


# --- inside the real trainer ----------------------------------------------------------------------
def _tiny_fit(**trainer_kwargs):
    import torchlift.runtime as L

    class Tiny(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(3, 1)

        def training_step(self, batch, batch_idx):
            loss = self.layer(batch[0]).pow(2).mean()
            self.log("train_loss", loss, prog_bar=True)
            return loss

        def validation_step(self, batch, batch_idx):
            self.log("val_loss", self.layer(batch[0]).pow(2).mean(), prog_bar=True)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    data = DataLoader(TensorDataset(torch.randn(12, 3)), batch_size=4)
    trainer = L.Trainer(max_epochs=2, logger=False, enable_checkpointing=False, **trainer_kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer.fit(Tiny(), data, data)
    return trainer


def test_trainer_draws_bar_with_prog_bar_metrics(capsys):
    _tiny_fit()
    out = capsys.readouterr().out
    assert "Epoch 1: 100%" in out
    assert "train_loss=" in out and "val_loss=" in out
    assert "Sanity Checking" in out


def test_trainer_without_progress_bar_prints_nothing(capsys):
    trainer = _tiny_fit(enable_progress_bar=False)
    assert trainer.progress_bar_callback is None
    out = capsys.readouterr().out
    assert "Epoch" not in out and "it/s" not in out


def test_bar_state_is_picklable_without_terminal_handles():
    import pickle

    bar = TQDMProgressBar()
    bar.train_progress_bar = Tqdm(disable=True, file=io.StringIO())
    clone = pickle.loads(pickle.dumps(bar))
    with pytest.raises(TypeError, match="has not been set yet"):
        clone.train_progress_bar


def test_unknown_length_epoch_shows_no_stale_total(tmp_path, capsys):
    trainer = CountingTrainer(tmp_path)
    trainer.num_training_batches = 5
    bar = TQDMProgressBar()
    bar.setup(trainer, None, "fit")
    bar.on_train_start(trainer, None)
    bar.on_train_epoch_start(trainer, None)
    assert bar.train_progress_bar.total == 5
    trainer.num_training_batches = float("inf")  # e.g. an IterableDataset without __len__
    bar.on_train_epoch_start(trainer, None)
    assert bar.train_progress_bar.total is None
    bar.on_train_end(trainer, None)
    capsys.readouterr()
