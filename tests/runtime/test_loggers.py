"""CSVLogger / TensorBoardLogger: directories, versions, files, compared with Lightning's loggers."""

from __future__ import annotations

import os
from argparse import Namespace

import pytest
import torch

from torchlift.runtime.loggers import CSVLogger, Logger, TensorBoardLogger
from torchlift.runtime.loggers.hparams_file import _fallback_dump, save_hparams_to_yaml
from torchlift.runtime.utilities.rank_zero import rank_zero_only


@pytest.fixture
def rank_one():
    """Pretend to be global rank 1 for the duration of a test."""
    previous = rank_zero_only.rank
    rank_zero_only.rank = 1
    yield
    rank_zero_only.rank = previous


def _drive(logger, hparams=True):
    """The calls a trainer makes: hyperparameters, per-step rows, a new column later, finalize."""
    if hparams:
        logger.log_hyperparams({"lr": 0.01, "layers": [64, 32], "name": "mlp", "opt": {"b1": 0.9}})
    for step in range(3):
        logger.log_metrics({"train_loss": torch.tensor(1.0 / (step + 1)), "epoch": 0}, step=step)
        logger.save()
    logger.log_metrics({"val_loss": 0.5, "val_acc": torch.tensor(0.75), "epoch": 0}, step=2)
    logger.log_metrics({"train_loss": 0.1, "epoch": 1}, step=3)
    logger.finalize("success")


# --- CSV --------------------------------------------------------------------------------------
@pytest.mark.lightning
@pytest.mark.parametrize("kwargs", [{}, dict(name="exp", prefix="fold1"), dict(version="run-a")])
def test_csv_files_match_lightning(tmp_path, kwargs):
    lightning_loggers = pytest.importorskip("lightning.pytorch.loggers")
    ours = CSVLogger(tmp_path / "ours", **kwargs)
    theirs = lightning_loggers.CSVLogger(tmp_path / "theirs", **kwargs)
    _drive(ours)
    _drive(theirs)
    assert os.path.relpath(ours.log_dir, tmp_path / "ours") == os.path.relpath(
        theirs.log_dir, tmp_path / "theirs"
    )
    for name in ("metrics.csv", "hparams.yaml"):
        assert (
            open(os.path.join(ours.log_dir, name)).read()
            == open(os.path.join(theirs.log_dir, name)).read()
        )
    assert (ours.name, ours.version, ours.root_dir.endswith(ours.name)) == (
        theirs.name,
        theirs.version,
        True,
    )


def test_csv_layout_and_header_rewrite(tmp_path):
    logger = CSVLogger(tmp_path)
    _drive(logger, hparams=False)
    lines = (tmp_path / "lightning_logs" / "version_0" / "metrics.csv").read_text().splitlines()
    assert lines[0] == "epoch,step,train_loss,val_acc,val_loss"
    assert lines[1] == "0,0,1.0,,"
    assert lines[4] == "0,2,,0.75,0.5"
    assert len(lines) == 6


def test_csv_versions_increment_by_scanning_directories(tmp_path):
    for expected in range(3):
        logger = CSVLogger(tmp_path, name="exp")
        assert logger.version == expected
        logger.log_metrics({"a": 1.0}, step=0)
        logger.save()
    (tmp_path / "exp" / "version_9").mkdir()
    (tmp_path / "exp" / "version_x").mkdir()
    (tmp_path / "exp" / "version_20.txt").write_text("not a dir")
    assert CSVLogger(tmp_path, name="exp").version == 10
    assert CSVLogger(tmp_path, name=None).log_dir == os.path.join(str(tmp_path), "version_0")


def test_csv_flushes_every_n_steps_without_save(tmp_path):
    logger = CSVLogger(tmp_path, flush_logs_every_n_steps=2)
    logger.log_metrics({"a": 1.0}, step=0)
    path = os.path.join(logger.log_dir, "metrics.csv")
    assert not os.path.exists(path)
    logger.log_metrics({"a": 2.0}, step=1)
    assert open(path).read().splitlines() == ["a,step", "1.0,0", "2.0,1"]


def test_csv_accepts_namespace_hparams(tmp_path):
    logger = CSVLogger(tmp_path)
    logger.log_hyperparams(Namespace(lr=0.1, batch_size=32))
    assert open(os.path.join(logger.log_dir, "hparams.yaml")).read() == "batch_size: 32\nlr: 0.1\n"


def test_csv_finalize_without_logging_creates_nothing(tmp_path):
    CSVLogger(tmp_path).finalize("success")
    assert os.listdir(tmp_path) == []


def test_csv_writes_nothing_off_rank_zero(tmp_path, rank_one):
    logger = CSVLogger(tmp_path)
    logger.log_hyperparams({"a": 1})
    logger.log_metrics({"loss": 1.0}, step=0)
    logger.save()
    logger.finalize("success")
    assert os.listdir(tmp_path) == []
    logger.experiment.anything(1, 2)  # a dummy experiment accepts any call


