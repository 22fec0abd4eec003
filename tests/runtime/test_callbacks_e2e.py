"""Callbacks and loggers inside a real fit: our runtime against `lightning.pytorch`.

The same LightningModule source, data and seed run on both trainers with ModelCheckpoint
(monitor + top-k + filename template + save_last), EarlyStopping, LearningRateMonitor and
CSVLogger. Both must produce the same checkpoint file names, best score, stop epoch, metrics.csv
and hparams.yaml, and our .ckpt must carry the callback state under Lightning's state keys.
"""

from __future__ import annotations

import csv
import os
import warnings

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

pytestmark = pytest.mark.filterwarnings("ignore")


def _module_class(L):
    class Regressor(L.LightningModule):
        def __init__(self, lr: float = 0.05, hidden: int = 8):
            super().__init__()
            self.save_hyperparameters()
            self.net = torch.nn.Sequential(
                torch.nn.Linear(4, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)
            )

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.net(x), y)
            self.log("train_loss", loss, prog_bar=True)
            return loss

        def validation_step(self, batch, batch_idx):
            x, y = batch
            self.log("val_loss", torch.nn.functional.mse_loss(self.net(x), y), prog_bar=True)

        def configure_optimizers(self):
            optimizer = torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=0.9)
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
            return {"optimizer": optimizer, "lr_scheduler": scheduler}

    return Regressor


def _loaders():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(48, 4, generator=g)
    y = x.sum(1, keepdim=True) + 0.1 * torch.randn(48, 1, generator=g)
    # validation on different, noisier data so val_loss rises at some point -> early stop
    xv = torch.randn(16, 4, generator=g)
    yv = -xv.sum(1, keepdim=True)
    return (
        DataLoader(TensorDataset(x, y), batch_size=8),
        DataLoader(TensorDataset(xv, yv), batch_size=8),
    )


