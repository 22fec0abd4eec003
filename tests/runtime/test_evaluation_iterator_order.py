"""An evaluation pass creates its first loader's iterator before its hooks, as Lightning's
EvaluationLoop.reset does: a DataLoader iterator draws its seed from torch's generator, so a
hook drawing random numbers (`on_validation_epoch_start`, `on_test_epoch_start`) gets the
numbers after that draw on both engines, and everything drawn later (the next epoch's shuffle)
is the same."""

from __future__ import annotations

import pytest
import torch
from runtime_engines import QUIET, engine, loaders, make_model
from torch.utils.data import DataLoader

pytestmark = pytest.mark.lightning


def _run(name: str) -> dict:
    L = engine(name)
    base = make_model(L)

    class Drawing(type(base)):
        def on_validation_epoch_start(self):
            self.drawn.append(torch.rand(1).item())

        def on_test_epoch_start(self):
            self.drawn.append(torch.rand(1).item())

        def test_step(self, batch, batch_idx):
            self.validation_step(batch, batch_idx)

    torch.manual_seed(0)
    model = Drawing()
    model.drawn = []
    train, val = loaders()
    shuffled_val = DataLoader(val.dataset, batch_size=8, shuffle=True)
    trainer = L.Trainer(max_epochs=2, num_sanity_val_steps=0, accelerator="cpu", **QUIET)
    trainer.fit(model, train, shuffled_val)
    trainer.test(model, shuffled_val, verbose=False)
    return {
        "drawn": model.drawn,
        "losses": model.losses,
        "val_losses": model.val_losses,
        "after": torch.rand(1).item(),
    }


def test_hooks_draw_after_the_pass_iterator_as_on_lightning():
    ours, theirs = _run("ours"), _run("lightning")
    assert len(ours["drawn"]) == 3
    assert ours == theirs
