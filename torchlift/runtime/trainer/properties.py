"""Trainer attributes with Lightning's names and meaning (what callbacks and loggers read)."""

from __future__ import annotations

import math
import os
from typing import Any, Optional, Union

import torch

from torchlift.runtime.trainer.states import RunningStage, TrainerFn, TrainerStatus


class _TrainerProperties:
    @property
    def default_root_dir(self) -> str:
        return self._default_root_dir if self._default_root_dir is not None else os.getcwd()

    @property
    def max_epochs(self) -> int:
        return self.fit_loop.max_epochs

    @property
    def min_epochs(self) -> int:
        return self.fit_loop.min_epochs

    @property
    def current_epoch(self) -> int:
        return self.fit_loop.epoch_progress.current["completed"]

    @property
    def global_step(self) -> int:
        return self.fit_loop.epoch_loop.global_step

    @property
    def is_last_batch(self) -> bool:
        return self.fit_loop.epoch_loop.batch_progress.is_last_batch

    @property
    def _batches_that_stepped(self) -> int:
        return self.fit_loop.epoch_loop._batches_that_stepped

    @property
    def global_rank(self) -> int:
        return self.strategy.global_rank

    @property
    def local_rank(self) -> int:
        return self.strategy.local_rank

    @property
    def node_rank(self) -> int:
        return self.strategy.node_rank

    @property
    def world_size(self) -> int:
        return self.strategy.world_size

    @property
    def is_global_zero(self) -> bool:
        return self.strategy.is_global_zero

    @property
    def num_devices(self) -> int:
        return len(self._devices)

    @property
    def device_ids(self) -> list[int]:
        return list(self._devices)

    @property
    def model(self):
        wrapped = getattr(self.strategy, "model", None)
        return wrapped if wrapped is not None else self.lightning_module

    @property
    def training(self) -> bool:
        return self.state.stage == RunningStage.TRAINING

    @training.setter
    def training(self, value: bool) -> None:
        if value:
            self.state.stage = RunningStage.TRAINING
        elif self.training:
            self.state.stage = None

    @property
    def validating(self) -> bool:
        return self.state.stage == RunningStage.VALIDATING

    @validating.setter
    def validating(self, value: bool) -> None:
        if value:
            self.state.stage = RunningStage.VALIDATING
        elif self.validating:
            self.state.stage = None

    @property
    def testing(self) -> bool:
        return self.state.stage == RunningStage.TESTING

    @testing.setter
    def testing(self, value: bool) -> None:
        if value:
            self.state.stage = RunningStage.TESTING
        elif self.testing:
            self.state.stage = None

    @property
    def predicting(self) -> bool:
        return self.state.stage == RunningStage.PREDICTING

    @predicting.setter
    def predicting(self, value: bool) -> None:
        if value:
            self.state.stage = RunningStage.PREDICTING
        elif self.predicting:
            self.state.stage = None

    @property
    def evaluating(self) -> bool:
        return self.state.stage is not None and self.state.stage.evaluating

    @property
    def interrupted(self) -> bool:
        return self.state.status == TrainerStatus.INTERRUPTED

    @property
    def enable_validation(self) -> bool:
        module = self.lightning_module
        return (
            self._enable_validation
            and module is not None
            and self._module_overrides("validation_step")
            and self.limit_val_batches > 0
            and self._has_data_source("val")
        )

    def _has_data_source(self, kind: str) -> bool:
        """Lightning's `_data_source.is_defined()`: loaders passed, or a *_dataloader method."""
        if getattr(self, f"_{kind}_source") is not None:
            return True
        from torchlift.runtime.core.datamodule import LightningDataModule
        from torchlift.runtime.core.module import LightningModule

        name = f"{kind}_dataloader"
        for provider, base in (
            (self.datamodule, LightningDataModule),
            (self.lightning_module, LightningModule),
        ):
            if provider is not None and getattr(type(provider), name, None) is not getattr(
                base, name, None
            ):
                return True
        return False

    @property
    def logger(self):
        return self.loggers[0] if self.loggers else None

    @logger.setter
    def logger(self, logger) -> None:
        self.loggers = [] if logger is None else [logger]

    @property
    def log_dir(self) -> Optional[str]:
        if not self.loggers:
            return self.default_root_dir
        logger = self.loggers[0]
        directory = getattr(logger, "log_dir", None) or getattr(logger, "save_dir", None)
        return (
            self.strategy.broadcast(directory) if directory is not None else self.default_root_dir
        )

    @property
    def checkpoint_callbacks(self) -> list:
        from torchlift.runtime.callbacks.checkpoint import Checkpoint

        return [c for c in self.callbacks if isinstance(c, Checkpoint)]

    @property
    def checkpoint_callback(self):
        callbacks = self.checkpoint_callbacks
        return callbacks[0] if callbacks else None

    @property
    def early_stopping_callbacks(self) -> list:
        from torchlift.runtime.callbacks.early_stopping import EarlyStopping

        return [c for c in self.callbacks if isinstance(c, EarlyStopping)]

    @property
    def early_stopping_callback(self):
        callbacks = self.early_stopping_callbacks
        return callbacks[0] if callbacks else None

    @property
    def progress_bar_callback(self):
        from torchlift.runtime.callbacks.progress import ProgressBar

        for callback in self.callbacks:
            if isinstance(callback, ProgressBar):
                return callback
        return None

    @property
    def ckpt_path(self) -> Optional[str]:
        return getattr(self, "_ckpt_path", None)

    @property
    def estimated_stepping_batches(self) -> Union[int, float]:
        if (
            self.fit_loop.fetcher is None
            and self.lightning_module is not None
            and self.state.fn == TrainerFn.FITTING
        ):
            self.fit_loop.setup_data()
        batches = self.num_training_batches
        if batches == float("inf"):
            return float("inf") if self.max_steps == -1 else self.max_steps
        per_epoch = math.ceil(batches / self.accumulate_grad_batches)
        total = per_epoch * max(self.max_epochs, 1) if self.max_epochs != -1 else float("inf")
        return total if self.max_steps == -1 else min(total, self.max_steps)

    # --- metrics (kept as tensors until read) --------------------------------------------------------
    def _live_step_metrics(self) -> tuple[dict, dict, dict]:
        if self.training or (self.state.fn == TrainerFn.FITTING and self.training_started):
            return self._train_results.step_metrics()
        return {}, {}, {}

    @property
    def callback_metrics(self) -> dict[str, Any]:
        live = self._live_step_metrics()[0]
        merged = {**self._callback_metrics, **live} if live else dict(self._callback_metrics)
        if self._train_epoch_end_reached:
            # Lightning computes the epoch aggregates as soon as the epoch's batches are done, so
            # on_train_epoch_end callbacks (EarlyStopping, ModelCheckpoint) can monitor them.
            merged.update(self._train_results.epoch_metrics(self.strategy.reduce, final=False)[0])
        return _WriteThroughMetrics(merged, self._callback_metrics)

    @property
    def progress_bar_metrics(self) -> dict[str, float]:
        live = self._live_step_metrics()[2]
        merged = {**self._progress_bar_metrics, **live}
        return {k: (v.item() if isinstance(v, torch.Tensor) else v) for k, v in merged.items()}

    @property
    def logged_metrics(self) -> dict[str, Any]:
        return dict(self._logged_metrics)


class _WriteThroughMetrics(dict):
    """The merged view `callback_metrics` returns. Lightning hands out its own dict, so what a
    callback writes into it stays visible to later callbacks; writes here go to the store too."""

    def __init__(self, merged: dict[str, Any], store: dict[str, Any]) -> None:
        super().__init__(merged)
        self._store = store

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self._store[key] = value

    def update(self, *args: Any, **kwargs: Any) -> None:
        values = dict(*args, **kwargs)
        super().update(values)
        self._store.update(values)
