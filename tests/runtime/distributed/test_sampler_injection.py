"""DistributedSampler injection: shards; training always shuffles (as Lightning), evaluation only
where the original shuffled; seed."""

from __future__ import annotations

import pytest
import torch
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, TensorDataset

from torchlift.runtime.distributed import inject_distributed_sampler


def dataset(n=10):
    return TensorDataset(torch.arange(n))


def indices(loader):
    return [int(i) for (batch,) in loader for i in batch]


@pytest.mark.parametrize("stage", ["validate", "test"])
def test_sequential_loader_is_sharded_without_shuffle(stage):
    loader = DataLoader(dataset(), batch_size=2)
    shards = [indices(inject_distributed_sampler(loader, stage, 2, rank)) for rank in (0, 1)]
    assert shards == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]


def test_training_loader_shuffles_even_if_built_without(monkeypatch):
    # Lightning 2.6 `_process_dataloader`: `is_shuffled = True` for the training stage.
    monkeypatch.setenv("PL_GLOBAL_SEED", "5")
    loader = DataLoader(dataset(), batch_size=2)
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(5)).tolist()
    shards = [indices(inject_distributed_sampler(loader, "fit", 2, rank)) for rank in (0, 1)]
    assert shards == [perm[0::2], perm[1::2]]
    # ... except under overfit_batches, whose batches stay the same (`shuffle and not overfit`).
    kept = [indices(inject_distributed_sampler(loader, "fit", 2, r, overfit=True)) for r in (0, 1)]
    assert kept == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]


def test_shuffled_loader_uses_the_global_seed_and_epoch(monkeypatch):
    monkeypatch.setenv("PL_GLOBAL_SEED", "7")
    loader = DataLoader(dataset(), batch_size=2, shuffle=True, drop_last=True)
    new = [inject_distributed_sampler(loader, "fit", 2, rank) for rank in (0, 1)]
    assert all(isinstance(dl.sampler, DistributedSampler) for dl in new)
    assert new[0].sampler.shuffle and new[0].sampler.seed == 7
    assert new[0].batch_size == 2 and new[0].drop_last
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(7)).tolist()
    assert indices(new[0]) == perm[0::2][:4]  # drop_last: 5 samples -> 2 batches of 2
    for dl in new:
        dl.sampler.set_epoch(1)
    perm1 = torch.randperm(10, generator=torch.Generator().manual_seed(8)).tolist()
    assert indices(new[1]) == perm1[1::2][:4]


def test_one_process_gets_the_whole_permutation(monkeypatch):
    # DDP with one process (the reference of the equivalence tests) still shuffles by seed.
    monkeypatch.setenv("PL_GLOBAL_SEED", "3")
    loader = DataLoader(dataset(), batch_size=10, shuffle=True)
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(3)).tolist()
    assert indices(inject_distributed_sampler(loader, "fit", 1, 0)) == perm


def test_padding_and_predict_without_padding():
    loader = DataLoader(dataset(5), batch_size=3)
    assert indices(inject_distributed_sampler(loader, "test", 2, 1)) == [1, 3, 0]  # padded
    predicted = [indices(inject_distributed_sampler(loader, "predict", 2, r)) for r in (0, 1)]
    assert sorted(predicted[0] + predicted[1]) == [0, 1, 2, 3, 4]


def test_left_alone():
    own = DataLoader(dataset(), sampler=DistributedSampler(dataset(), 2, 0, shuffle=False))
    assert inject_distributed_sampler(own, "fit", 2, 1) is own

    class Stream(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    iterable = DataLoader(Stream())
    assert inject_distributed_sampler(iterable, "fit", 2, 0) is iterable
    assert inject_distributed_sampler([1, 2], "fit", 2, 0) == [1, 2]


def test_loader_settings_survive():
    def collate(items):
        return torch.stack([item[0] for item in items]) * 10

    loader = DataLoader(dataset(), batch_size=4, collate_fn=collate, drop_last=False)
    new = inject_distributed_sampler(loader, "validate", 2, 0)
    assert [b.tolist() for b in new] == [[0, 20, 40, 60], [80]]


def test_custom_samplers_are_a_clear_error():
    weighted = torch.utils.data.WeightedRandomSampler([1.0] * 10, 10)
    with pytest.raises(ValueError, match="custom sampler WeightedRandomSampler"):
        inject_distributed_sampler(DataLoader(dataset(), sampler=weighted), "fit", 2, 0)

    class Buckets(BatchSampler):
        pass

    custom = Buckets(range(10), batch_size=2, drop_last=False)
    with pytest.raises(ValueError, match="custom batch_sampler Buckets"):
        inject_distributed_sampler(DataLoader(dataset(), batch_sampler=custom), "fit", 2, 0)
