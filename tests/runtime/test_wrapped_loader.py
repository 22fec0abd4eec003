"""A loader wrapped in an iterable that maps each batch (the nn tutorial's WrappedDataLoader,
which the migrator keeps and passes to `fit`): the runtime iterates it as Lightning does --
the object itself (no sampler injected, not rebuilt), one `iter()` per epoch and pass, the
number of batches from its `len()` -- and, seeded, both give the same losses bit for bit."""

from __future__ import annotations

import warnings

import pytest
import torch
from runtime_engines import QUIET, engine, engines, loaders, make_model


class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func
        self.iters = 0

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        self.iters += 1
        for b in self.dl:
            yield self.func(*b)


def _preprocess(x, y):
    return x.view(-1, 6), y


def _fit(name):
    L = engine(name)
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        L.seed_everything(7, verbose=False)
        model = make_model(L)
        train, val = loaders()
        train, val = WrappedDataLoader(train, _preprocess), WrappedDataLoader(val, _preprocess)
        trainer = L.Trainer(**QUIET, accelerator="cpu", devices=1, max_epochs=2)
        trainer.fit(model, train, val)
    return model, trainer, train, val


@pytest.mark.parametrize("name", engines())
def test_wrapper_is_iterated_itself_once_per_epoch(name):
    model, trainer, train, val = _fit(name)
    assert trainer.train_dataloader is train
    assert train.iters == 2  # one pass per epoch
    assert val.iters == 3  # the sanity check, then once per epoch
    assert trainer.num_training_batches == len(train) == 6
    assert len(model.losses) == 12


@pytest.mark.lightning
def test_wrapped_loader_losses_identical_to_lightning():
    ours, *_ = _fit("ours")
    theirs, *_ = _fit("lightning")
    assert ours.losses == theirs.losses
    assert ours.val_losses == theirs.val_losses
    theirs_params = dict(theirs.named_parameters())
    for key, param in ours.named_parameters():
        assert torch.equal(param, theirs_params[key])