def _fit(L, root, extra_trainer_kwargs=None):
    torch.manual_seed(0)
    train, val = _loaders()
    checkpoint = L.callbacks.ModelCheckpoint(
        monitor="val_loss", save_top_k=2, filename="{epoch:02d}-{val_loss:.3f}", save_last=True
    )
    stopper = L.callbacks.EarlyStopping(monitor="val_loss", patience=2)
    trainer = L.Trainer(
        max_epochs=8,
        default_root_dir=str(root),
        logger=L.loggers.CSVLogger(str(root), name="csv"),
        callbacks=[checkpoint, stopper, L.callbacks.LearningRateMonitor()],
        log_every_n_steps=2,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        **(extra_trainer_kwargs or {}),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer.fit(_module_class(L)(), train, val)
    return trainer, checkpoint, stopper


def _rel(root, path):
    return os.path.relpath(path, root) if path else path


def _csv_rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    lightning = pytest.importorskip("lightning.pytorch")
    import torchlift.runtime as ours

    root = tmp_path_factory.mktemp("e2e")
    return {
        "ours": (root / "ours", *_fit(ours, root / "ours")),
        "theirs": (root / "theirs", *_fit(lightning, root / "theirs")),
    }


@pytest.mark.lightning
def test_same_checkpoint_files_and_best_score(runs):
    (r1, _, ck1, _), (r2, _, ck2, _) = runs["ours"], runs["theirs"]
    files1 = sorted(os.listdir(ck1.dirpath))
    assert files1 == sorted(os.listdir(ck2.dirpath))
    assert "last.ckpt" in files1 and len(files1) == 3
    assert (
        _rel(r1, ck1.dirpath)
        == _rel(r2, ck2.dirpath)
        == os.path.join("csv", "version_0", "checkpoints")
    )
    assert _rel(r1, ck1.best_model_path) == _rel(r2, ck2.best_model_path)
    assert float(ck1.best_model_score) == pytest.approx(float(ck2.best_model_score), rel=1e-6)
    assert sorted(_rel(r1, p) for p in ck1.best_k_models) == sorted(
        _rel(r2, p) for p in ck2.best_k_models
    )


@pytest.mark.lightning
def test_same_stop_epoch(runs):
    (_, t1, _, es1), (_, t2, _, es2) = runs["ours"], runs["theirs"]
    assert es1.stopped_epoch == es2.stopped_epoch > 0, "the run should stop early"
    assert t1.current_epoch == t2.current_epoch
    assert t1.global_step == t2.global_step
    assert es1.wait_count == es2.wait_count


@pytest.mark.lightning
def test_same_metrics_csv_and_hparams(runs):
    (_, t1, _, _), (_, t2, _, _) = runs["ours"], runs["theirs"]
    rows1 = _csv_rows(os.path.join(t1.logger.log_dir, "metrics.csv"))
    rows2 = _csv_rows(os.path.join(t2.logger.log_dir, "metrics.csv"))
    assert list(rows1[0]) == list(rows2[0]), "same columns in the same order"
    assert len(rows1) == len(rows2)
    for a, b in zip(rows1, rows2):
        assert a.keys() == b.keys()
        for key in a:
            assert (a[key] == "") == (b[key] == ""), f"column {key} filled in one run only"
            if a[key]:
                assert float(a[key]) == pytest.approx(float(b[key]), rel=1e-5, abs=1e-7), key
    hparams1 = open(os.path.join(t1.logger.log_dir, "hparams.yaml")).read()
    assert hparams1 == open(os.path.join(t2.logger.log_dir, "hparams.yaml")).read()


@pytest.mark.lightning
def test_checkpoint_holds_callback_state_under_lightnings_keys(runs):
    from lightning.pytorch.callbacks import EarlyStopping as LEarlyStopping
    from lightning.pytorch.callbacks import ModelCheckpoint as LModelCheckpoint

    _, _, ck1, es1 = runs["ours"]
    ours = torch.load(ck1.last_model_path, weights_only=True)
    lightning_ckpt = torch.load(runs["theirs"][2].last_model_path, weights_only=False)
    assert set(ours["callbacks"]) == set(lightning_ckpt["callbacks"])
    key = LModelCheckpoint(
        monitor="val_loss", save_top_k=2, filename="{epoch:02d}-{val_loss:.3f}", save_last=True
    ).state_key
    state = ours["callbacks"][key]
    assert set(state) == set(lightning_ckpt["callbacks"][key])
    restored = LModelCheckpoint(dirpath=ck1.dirpath, monitor="val_loss", save_top_k=2)
    restored.load_state_dict(state)
    assert restored.best_k_models.keys() == ck1.best_k_models.keys()
    es_state = ours["callbacks"][LEarlyStopping(monitor="val_loss").state_key]
    restored_es = LEarlyStopping(monitor="val_loss", patience=2)
    restored_es.load_state_dict(es_state)
    assert restored_es.best_score == pytest.approx(float(es1.best_score))


@pytest.mark.lightning
def test_learning_rate_logged_like_lightning(runs):
    (_, t1, _, _), (_, t2, _, _) = runs["ours"], runs["theirs"]
    lr1 = [r["lr-SGD"] for r in _csv_rows(os.path.join(t1.logger.log_dir, "metrics.csv"))]
    lr2 = [r["lr-SGD"] for r in _csv_rows(os.path.join(t2.logger.log_dir, "metrics.csv"))]
    assert lr1 == lr2 and any(lr1)


@pytest.mark.lightning
def test_learning_rate_visible_to_other_callbacks(runs):
    for name in ("ours", "theirs"):
        trainer = runs[name][1]
        assert float(trainer.callback_metrics["lr-SGD"]) == pytest.approx(0.05 * 0.5**4), name


@pytest.mark.lightning
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(every_n_train_steps=4, save_top_k=-1, save_last=True),
        dict(monitor="train_loss", every_n_train_steps=3, save_top_k=2, mode="min"),
        dict(monitor="val_loss", every_n_train_steps=5, save_top_k=1),  # deferred to validation
    ],
    ids=["steps-all", "steps-topk-train", "steps-val-deferred"],
)
def test_step_checkpoints_match_lightning(tmp_path, kwargs):
    lightning = pytest.importorskip("lightning.pytorch")
    import torchlift.runtime as ours

    names = []
    for L, sub in ((ours, "ours"), (lightning, "theirs")):
        torch.manual_seed(0)
        train, val = _loaders()
        checkpoint = L.callbacks.ModelCheckpoint(dirpath=str(tmp_path / sub), **kwargs)
        trainer = L.Trainer(
            max_epochs=2,
            logger=False,
            callbacks=[checkpoint],
            enable_progress_bar=False,
            enable_model_summary=False,
            default_root_dir=str(tmp_path / sub),
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            trainer.fit(_module_class(L)(), train, val)
        names.append(
            (sorted(os.listdir(tmp_path / sub)), os.path.basename(checkpoint.best_model_path))
        )
    assert names[0] == names[1]
    assert len(names[0][0]) >= 1