# --- TensorBoard ------------------------------------------------------------------------------
def _scalars(log_dir: str) -> dict[str, list[tuple[int, float]]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(log_dir)
    events.Reload()
    return {
        tag: [(e.step, round(e.value, 6)) for e in events.Scalars(tag)]
        for tag in events.Tags()["scalars"]
    }


def test_tensorboard_writes_real_events(tmp_path):
    pytest.importorskip("tensorboard")
    logger = TensorBoardLogger(tmp_path, name="tb")
    _drive(logger)
    assert logger.log_dir == os.path.join(str(tmp_path), "tb", "version_0")
    assert any(f.startswith("events.out.tfevents") for f in os.listdir(logger.log_dir))
    scalars = _scalars(logger.log_dir)
    assert scalars["train_loss"] == [(0, 1.0), (1, 0.5), (2, 0.333333), (3, 0.1)]
    assert scalars["val_acc"] == [(2, 0.75)]
    assert scalars["hp_metric"] == [(0, -1.0)]
    yaml_text = open(os.path.join(logger.log_dir, "hparams.yaml")).read()
    assert yaml_text.startswith("layers:\n- 64\n- 32\nlr: 0.01\n")


@pytest.mark.lightning
def test_tensorboard_scalars_and_files_match_lightning(tmp_path):
    pytest.importorskip("tensorboard")
    lightning_loggers = pytest.importorskip("lightning.pytorch.loggers")
    ours = TensorBoardLogger(tmp_path / "ours", sub_dir="sub", prefix="p")
    theirs = lightning_loggers.TensorBoardLogger(tmp_path / "theirs", sub_dir="sub", prefix="p")
    _drive(ours)
    _drive(theirs)
    assert os.path.relpath(ours.log_dir, tmp_path / "ours") == os.path.relpath(
        theirs.log_dir, tmp_path / "theirs"
    )
    assert _scalars(ours.log_dir) == _scalars(theirs.log_dir)
    assert sorted(f.split(".")[0] for f in os.listdir(ours.log_dir)) == sorted(
        f.split(".")[0] for f in os.listdir(theirs.log_dir)
    )
    assert (
        open(os.path.join(ours.log_dir, "hparams.yaml")).read()
        == open(os.path.join(theirs.log_dir, "hparams.yaml")).read()
    )


def test_tensorboard_versions_and_rank_zero_only(tmp_path, rank_one):
    (tmp_path / "lightning_logs" / "version_4").mkdir(parents=True)
    logger = TensorBoardLogger(tmp_path)
    assert logger.version == 5
    logger.log_metrics({"a": 1.0}, step=0)
    logger.log_hyperparams({"a": 1})
    logger.finalize("success")
    assert os.listdir(tmp_path / "lightning_logs") == ["version_4"]


def test_tensorboard_rejects_unloggable_values_clearly(tmp_path):
    pytest.importorskip("tensorboard")
    logger = TensorBoardLogger(tmp_path)
    with pytest.raises(ValueError, match="cannot log bad="):
        logger.log_metrics({"bad": "text"}, step=0)
    logger.finalize("failed")


# --- base class and YAML ----------------------------------------------------------------------
def test_logger_base_defaults():
    class Minimal(Logger):
        name = "m"
        version = 1

        def log_metrics(self, metrics, step=None): ...

        def log_hyperparams(self, params, *args, **kwargs): ...

    logger = Minimal()
    assert (logger.save_dir, logger.root_dir, logger.log_dir) == (None, None, None)
    assert logger.group_separator == "/"
    logger.log_graph(torch.nn.Linear(1, 1))
    logger.after_save_checkpoint(object())
    logger.finalize("success")


@pytest.mark.parametrize(
    "data",
    [
        {"lr": 0.001, "wd": 1e-05, "big": 1e20, "n": 10, "neg": -3.5, "flag": True, "none": None},
        {"name": "resnet", "s": "a: b", "t": "yes", "u": "123", "q": "it's", "e": "", "p": "/x y"},
        {"layers": [1, 2, 3], "opt": {"b": True, "a": None}, "empty": {}, "el": []},
        {"nest": [{"x": 1, "y": [1, 2]}, [3, 4]], "On": "Off", "inf": float("-inf")},
    ],
)
def test_fallback_yaml_writer_equals_pyyaml(data):
    yaml = pytest.importorskip("yaml")
    assert _fallback_dump(data) == yaml.dump(data)
    assert yaml.safe_load(_fallback_dump(data)) == data


def test_save_hparams_needs_existing_folder(tmp_path):
    with pytest.raises(RuntimeError, match="Missing folder"):
        save_hparams_to_yaml(tmp_path / "nope" / "hparams.yaml", {"a": 1})


def test_lazy_imports_and_hparams_yaml_without_pyyaml(tmp_path):
    """One fresh interpreter (they are slow to start) checks two things:
    importing our callbacks/loggers adds neither tensorboard, tqdm nor yaml to what torch loads,
    and with PyYAML blocked the fallback writer produces the same hparams.yaml as yaml.dump."""
    import subprocess
    import sys

    yaml = pytest.importorskip("yaml")
    params = {"lr": 0.001, "layers": [64, 32], "name": "mlp", "opt": {"betas": [0.9, 0.99]}}
    code = (
        "import sys, torch; sys.modules['yaml'] = None; before = set(sys.modules)\n"
        "import torchlift.runtime.loggers as lg, torchlift.runtime.callbacks as cb\n"
        "cb.ModelCheckpoint, cb.EarlyStopping, cb.TQDMProgressBar, cb.LearningRateMonitor\n"
        "lg.CSVLogger, lg.TensorBoardLogger\n"
        "added = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "print(sorted(added & {'tensorboard', 'tqdm', 'yaml'}))\n"
        f"logger = lg.CSVLogger({str(tmp_path)!r}, version=0)\n"
        f"logger.log_hyperparams({params!r})\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    written = (tmp_path / "lightning_logs" / "version_0" / "hparams.yaml").read_text()
    assert written == yaml.dump(params)
