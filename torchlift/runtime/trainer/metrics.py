"""Routing of `self.log` values: ResultStore -> callback_metrics / progress bar / loggers.

Values stay tensors; `.item()` happens only when a logger writes (every `log_every_n_steps`)."""

from __future__ import annotations

from typing import Any, Optional

import torch

from torchlift.runtime.core.results import extract_batch_size
from torchlift.runtime.utilities.rank_zero import rank_zero_warn


class _MetricsRouting:
    def _on_batch_start(self, batch: Any) -> None:
        self._current_batch = batch
        self._current_batch_size = None

    def _batch_size(self) -> int:
        if self._current_batch_size is None:
            size = extract_batch_size(self._current_batch)
            if size is None:
                rank_zero_warn(
                    "self.log: could not infer the batch size; using 1 (pass batch_size=...)"
                )
                size = 1
            self._current_batch_size = size
        return self._current_batch_size

    def _log(
        self,
        name: str,
        value: Any,
        *,
        prog_bar: bool,
        logger: bool,
        on_step: Optional[bool],
        on_epoch: Optional[bool],
        reduce_fx: str,
        sync_dist: bool,
        batch_size: Optional[int],
    ) -> None:
        if self.state.fn is None:
            return
        default_step = self._log_on_step_default
        on_step = default_step if on_step is None else on_step
        on_epoch = (not default_step) if on_epoch is None else on_epoch
        if self._eval_dataloader_suffix and self._active_results is self._eval_results:
            name = name + self._eval_dataloader_suffix
        self._active_results.log(
            name,
            value,
            on_step,
            on_epoch,
            prog_bar,
            logger,
            reduce_fx,
            sync_dist and self.world_size > 1,
            batch_size,
            self._batch_size,
            self.strategy.reduce,
            self.strategy.root_device,
        )

    @property
    def _should_update_logs(self) -> bool:
        every = self.log_every_n_steps
        n = self.fit_loop.epoch_loop._batches_that_stepped + 1
        return bool(every) and (n % every == 0) or self.should_stop

    def _update_train_step_metrics(self) -> None:
        if not self.loggers:
            return
        if self.fit_loop._should_accumulate() and self.lightning_module.automatic_optimization:
            return
        if self._should_update_logs or self.fast_dev_run:
            _, log, _ = self._train_results.step_metrics()
            if log:
                self._log_metrics(log)

    def _commit_train_epoch_metrics(self) -> None:
        step_callback, step_log, step_pbar = self._train_results.step_metrics()
        callback, log, pbar = self._train_results.epoch_metrics(self.strategy.reduce)
        self._callback_metrics.update(step_callback)
        self._callback_metrics.update(callback)
        self._progress_bar_metrics.update(step_pbar)
        self._progress_bar_metrics.update(pbar)
        if log:
            self.fit_loop.epoch_loop._batches_that_stepped -= 1
            self._log_metrics(log)
            self.fit_loop.epoch_loop._batches_that_stepped += 1
        # step values were committed; the next epoch starts a fresh store
        self._train_results.reset()
        self._train_epoch_end_reached = False

    def _commit_eval_epoch_metrics(self) -> dict[str, Any]:
        callback, log, pbar = self._eval_results.epoch_metrics(self.strategy.reduce)
        if self.sanity_checking:
            return {}
        # Lightning: epoch values only (step values went to the loggers batch by batch)
        self._callback_metrics.update(callback)
        self._progress_bar_metrics.update(pbar)
        self._logged_metrics.update(log)
        if log:
            self._log_metrics(log)
        return dict(log)  # what validate()/test() return, as Lightning

    def _log_eval_step_metrics(self, dataloader_idx: int) -> None:
        """Eval values logged with on_step=True go to the loggers after each batch (Lightning)."""
        seen = self._eval_batches_seen.get(dataloader_idx, 0)
        self._eval_batches_seen[dataloader_idx] = seen + 1
        if not self.loggers:
            return
        _, log, _ = self._eval_results.fresh_step_metrics()
        if log:
            self._log_metrics(log, step=seen)

    def _log_metrics(self, metrics: dict[str, Any], step: Optional[int] = None) -> None:
        if not self.loggers:
            return
        self._logged_metrics.update(metrics)
        scalars = {k: (v.item() if isinstance(v, torch.Tensor) else v) for k, v in metrics.items()}
        if step is None:
            step = scalars.pop("step", None)
        if step is None:
            scalars.setdefault("epoch", self.current_epoch)
            step = self.fit_loop.epoch_loop._batches_that_stepped
        for logger in self.loggers:
            logger.log_metrics(metrics=scalars, step=int(step))
            logger.save()

    def _log_hyperparams(self) -> None:
        if not self.loggers or not self.enable_autolog_hparams:
            return
        module = self.lightning_module
        hparams: dict[str, Any] = {}
        if getattr(module, "_log_hyperparams", False):
            hparams.update(module.hparams_initial)
        if self.datamodule is not None and getattr(self.datamodule, "_log_hyperparams", False):
            hparams.update(self.datamodule.hparams_initial)
        for logger in self.loggers:
            if hparams:
                logger.log_hyperparams(hparams)
            if hasattr(logger, "log_graph"):
                try:
                    logger.log_graph(module)
                except Exception:  # noqa: BLE001 - a graph is a nicety
                    pass
            logger.save()
