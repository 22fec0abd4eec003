"""Each entry point (`fit`, `validate`, `test`, `predict`) holds only its own loaders: a hook
reading `trainer.train_dataloader` while testing after a `fit` gets None, as on Lightning,
whose data connector clears every stage's loader when an entry point attaches its data."""

from __future__ import annotations

import pytest
import torch
from runtime_engines import QUIET, engine, engines, loaders

_ATTRIBUTES = ("train_dataloader", "val_dataloaders", "test_dataloaders", "predict_dataloaders")


def _module(L, seen: list):
    class Regression(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = torch.nn.Linear(6, 1)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.mse_loss(self.net(x), y)

        def validation_step(self, batch, batch_idx):
            pass

        def test_step(self, batch, batch_idx):
            pass

        def predict_step(self, batch, batch_idx):
            return self.net(batch[0])

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.05)

        def _held(self, where: str) -> None:
            seen.append((where, tuple(getattr(self.trainer, a) is not None for a in _ATTRIBUTES)))

        def on_train_start(self):
            self._held("fit")

        def on_test_start(self):
            self._held("test")

        def on_validation_start(self):
            self._held("fit validation" if self.trainer.state.fn.value == "fit" else "validate")

        def on_predict_start(self):
            self._held("predict")

    return Regression()


@pytest.mark.parametrize("name", engines())
def test_each_entry_point_holds_only_its_loaders(name):
    L = engine(name)
    seen: list = []
    model = _module(L, seen)
    train, val = loaders()
    trainer = L.Trainer(max_epochs=1, num_sanity_val_steps=0, **QUIET)
    trainer.fit(model, train, val)
    trainer.test(model, val, verbose=False)
    trainer.validate(model, val, verbose=False)
    trainer.predict(model, val)
    # a second fit without validation data (no epoch left to run): no loader left over
    trainer.fit(model, train)
    held = [(where, flags) for where, flags in seen if where != "fit validation"]
    assert held == [
        ("fit", (True, True, False, False)),
        ("test", (False, False, True, False)),
        ("validate", (False, True, False, False)),
        ("predict", (False, False, False, True)),
    ]
    assert tuple(getattr(trainer, a) is not None for a in _ATTRIBUTES) == (
        True,
        False,
        False,
        False,
    )
