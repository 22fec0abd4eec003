"""set_epoch reaches a loader's DistributedSampler at the start of every epoch, on one process,
as in Lightning: without it every epoch of a DDP run replays the first epoch's shuffle. The
multi-process tests see this too, but only after an epoch boundary and at a cost of seconds."""

from __future__ import annotations

import pytest
import torch
from runtime_engines import QUIET, engine, engines, make_data, make_model
from torch.utils.data import DataLoader, DistributedSampler


class RecordingSampler(DistributedSampler):
    """A one-replica DistributedSampler that notes its epoch whenever a pass over it starts."""

    def __init__(self, dataset) -> None:
        super().__init__(dataset, num_replicas=1, rank=0, shuffle=True, seed=5)
        self.epochs_iterated: list[int] = []

    def __iter__(self):
        self.epochs_iterated.append(self.epoch)
        return super().__iter__()


@pytest.mark.parametrize("name", engines())
def test_each_epoch_sets_the_sampler_epoch(name):
    L = engine(name)
    torch.manual_seed(0)
    sampler = RecordingSampler(make_data())
    trainer = L.Trainer(**QUIET, accelerator="cpu", devices=1, max_epochs=3)
    trainer.fit(make_model(L), DataLoader(make_data(), batch_size=8, sampler=sampler))
    assert sampler.epochs_iterated == [0, 1, 2]
