"""What a loop over training runs converted to one fit per iteration relies on (k-fold, seed
and learning-rate sweeps: migrator/shapes/runs.py): building a Trainer draws no random number,
and a fit draws only what iterating its loaders draws (one seed per `iter(DataLoader)`), so
the next run starts from the random state the script's own loop would have left. Checked on
the runtime and on real Lightning, with the Trainer arguments a conversion writes (default
logger and checkpointing, no sanity check)."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from runtime_engines import engine, engines, loaders


def _states():
    return (
        torch.get_rng_state().clone(),
        np.random.get_state()[1].copy(),
        random.getstate(),
    )


def _same(a, b) -> bool:
    return torch.equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2]


def _module(L):
    class Regression(L.LightningModule):  # no dropout: the loaders alone draw
        def __init__(self) -> None:
            super().__init__()
            self.net = torch.nn.Linear(6, 1)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.mse_loss(self.net(x), y)

        def validation_step(self, batch, batch_idx):
            x, y = batch
            torch.nn.functional.mse_loss(self.net(x), y)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.05)

    return Regression()


@pytest.mark.parametrize("name", engines())
def test_trainers_built_and_fit_in_a_loop_draw_what_the_loaders_draw(name, tmp_path, monkeypatch):
    L = engine(name)
    monkeypatch.chdir(tmp_path)  # the default logger and checkpoints write here
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    train, val = loaders(shuffle=True)
    start = _states()
    for _ in range(2):  # the script's own loop: every epoch iterates both loaders once
        module = _module(L)
        for _ in range(2):
            for _ in train:
                pass
            for _ in val:
                pass
    expected = _states()

    torch.set_rng_state(start[0])
    for run in range(2):
        module = _module(L)
        before = _states()
        trainer = L.Trainer(
            accelerator="cpu",
            devices=1,
            max_epochs=2,
            num_sanity_val_steps=0,
            enable_progress_bar=False,
        )
        assert _same(before, _states()), f"run {run}: building the Trainer drew a random number"
        trainer.fit(module, train, val)
    assert _same(expected, _states()), "the fits drew other random numbers than the loaders"
