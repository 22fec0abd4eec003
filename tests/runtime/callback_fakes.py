"""A stand-in trainer exposing the attributes callbacks read, under Lightning's names.

It drives our callbacks and Lightning's through the same hook sequence, so their decisions can be
compared without running either trainer. `simulate_fit` mimics Lightning 2.x's order: optimizer
step -> `on_train_batch_end`, validation at the end of the epoch (`on_validation_end`), then
`on_train_epoch_end`.
"""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Any, Iterable

import torch


class FakeStrategy:
    root_device = torch.device("cpu")

    def broadcast(self, obj: Any, src: int = 0) -> Any:
        return obj

    def reduce_boolean_decision(self, decision: bool, all: bool = True) -> bool:
        return decision

    def barrier(self, name: str | None = None) -> None:
        pass

    def remove_checkpoint(self, filepath: str) -> None:
        if os.path.lexists(filepath):
            os.remove(filepath)


class FakeTrainer:
    def __init__(
        self,
        root: str,
        loggers: Iterable[Any] = (),
        num_val_batches: Iterable[int] = (2,),
        val_check_interval: float = 1.0,
        check_val_every_n_epoch: int = 1,
        log_every_n_steps: int = 1,
    ) -> None:
        self.callback_metrics: dict[str, torch.Tensor] = {}
        self.progress_bar_metrics: dict[str, float] = {}
        self.current_epoch = 0
        self.global_step = 0
        self.max_epochs = 10
        self.max_steps = -1
        self.fast_dev_run = False
        self.sanity_checking = False
        self.should_stop = False
        self.state = SimpleNamespace(fn="fit", stage="train")
        self.strategy = FakeStrategy()
        self.is_global_zero = True
        self.global_rank = 0
        self.world_size = 1
        self.loggers = list(loggers)
        self.logger = self.loggers[0] if self.loggers else None
        self.default_root_dir = str(root)
        self.ckpt_path = None
        self.num_val_batches = list(num_val_batches)
        self.num_training_batches = 3
        self.val_check_interval = val_check_interval
        self.check_val_every_n_epoch = check_val_every_n_epoch
        self.enable_validation = sum(self.num_val_batches) > 0
        self.log_every_n_steps = log_every_n_steps
        self.lr_scheduler_configs: list = []
        self.optimizers: list = []
        self.lightning_module = SimpleNamespace(automatic_optimization=True)
        epoch_loop = SimpleNamespace(
            val_loop=SimpleNamespace(_has_run=False),
            batch_progress=SimpleNamespace(is_last_batch=False),
            _batches_that_stepped=0,
        )
        self.fit_loop = SimpleNamespace(epoch_loop=epoch_loop)
        self._logger_connector = SimpleNamespace(should_update_logs=True)
        self.saved: list[tuple[str, int]] = []

    def save_checkpoint(self, filepath: str, weights_only: bool = False) -> None:
        os.makedirs(os.path.dirname(filepath), exist_ok=True)
        torch.save({"global_step": self.global_step, "weights_only": weights_only}, filepath)
        self.saved.append((filepath, self.global_step))


def simulate_fit(
    callback: Any,
    trainer: FakeTrainer,
    val_metrics: list[dict[str, float]],
    steps_per_epoch: int = 3,
) -> None:
    """One epoch per entry of `val_metrics` (the metrics validation produces at its end)."""
    module = trainer.lightning_module
    loop = trainer.fit_loop.epoch_loop
    callback.setup(trainer, module, "fit")
    callback.on_fit_start(trainer, module)
    callback.on_train_start(trainer, module)
    for epoch, metrics in enumerate(val_metrics):
        trainer.current_epoch = epoch
        callback.on_train_epoch_start(trainer, module)
        for batch_idx in range(steps_per_epoch):
            loop.batch_progress.is_last_batch = batch_idx == steps_per_epoch - 1
            callback.on_train_batch_start(trainer, module, None, batch_idx)
            trainer.global_step += 1
            loop._batches_that_stepped += 1
            trainer.callback_metrics["train_loss"] = torch.tensor(1.0 / trainer.global_step)
            callback.on_train_batch_end(trainer, module, None, None, batch_idx)
        if trainer.enable_validation:
            callback.on_validation_start(trainer, module)
            loop.val_loop._has_run = True
            trainer.callback_metrics.update({k: torch.tensor(v) for k, v in metrics.items()})
            callback.on_validation_end(trainer, module)
        callback.on_train_epoch_end(trainer, module)
        if trainer.should_stop:
            break
    callback.on_train_end(trainer, module)
    callback.on_fit_end(trainer, module)
