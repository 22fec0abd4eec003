"""The default logger inside a real fit, against `lightning.pytorch`: same directory tree, same
TensorBoard scalars, same hparams.yaml, checkpoints under the logger's version directory."""

from __future__ import annotations

import os
import warnings

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

pytestmark = pytest.mark.filterwarnings("ignore")


def _module_class(L):
    class Classifier(L.LightningModule):
        def __init__(self, lr: float = 0.1, name: str = "mlp"):
            super().__init__()
            self.save_hyperparameters()
            self.layer = torch.nn.Linear(6, 3)

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.cross_entropy(self.layer(x), y)
            self.log("train_loss", loss)
            return loss

        def validation_step(self, batch, batch_idx):
            x, y = batch
            self.log("val_loss", torch.nn.functional.cross_entropy(self.layer(x), y))

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)

    return Classifier


def _fit(L, root):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    data = TensorDataset(torch.randn(40, 6, generator=g), torch.randint(0, 3, (40,), generator=g))
    trainer = L.Trainer(
        max_epochs=2,
        default_root_dir=str(root),
        log_every_n_steps=1,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer.fit(
            _module_class(L)(), DataLoader(data, batch_size=8), DataLoader(data, batch_size=20)
        )
    return trainer


def _tree(root):
    """Relative paths, with event-file names cut to their fixed prefix."""
    paths = []
    for directory, _, files in os.walk(root):
        for name in files:
            if name.startswith("events.out.tfevents"):
                name = "events.out.tfevents"
            paths.append(os.path.relpath(os.path.join(directory, name), root))
    return sorted(paths)


def _scalars(log_dir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(log_dir)
    events.Reload()
    return {
        tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]
    }


@pytest.mark.lightning
def test_default_tensorboard_logger_matches_lightning(tmp_path):
    pytest.importorskip("tensorboard")
    lightning = pytest.importorskip("lightning.pytorch")
    import torchlift.runtime as ours

    t1 = _fit(ours, tmp_path / "ours")
    t2 = _fit(lightning, tmp_path / "theirs")
    assert type(t1.logger).__name__ == type(t2.logger).__name__ == "TensorBoardLogger"
    tree = _tree(tmp_path / "ours")
    assert tree == _tree(tmp_path / "theirs")
    assert (
        os.path.join("lightning_logs", "version_0", "checkpoints", "epoch=1-step=10.ckpt") in tree
    )
    s1, s2 = _scalars(t1.logger.log_dir), _scalars(t2.logger.log_dir)
    assert s1.keys() == s2.keys()
    for tag in s1:
        assert [step for step, _ in s1[tag]] == [step for step, _ in s2[tag]], tag
        assert [v for _, v in s1[tag]] == pytest.approx([v for _, v in s2[tag]], rel=1e-5), tag
    for trainer in (t1, t2):
        assert trainer.log_dir == trainer.logger.log_dir
    hparams = [open(os.path.join(t.logger.log_dir, "hparams.yaml")).read() for t in (t1, t2)]
    assert hparams[0] == hparams[1] == "lr: 0.1\nname: mlp\n"
