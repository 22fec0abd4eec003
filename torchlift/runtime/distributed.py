"""Give each rank its own shard of a DataLoader by re-creating it with a distributed sampler.

- train / val / test loaders get `DistributedSampler(dataset, num_replicas, rank, shuffle, seed)`:
  a training loader always shuffles, as Lightning's `_process_dataloader` decides (even one
  built with `shuffle=False`), unless `overfit_batches` is set; val / test loaders shuffle only
  if the original sampler was a `RandomSampler`. The seed is the one `seed_everything` exported
  in PL_GLOBAL_SEED (0 without it), as Lightning reads it, so every rank draws the same
  permutation and takes its own slice.
- predict loaders get a sampler that splits without padding (no sample predicted twice).
- Loaders already using a `DistributedSampler`, iterable datasets and objects that are not
  DataLoaders are returned unchanged. A custom sampler or batch sampler gets a clear error:
  it cannot be split without knowing what it means.
"""

from __future__ import annotations

import os
from typing import Any, Iterator

from torch.utils.data import (
    BatchSampler,
    DataLoader,
    DistributedSampler,
    IterableDataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
)

# DataLoader.__init__ arguments that are stored under the same attribute name.
_LOADER_ATTRIBUTES = (
    "num_workers",
    "collate_fn",
    "pin_memory",
    "timeout",
    "worker_init_fn",
    "multiprocessing_context",
    "generator",
    "prefetch_factor",
    "persistent_workers",
    "pin_memory_device",
    "in_order",
)


class UnpaddedDistributedSampler(Sampler[int]):
    """Indices rank, rank + world, rank + 2*world, ... of the dataset: each sample exactly once."""

    def __init__(self, dataset: Any, num_replicas: int, rank: int) -> None:
        self.num_samples = len(range(rank, len(dataset), num_replicas))
        self.total = len(dataset)
        self.num_replicas = num_replicas
        self.rank = rank

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.rank, self.total, self.num_replicas))

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None: ...


def global_seed() -> int:
    return int(os.environ.get("PL_GLOBAL_SEED", 0))


def _make_sampler(
    loader: DataLoader, stage: str, num_replicas: int, rank: int, overfit: bool
) -> Sampler:
    sampler = loader.sampler
    if not isinstance(sampler, (RandomSampler, SequentialSampler)):
        raise ValueError(
            f"cannot split a DataLoader with the custom sampler {type(sampler).__name__} across "
            f"{num_replicas} processes; use shuffle=True/False, or pass a DistributedSampler"
        )
    if stage == "predict":
        return UnpaddedDistributedSampler(loader.dataset, num_replicas, rank)
    return DistributedSampler(
        loader.dataset,
        num_replicas=num_replicas,
        rank=rank,
        shuffle=(stage == "fit" or isinstance(sampler, RandomSampler)) and not overfit,
        seed=global_seed(),
    )


def inject_distributed_sampler(
    loader: Any, stage: str, num_replicas: int, rank: int, overfit: bool = False
) -> Any:
    """The same loader, iterating only this rank's shard (see the module docstring)."""
    if not isinstance(loader, DataLoader):
        return loader
    if isinstance(loader.dataset, IterableDataset):
        return loader
    if isinstance(loader.sampler, DistributedSampler):
        return loader
    batch_sampler = loader.batch_sampler
    if batch_sampler is not None and type(batch_sampler) is not BatchSampler:
        raise ValueError(
            f"cannot split a DataLoader with the custom batch_sampler "
            f"{type(batch_sampler).__name__} across {num_replicas} processes; shard it yourself "
            f"with a DistributedSampler inside it"
        )
    kwargs = {name: getattr(loader, name) for name in _LOADER_ATTRIBUTES if hasattr(loader, name)}
    if kwargs.get("num_workers", 0) == 0:
        # DataLoader rejects these with num_workers=0 even at their default-looking values.
        kwargs.pop("prefetch_factor", None)
        kwargs["persistent_workers"] = False
    sampler = _make_sampler(loader, stage, num_replicas, rank, overfit)
    batch_size = loader.batch_size
    drop_last = loader.drop_last
    try:
        return type(loader)(
            loader.dataset, batch_size=batch_size, sampler=sampler, drop_last=drop_last, **kwargs
        )
    except TypeError:
        if type(loader) is DataLoader:
            raise
        # A DataLoader subclass with its own __init__: fall back to the plain class.
        return DataLoader(
            loader.dataset, batch_size=batch_size, sampler=sampler, drop_last=drop_last, **kwargs
        )
