"""The training loop: epochs, batches, automatic / manual optimization, scheduler stepping and
validation points, in Lightning 2.x's order (lightning/pytorch/loops/{fit_loop,
training_epoch_loop, optimization/automatic}.py) so per-step losses match it exactly.

Per step this does no copies, no `.item()`, no collectives: only the hooks that are overridden
are called, counters are plain ints, logged values stay tensors.
"""

from __future__ import annotations

import time
from typing import Any, Optional

import torch

from torchlift.runtime.errors import MisconfigurationException
from torchlift.runtime.trainer.fetcher import BatchFetcher
from torchlift.runtime.trainer.progress import FitLoopCounters
from torchlift.runtime.utilities.rank_zero import rank_zero_info, rank_zero_warn


def _is_max_limit_reached(current: int, maximum: int) -> bool:
    return maximum != -1 and current >= maximum


class _Closure:
    """training_step + zero_grad + backward, handed to `optimizer.step(closure)` as Lightning does."""

    automatic = True
    __slots__ = ("loop", "batch", "batch_idx", "optimizer", "zero_grad", "output", "loss")

    def __init__(
        self, loop: "FitLoop", batch: Any, batch_idx: int, optimizer, zero_grad: bool
    ) -> None:
        self.loop = loop
        self.batch = batch
        self.batch_idx = batch_idx
        self.optimizer = optimizer
        self.zero_grad = zero_grad
        self.output: Any = None
        self.loss: Optional[torch.Tensor] = None

    def __call__(self, *args: Any, **kwargs: Any) -> Optional[torch.Tensor]:
        loop = self.loop
        trainer = loop.trainer
        with torch.enable_grad():
            output = trainer._call_training_step(self.batch, self.batch_idx)
            if isinstance(output, torch.Tensor):
                loss = output
            elif isinstance(output, dict):
                loss = output.get("loss")
                if loss is None:
                    raise MisconfigurationException(
                        "training_step returned a dict without a 'loss' key; under automatic optimization it "
                        "must return the loss tensor or a dict with a 'loss' key"
                    )
            elif output is None:
                self._skip(trainer)
                return None
            else:
                raise MisconfigurationException(
                    f"training_step returned {type(output).__name__}; under automatic optimization it must "
                    "return the loss tensor or a dict with a 'loss' key"
                )
            accumulate = trainer.accumulate_grad_batches
            if accumulate != 1:
                loss = loss / accumulate
            if self.zero_grad:
                loop._zero_grad(self.batch_idx, self.optimizer)
            trainer._backward(loss, self.optimizer)
        self.loss = loss.detach()
        self.output = output
        return self.loss

    def _skip(self, trainer) -> None:
        """Lightning's contract for a None step: zero_grad still runs, backward does not, and
        `optimizer.step` goes on with no gradient to apply (so no weight moves)."""
        if trainer.world_size > 1:  # the other ranks would wait in backward's all-reduce
            raise RuntimeError(
                "Skipping the `training_step` by returning None in distributed training is not "
                "supported. It is recommended that you rewrite your training logic to avoid "
                "having to skip the step in the first place."
            )
        rank_zero_warn(
            "`training_step` returned `None`. If this was on purpose, ignore this warning..."
        )
        if self.zero_grad:
            self.loop._zero_grad(self.batch_idx, self.optimizer)

    def outputs(self) -> dict[str, Any]:
        if self.loss is None:  # the step was skipped
            return {}
        if isinstance(self.output, dict):
            return {**self.output, "loss": self.loss}
        return {"loss": self.loss}


