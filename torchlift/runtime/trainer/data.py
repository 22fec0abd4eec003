"""Dataloaders: where they come from, how many batches run, how batches reach the device."""

from __future__ import annotations

import inspect
from typing import Any, Union

from torchlift.runtime.errors import MisconfigurationException
from torchlift.runtime.trainer.fetcher import sized_len
from torchlift.runtime.utilities.rank_zero import rank_zero_warn


def _accepts_positional(fn, count: int) -> bool:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= count


class _DataConnector:
    def _request_dataloader(self, kind: str) -> Any:
        source = getattr(self, f"_{kind}_source")
        if source is not None:
            return source
        name = f"{kind}_dataloader"
        for provider in (self.datamodule, self.lightning_module):
            if provider is None:
                continue
            method = getattr(type(provider), name, None)
            if method is None:
                continue
            from torchlift.runtime.core.datamodule import LightningDataModule
            from torchlift.runtime.core.module import LightningModule

            base = (
                LightningDataModule
                if isinstance(provider, LightningDataModule)
                else LightningModule
            )
            if getattr(base, name, None) is method:
                continue
            return getattr(provider, name)()
        return None

    def _prepare_loader(self, loader: Any, stage: str) -> Any:
        from torchlift.runtime.seed import auto_add_worker_init_fn

        if stage == "fit" and self.overfit_batches:
            loader = _without_shuffle(loader)
        if self._use_distributed_sampler:
            loader = self.strategy.process_dataloader(loader, stage, bool(self.overfit_batches))
        auto_add_worker_init_fn(loader, self.global_rank)
        return loader

    def _limit_batches(self, loader: Any, limit: Union[int, float], name: str) -> float:
        length = sized_len(loader)
        if isinstance(limit, int):
            return limit if length is None else min(length, limit)
        if length is None:
            if limit in (0.0, 1.0):
                return float("inf") if limit == 1.0 else 0
            raise MisconfigurationException(
                f"Trainer({name}={limit}) as a fraction needs a dataloader with a length; pass an int instead"
            )
        batches = int(length * limit)
        if limit > 0 and batches == 0 and length > 0:
            raise MisconfigurationException(
                f"Trainer({name}={limit}) gives 0 of {length} batches; pass a larger fraction or an int"
            )
        return batches

    def _as_loader_list(self, loaders: Any) -> list:
        if loaders is None:
            return []
        if isinstance(loaders, dict):
            return list(loaders.values())
        if isinstance(loaders, (list, tuple)):
            return list(loaders)
        return [loaders]

    def _setup_validation_data_if_needed(self) -> None:
        if self.val_dataloaders is None and self.enable_validation:
            self._setup_eval_data("val")

    def _setup_eval_data(self, kind: str) -> tuple[list, list]:
        stage = {"val": "validate", "test": "test", "predict": "predict"}[kind]
        self._eval_batches_seen = {}  # Lightning restarts the eval logging step with the data
        loaders = [
            self._prepare_loader(l, stage)
            for l in self._as_loader_list(self._request_dataloader(kind))
        ]
        limit = {
            "val": self.limit_val_batches,
            "test": self.limit_test_batches,
            "predict": self.limit_predict_batches,
        }[kind]
        limits = [self._limit_batches(l, limit, f"limit_{kind}_batches") for l in loaders]
        attr = {
            "val": "val_dataloaders",
            "test": "test_dataloaders",
            "predict": "predict_dataloaders",
        }[kind]
        setattr(self, attr, loaders[0] if len(loaders) == 1 else loaders)
        setattr(self, f"num_{kind}_batches", limits)
        return loaders, limits

    def _transfer_batch(self, batch: Any, dataloader_idx: int) -> Any:
        batch = self.precision_plugin.convert_input(batch)
        if not self._batch_transfer_needed:
            return batch  # tensors from a CPU loader are already where they must be
        module = self.lightning_module
        device = self.strategy.root_device
        providers = [p for p in (self.datamodule, module) if p is not None]
        for provider in providers:
            batch = provider.on_before_batch_transfer(batch, dataloader_idx)
        transfer = (
            module
            if self._module_overrides("transfer_batch_to_device") or self.datamodule is None
            else self.datamodule
        )
        batch = transfer.transfer_batch_to_device(batch, device, dataloader_idx)
        for provider in providers:
            batch = provider.on_after_batch_transfer(batch, dataloader_idx)
        return batch

    def _eval_step_args(self, step_fn, args: tuple) -> tuple:
        # Lightning passes batch_idx only if the step accepts it.
        key = getattr(step_fn, "__name__", "")
        cached = self._module_hook_cache.get(("nargs", key))  # type: ignore[call-overload]
        if cached is None:
            cached = _accepts_positional(step_fn, len(args))
            self._module_hook_cache[("nargs", key)] = cached  # type: ignore[index]
        if cached:
            return args
        return args[:1] if not _accepts_positional(step_fn, 2) else args[:2]


def _without_shuffle(loader: Any) -> Any:
    """overfit_batches: same batches every epoch, as Lightning replaces the sampler by a sequential one."""
    from torch.utils.data import DataLoader, RandomSampler, SequentialSampler

    if not isinstance(loader, DataLoader) or not isinstance(loader.sampler, RandomSampler):
        return loader
    rank_zero_warn(
        "You requested to overfit but enabled training dataloader shuffling. We are turning off the "
        "training dataloader shuffling for you."
    )
    return DataLoader(
        loader.dataset,
        batch_size=loader.batch_size,
        sampler=SequentialSampler(loader.dataset),
        num_workers=loader.num_workers,
        collate_fn=loader.collate_fn,
        pin_memory=loader.pin_memory,
        drop_last=loader.drop_last,
        timeout=loader.timeout,
        worker_init_fn=loader.worker_init_fn,
    )
