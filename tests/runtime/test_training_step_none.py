"""`training_step` returning None skips the batch under automatic optimization, exactly as in
Lightning 2.6 (the migrator relies on it for `continue`): the gradients are zeroed, there is no
backward, `optimizer.step` still runs (so nothing moves: every gradient is None) and counts
towards `global_step`, and `on_train_batch_end` receives an empty dict."""

from __future__ import annotations

import warnings

import pytest
import torch
from runtime_engines import QUIET, engine, engines, loaders


def skipping_model(L, skip: set[int], optimizer: str):
    class Skipping(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = torch.nn.Sequential(
                torch.nn.Linear(6, 8), torch.nn.Dropout(0.2), torch.nn.Linear(8, 1)
            )
            self.losses: list[float] = []
            self.batch_ends: list = []
            self.weights: list[torch.Tensor] = []

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.net(x), y)
            self.losses.append(loss.item())
            if batch_idx in skip:
                return None
            return loss

        def on_train_batch_end(self, outputs, batch, batch_idx):
            self.batch_ends.append(sorted(outputs) if isinstance(outputs, dict) else outputs)
            self.weights.append(self.net[0].weight.detach().clone())

        def configure_optimizers(self):
            if optimizer == "adam":
                return torch.optim.Adam(self.parameters(), lr=0.05)
            return torch.optim.SGD(self.parameters(), lr=0.05, momentum=0.9)

    return Skipping()


def run(name: str, skip: set[int], optimizer: str):
    L = engine(name)
    L.seed_everything(7)
    model = skipping_model(L, skip, optimizer)
    train, _ = loaders(batch_size=8, n=48)
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=1, **QUIET)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Lightning warns about the None once per process
        trainer.fit(model, train)
    return model, trainer


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("name", engines())
def test_a_none_step_changes_no_weight_and_the_run_goes_on(name, optimizer):
    model, trainer = run(name, {1, 4}, optimizer)
    assert len(model.losses) == 12
    assert trainer.global_step == 12
    assert model.batch_ends[1] == [] and model.batch_ends[0] == ["loss"]
    assert torch.equal(model.weights[1], model.weights[0])  # skipped: nothing moved
    assert not torch.equal(model.weights[2], model.weights[1])


@pytest.mark.lightning
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_a_none_step_trains_exactly_as_lightning(optimizer):
    ours, ours_trainer = run("ours", {0, 3, 7}, optimizer)
    theirs, their_trainer = run("lightning", {0, 3, 7}, optimizer)
    assert ours.losses == theirs.losses
    assert ours.batch_ends == theirs.batch_ends
    assert ours_trainer.global_step == their_trainer.global_step
    for mine, reference in zip(ours.weights, theirs.weights):
        assert torch.equal(mine, reference)