class FitLoop(FitLoopCounters):
    def __init__(self, trainer, min_steps: Optional[int], max_steps: int) -> None:
        super().__init__()
        self.trainer = trainer
        self.min_steps = min_steps
        self.max_steps = max_steps
        self.fetcher: Optional[BatchFetcher] = None
        self.max_batches: float = float("inf")
        self._resume: Optional[dict[str, Any]] = None  # set by the checkpoint restore
        self._skip_rest_of_epoch = False
        self._validation_enabled = False
        self._deadline: Optional[float] = None

    # --- limits -----------------------------------------------------------------------------------
    @property
    def global_step(self) -> int:
        return self.epoch_loop.global_step

    @property
    def _can_stop_early(self) -> bool:
        met_epochs = (
            self.epoch_progress.current["processed"] >= self.min_epochs if self.min_epochs else True
        )
        met_steps = self.global_step >= self.min_steps if self.min_steps else True
        return met_epochs and met_steps

    @property
    def done(self) -> bool:
        if self.max_batches == 0:
            rank_zero_info("`Trainer.fit` stopped: No training batches.")
            return True
        if _is_max_limit_reached(self.global_step, self.max_steps):
            rank_zero_info(f"`Trainer.fit` stopped: `max_steps={self.max_steps!r}` reached.")
            return True
        if _is_max_limit_reached(self.epoch_progress.current["processed"], self.max_epochs):
            self.epoch_progress.current["completed"] = self.epoch_progress.current["processed"]
            rank_zero_info(f"`Trainer.fit` stopped: `max_epochs={self.max_epochs!r}` reached.")
            return True
        return bool(self.trainer.should_stop and self._can_stop_early)

    def _num_ready_batches_reached(self) -> bool:
        bp = self.epoch_loop.batch_progress
        return bp.current["ready"] == self.trainer.num_training_batches or bp.is_last_batch

    def _should_accumulate(self) -> bool:
        accumulate = self.trainer.accumulate_grad_batches
        if accumulate == 1:
            return False  # every batch steps: `ready % 1 == 0` always holds
        bp = self.epoch_loop.batch_progress
        accumulation_done = bp.current["ready"] % accumulate == 0
        return not accumulation_done and not self._num_ready_batches_reached()

    def _epoch_loop_done(self) -> bool:
        training_done = (
            _is_max_limit_reached(self.global_step, self.max_steps)
            or self._num_ready_batches_reached()
        )
        if training_done:
            return True
        if self.trainer.should_stop:
            return self._can_stop_early
        return False

    # --- data --------------------------------------------------------------------------------------
    def setup_data(self) -> None:
        trainer = self.trainer
        loader = trainer._request_dataloader("train")
        if isinstance(loader, (list, tuple, dict)):
            raise MisconfigurationException(
                "Trainer.fit: several train dataloaders (a list/dict, Lightning's CombinedLoader) are not "
                "supported by torchlift.runtime; pass one DataLoader"
            )
        if loader is None:
            raise MisconfigurationException(
                "Trainer.fit: no training data; pass train_dataloaders=... or a datamodule with train_dataloader()"
            )
        loader = trainer._prepare_loader(loader, "fit")
        trainer.train_dataloader = loader
        num_batches = trainer._limit_batches(
            loader, trainer.limit_train_batches, "limit_train_batches"
        )
        trainer.num_training_batches = num_batches
        self.max_batches = num_batches
        self.fetcher = BatchFetcher(loader, num_batches)
        # val_check_batch, as Lightning computes it
        if isinstance(trainer.val_check_interval, int):
            trainer.val_check_batch = trainer.val_check_interval
            if (
                trainer.val_check_batch > num_batches
                and trainer.check_val_every_n_epoch is not None
                and trainer.limit_val_batches > 0
            ):
                raise MisconfigurationException(
                    f"Trainer(val_check_interval={trainer.val_check_interval}) must be <= the number of training "
                    f"batches ({num_batches}); to validate across epochs set check_val_every_n_epoch=None"
                )
        elif num_batches == float("inf"):
            if trainer.val_check_interval != 1.0:
                raise MisconfigurationException(
                    "Trainer(val_check_interval) must be 1.0 or an int when the train loader has no length"
                )
            trainer.val_check_batch = float("inf")
        else:
            trainer.val_check_batch = max(1, int(num_batches * trainer.val_check_interval))

    def _start_epoch_iterator(self, skip: int = 0) -> None:
        from torchlift.runtime.seed import collect_rng_states

        trainer = self.trainer
        trainer._epoch_start_rng = collect_rng_states()
        self.fetcher.start(skip)  # type: ignore[union-attr]

    # --- run -----------------------------------------------------------------------------------------
    def run(self) -> None:
        trainer = self.trainer
        self.setup_data()
        self._last_dataloader_reload = trainer.current_epoch
        if self.done or trainer.limit_train_batches == 0:
            return
        resume, self._resume = self._resume, None
        torch.set_grad_enabled(True)
        mid_epoch = resume is not None and resume["mode"] == "mid_epoch"
        if resume is not None:
            self._restore_rng(resume)
            if resume.get("callback_metrics"):
                trainer._callback_metrics.update(resume["callback_metrics"])
            if resume["mode"] == "epoch_end":
                if resume.get("callback_metrics") is not None and self._num_ready_batches_reached():
                    # Saved inside on_train_epoch_end: the epoch's plateau schedulers had not stepped
                    # yet. With the saved metrics we can step them, as the uninterrupted run did
                    # (Lightning, which keeps no metrics in checkpoints, skips this step).
                    self.update_lr_schedulers("epoch", update_plateau=True)
                self.epoch_progress.increment("completed")
        iterator_ready = False
        if not mid_epoch and not self.done:
            # Lightning creates the first epoch's iterator before `on_train_start`.
            self._start_epoch_iterator()
            iterator_ready = True
        trainer.training_started = True
        limit = trainer._max_time_seconds
        self._deadline = None if limit is None else time.monotonic() + limit
        self._validation_enabled = trainer.enable_validation  # fixed for the run; read every step
        trainer._setup_validation_data_if_needed()
        trainer._call_hook("on_train_start")
        if mid_epoch and not self.done:
            self._resume_mid_epoch(resume)  # type: ignore[arg-type]
            self._end_epoch()
        while not self.done:
            self._run_epoch(iterator_ready)
            iterator_ready = False
            self._end_epoch()
        trainer._call_hook("on_train_end")

    def _restore_rng(self, resume: dict[str, Any]) -> bool:
        from torchlift.runtime.seed import restore_rng_states

        state = resume.get("rng")
        if state is None:
            return False
        restore_rng_states(state)
        return True

    def _begin_epoch(self) -> None:
        trainer = self.trainer
        ep = self.epoch_loop
        trainer.strategy.on_train_epoch_start(
            trainer.train_dataloader, self.epoch_progress.current["processed"]
        )
        self.epoch_progress.increment("ready")
        trainer._train_results.reset()
        trainer._call_hook("on_train_epoch_start")
        self.epoch_progress.increment("started")
        ep.batch_progress.reset_current()
        ep.scheduler_progress.reset_current()
        ep.optim_progress.reset_current()
        ep.val_loop.batch_progress.total = dict.fromkeys(ep.val_loop.batch_progress.fields, 0)

    def _run_epoch(self, first_epoch_iterator_ready: bool) -> None:
        if not first_epoch_iterator_ready:
            self._reload_dataloaders_if_due()
        self._begin_epoch()
        if not first_epoch_iterator_ready:
            self._start_epoch_iterator()
        self._batch_loop()

    def _reload_dataloaders_if_due(self) -> None:
        """`reload_dataloaders_every_n_epochs=n`: the `*_dataloader()` sources are asked again
        every n epochs, before the epoch starts (as Lightning's fit loop does)."""
        trainer = self.trainer
        every = trainer.reload_dataloaders_every_n_epochs
        epoch = trainer.current_epoch
        if not every or epoch - self._last_dataloader_reload < every:
            return
        self._last_dataloader_reload = epoch
        self.setup_data()
        if trainer.val_dataloaders is not None:
            trainer.val_dataloaders = None
            trainer._setup_validation_data_if_needed()

    def _resume_mid_epoch(self, resume: dict[str, Any]) -> None:
        """Continue an epoch that a checkpoint interrupted after batch `ready`."""
        trainer = self.trainer
        ep = self.epoch_loop
        bp = ep.batch_progress
        done_batches = bp.current["ready"]
        trainer._train_results.reset()
        trainer.strategy.on_train_epoch_start(
            trainer.train_dataloader, self.epoch_progress.current["processed"]
        )
        from torchlift.runtime.seed import restore_rng_states

        epoch_rng = resume.get("epoch_rng")
        if epoch_rng is not None:
            restore_rng_states(epoch_rng)
        else:
            rank_zero_warn(
                "Resuming mid-epoch from a checkpoint without the epoch's random state: the remaining batches "
                "of this epoch may come in a different order than in the interrupted run."
            )
        self._start_epoch_iterator(skip=done_batches)
        self._restore_rng(resume)
        bp.is_last_batch = self.fetcher.done or bp.current["ready"] >= trainer.num_training_batches  # type: ignore
        if resume["stage"] == "after_train_batch_end":
            bp.increment("completed")
            self._after_batch(run_validation=True)
        else:
            self._after_batch(run_validation=False)
        self._batch_loop()

    def _batch_loop(self) -> None:
        self._skip_rest_of_epoch = False
        while not self._epoch_loop_done():
            try:
                self._run_batch()
            except StopIteration:
                break
            if self._skip_rest_of_epoch:
                break
            self._after_batch(run_validation=True)

    def _run_batch(self) -> None:
        trainer = self.trainer
        ep = self.epoch_loop
        bp = ep.batch_progress
        batch = next(self.fetcher)  # type: ignore[arg-type]
        batch_idx = bp.current["ready"]
        bp.is_last_batch = self.fetcher.done  # type: ignore[union-attr]
        batch = trainer._transfer_batch(batch, 0)
        bp.increment("ready")
        trainer._on_batch_start(batch)
        outputs: Any = None
        module = trainer.lightning_module
        trainer._log_on_step_default = True
        response = trainer._call_hook("on_train_batch_start", batch, batch_idx)
        if response == -1:
            self._skip_rest_of_epoch = True
            bp.is_last_batch = True
        else:
            bp.increment("started")
            if module.automatic_optimization:
                outputs = self._automatic_step(batch, batch_idx)
            else:
                outputs = trainer._call_training_step(batch, batch_idx)
                if isinstance(outputs, torch.Tensor):
                    outputs = {"loss": outputs.detach()}
                elif isinstance(outputs, dict) and isinstance(outputs.get("loss"), torch.Tensor):
                    outputs = {**outputs, "loss": outputs["loss"].detach()}
        bp.increment("processed")
        self.update_lr_schedulers("step", update_plateau=False)
        if self._num_ready_batches_reached():
            self.update_lr_schedulers("epoch", update_plateau=False)
        if self._skip_rest_of_epoch:
            trainer._log_on_step_default = False
            return
        trainer._call_hook("on_train_batch_end", outputs, batch, batch_idx)
        trainer._log_on_step_default = False
        if self._deadline is not None and time.monotonic() >= self._deadline:
            trainer.should_stop = (
                True  # Trainer(max_time=...), checked per batch as Lightning's Timer
            )
        bp.increment("completed")
        trainer._update_train_step_metrics()

    def _after_batch(self, run_validation: bool) -> None:
        trainer = self.trainer
        if run_validation and self._should_check_val():
            if not self._should_accumulate():
                trainer._call_module_hook("on_validation_model_zero_grad")
            trainer._run_validation()
        self.update_lr_schedulers("step", update_plateau=True)
        if not self._should_accumulate():
            self.epoch_loop._batches_that_stepped += 1
        if trainer.should_stop:
            for logger in trainer.loggers:
                logger.save()

    def _end_epoch(self) -> None:
        trainer = self.trainer
        trainer._train_epoch_end_reached = True
        self.epoch_progress.increment("processed")
        trainer._call_train_epoch_end_hooks()
        trainer._commit_train_epoch_metrics()
        if self._num_ready_batches_reached():
            self.update_lr_schedulers("epoch", update_plateau=True)
        self.epoch_progress.increment("completed")

    # --- optimisation -------------------------------------------------------------------------------
    def _zero_grad(self, batch_idx: int, optimizer) -> None:
        trainer = self.trainer
        zg = self.epoch_loop.optim_progress.zero_grad
        zg.increment("ready")
        trainer._call_hook("on_before_zero_grad", optimizer)
        zg.increment("started")
        trainer.lightning_module.optimizer_zero_grad(trainer.current_epoch, batch_idx, optimizer)
        zg.increment("completed")

    def _automatic_step(self, batch: Any, batch_idx: int) -> dict[str, Any]:
        trainer = self.trainer
        optimizer = trainer.optimizers[0]
        zero_grad = batch_idx % trainer.accumulate_grad_batches == 0
        closure = _Closure(self, batch, batch_idx, optimizer, zero_grad)
        if self._should_accumulate():
            with trainer.strategy.block_backward_sync(trainer.lightning_module, False):
                closure()
        else:
            step = self.epoch_loop.optim_progress.step
            step.increment("ready")
            trainer.lightning_module.optimizer_step(
                trainer.current_epoch, batch_idx, trainer._lightning_optimizers[0], closure
            )
            step.increment("completed")
        return closure.outputs()

    def update_lr_schedulers(self, interval: str, update_plateau: bool) -> None:
        trainer = self.trainer
        configs = trainer.lr_scheduler_configs
        if not configs:
            return  # checked first: the common no-scheduler case costs one attribute read per call
        if interval == "step" and self._should_accumulate():
            return
        if not trainer.lightning_module.automatic_optimization:
            return
        for config in configs:
            if update_plateau ^ config.reduce_on_plateau:
                continue
            index = (self.epoch_loop.batch_idx if interval == "step" else trainer.current_epoch) + 1
            if config.interval != interval or index % config.frequency != 0:
                continue
            monitor_value = None
            if config.reduce_on_plateau:
                monitor_value = trainer.callback_metrics.get(config.monitor)
                if monitor_value is None:
                    if config.strict:
                        raise MisconfigurationException(
                            f"ReduceLROnPlateau conditioned on metric {config.monitor!r} which is not available. "
                            f"Available metrics are: {sorted(trainer.callback_metrics)}. Set the `monitor` key "
                            "of the lr_scheduler dict to a metric you log."
                        )
                    rank_zero_warn(
                        f"ReduceLROnPlateau conditioned on metric {config.monitor!r} which is not available but "
                        "strict is set to `False`. Skipping learning rate update."
                    )
                    continue
            self.epoch_loop.scheduler_progress.increment("ready")
            trainer.lightning_module.lr_scheduler_step(config.scheduler, monitor_value)
            self.epoch_loop.scheduler_progress.increment("completed")

    # --- validation points ---------------------------------------------------------------------------
    def _should_check_val_epoch(self) -> bool:
        trainer = self.trainer
        return self._validation_enabled and (
            trainer.check_val_every_n_epoch is None
            or (trainer.current_epoch + 1) % trainer.check_val_every_n_epoch == 0
        )

    def _should_check_val(self) -> bool:
        trainer = self.trainer
        if not self._should_check_val_epoch():
            return False
        is_infinite = trainer.val_check_batch == float("inf")
        bp = self.epoch_loop.batch_progress
        if bp.is_last_batch and is_infinite:
            return True
        if trainer.should_stop and self._can_stop_early:
            return True
        is_val_check_batch = bp.is_last_batch
        if isinstance(trainer.limit_train_batches, int) and is_infinite:
            is_val_check_batch = (self.epoch_loop.batch_idx + 1) % trainer.limit_train_batches == 0
        elif not is_infinite:
            current = (
                self.epoch_loop.total_batch_idx
                if trainer.check_val_every_n_epoch is None
                else self.epoch_loop.batch_idx
            )
            is_val_check_batch = (current + 1) % trainer.val_check_batch == 0
        return is_val_check_batch
