"""Every Trainer argument the runtime accepts acts as in Lightning or is refused with a
one-line error naming it: `devices="auto"`, `reload_dataloaders_every_n_epochs`,
`use_distributed_sampler`, `seed_everything(workers=True)`, `profiler`, `plugins`."""

from __future__ import annotations

import warnings

import pytest
import torch
from runtime_engines import QUIET, engine, engines
from torch.utils.data import DataLoader, Dataset, TensorDataset

import torchlift.runtime as ours
from torchlift.runtime.errors import MisconfigurationException


class RandomItems(Dataset):
    """Each item draws from the worker's generator: the values show how workers were seeded."""

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.rand(2), torch.tensor([float(index)])


def _module(L, grow_loader: bool = False):
    class Recording(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(2, 1)
            self.seen: list = []

        def training_step(self, batch, batch_idx):
            x, y = batch
            self.seen.append((self.current_epoch, x.sum().item()))
            return torch.nn.functional.mse_loss(self.layer(x), y)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

        def train_dataloader(self):
            # one more batch every time the Trainer asks again
            n = 4 * (len({epoch for epoch, _ in self.seen}) + 1) if grow_loader else 8
            data = TensorDataset(torch.randn(n, 2), torch.randn(n, 1))
            return DataLoader(data, batch_size=4)

    return Recording()


def _fit(name, module, loader=None, **trainer_args):
    L = engine(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer = L.Trainer(**{**QUIET, "accelerator": "cpu", "max_epochs": 3, **trainer_args})
        trainer.fit(module, loader)
    return trainer


@pytest.mark.parametrize("name", engines())
def test_devices_auto_is_one_device_on_cpu(name):
    L = engine(name)
    trainer = L.Trainer(**QUIET, accelerator="cpu", devices="auto")
    assert trainer.num_devices == 1


def test_devices_auto_on_cuda_is_every_visible_gpu(monkeypatch):
    from torchlift.runtime.trainer import connector

    monkeypatch.setattr(torch.cuda, "device_count", lambda: 3)
    assert connector.resolve_devices("auto", "cuda") == [0, 1, 2]
    assert connector.resolve_devices("auto", "cpu") == [0]


@pytest.mark.parametrize("every", [0, 1, 2])
def test_reload_dataloaders_every_n_epochs_like_lightning(every):
    """The train_dataloader() hook is asked again every n epochs: batches per epoch match."""
    runs = {}
    for name in ("ours", "lightning"):
        L = engine(name)
        L.seed_everything(3, verbose=False)
        module = _module(L, grow_loader=True)
        _fit(name, module, reload_dataloaders_every_n_epochs=every)
        runs[name] = [epoch for epoch, _ in module.seen]
    assert runs["ours"] == runs["lightning"]
    if every:
        assert len(runs["ours"]) > 3  # the reload took effect (3 batches without it)


@pytest.mark.parametrize("name", engines())
def test_use_distributed_sampler_false_leaves_the_loader_alone(name):
    L = engine(name)
    trainer = L.Trainer(**QUIET, accelerator="cpu", devices=1, use_distributed_sampler=False)
    loader = DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=4, shuffle=True)
    if name == "ours":
        assert trainer._prepare_loader(loader, "fit").sampler is loader.sampler


def test_seed_everything_workers_seeds_workers_like_lightning():
    """seed_everything(workers=True): loader workers get Lightning's seeds (same values)."""
    runs = {}
    for name in ("ours", "lightning"):
        L = engine(name)
        L.seed_everything(11, workers=True, verbose=False)
        module = _module(L)
        loader = DataLoader(RandomItems(), batch_size=4, num_workers=2)
        _fit(name, module, loader, max_epochs=1, devices=1)
        runs[name] = module.seen
        assert loader.worker_init_fn is not None
    assert runs["ours"] == runs["lightning"]
    ours.seed_everything(11, workers=False, verbose=False)


@pytest.mark.parametrize("argument, value", [("profiler", "simple"), ("plugins", [object()])])
def test_unsupported_arguments_are_refused_by_name(argument, value):
    with pytest.raises(MisconfigurationException, match=f"^Trainer\\({argument}="):
        ours.Trainer(**QUIET, accelerator="cpu", **{argument: value})
