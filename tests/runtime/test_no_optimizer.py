"""Manual optimization with no optimizer, as the migrator emits for parameters updated by hand
(patterns/hand_update.py), behaves as in Lightning 2.6: `configure_optimizers` returning None
warns once and the fit runs with a `_MockOptimizer` (`self.optimizers()` is it, "No
Optimizer"), `global_step` stays 0 (it counts optimizer steps), a checkpoint holds `{}` as the
mock's state, and a module without `configure_optimizers` is refused before training."""

from __future__ import annotations

import warnings

import pytest
import torch
from runtime_engines import QUIET, engine, engines, loaders

NONE_WARNING = (
    "`LightningModule.configure_optimizers` returned `None`, this fit will run with no optimizer"
)


def hand_model(L, define_configure_optimizers: bool = True):
    class HandUpdate(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.automatic_optimization = False
            self.net = torch.nn.Sequential(
                torch.nn.Linear(6, 8), torch.nn.Dropout(0.2), torch.nn.Linear(8, 1)
            )
            self.losses: list[float] = []
            self.seen: list[tuple[str, str]] = []

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.net(x), y)
            self.net.zero_grad()
            self.manual_backward(loss)
            with torch.no_grad():
                for p in self.net.parameters():
                    p -= 0.05 * p.grad
            self.losses.append(loss.item())
            optimizer = self.optimizers()
            self.seen.append((type(optimizer.optimizer).__name__, repr(optimizer)))

    if define_configure_optimizers:

        def configure_optimizers(self):
            return None

        HandUpdate.configure_optimizers = configure_optimizers
    return HandUpdate()


def run(name: str, tmp_path, define_configure_optimizers: bool = True):
    L = engine(name)
    L.seed_everything(3)
    model = hand_model(L, define_configure_optimizers)
    train, _ = loaders(batch_size=8, n=32)
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=1, **QUIET)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.fit(model, train)
    trainer.save_checkpoint(tmp_path / f"{name}.ckpt")
    checkpoint = torch.load(tmp_path / f"{name}.ckpt", weights_only=True)
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    return model, trainer, messages, checkpoint


@pytest.mark.parametrize("name", engines())
def test_none_runs_with_a_mock_optimizer_and_no_step(name, tmp_path):
    model, trainer, messages, checkpoint = run(name, tmp_path)
    assert len(model.losses) == 8
    assert model.seen[0] == ("_MockOptimizer", "No Optimizer")
    assert trainer.global_step == 0
    assert messages.count(NONE_WARNING) == 1
    assert checkpoint["optimizer_states"] == [{}]


@pytest.mark.parametrize("name", engines())
def test_manual_optimization_still_needs_configure_optimizers(name, tmp_path):
    with pytest.raises(Exception, match="No `configure_optimizers\\(\\)` method defined"):
        run(name, tmp_path, define_configure_optimizers=False)


@pytest.mark.lightning
def test_a_hand_update_trains_exactly_as_lightning(tmp_path):
    ours, *_ = run("ours", tmp_path)
    theirs, *_ = run("lightning", tmp_path)
    assert ours.losses == theirs.losses
    for mine, reference in zip(ours.net.parameters(), theirs.net.parameters()):
        assert torch.equal(mine, reference)
