"""`EarlyStopping`: stop training when a monitored metric stops improving (Lightning 2.6 semantics).

One check per validation run (or per training epoch when validation runs once per epoch, the
default): improvement means `current - min_delta` beats the best score; `patience` checks without
improvement stop the run. Thresholds and non-finite values stop it at once. The stop decision is
OR-reduced across ranks so every rank leaves the loop at the same epoch.
"""

from __future__ import annotations

import logging
from enum import Enum
from typing import Any, Callable

import torch
from torch import Tensor

from torchlift.runtime.callbacks import _trainer_state as ts
from torchlift.runtime.callbacks._trainer_state import MisconfigurationException
from torchlift.runtime.callbacks.callback import Callback
from torchlift.runtime.utilities.rank_zero import rank_zero_warn

log = logging.getLogger(__name__)


class EarlyStoppingReason(Enum):
    NOT_STOPPED = 0
    STOPPING_THRESHOLD = 1
    DIVERGENCE_THRESHOLD = 2
    PATIENCE_EXHAUSTED = 3
    NON_FINITE_METRIC = 4


class EarlyStopping(Callback):
    mode_dict = {"min": torch.lt, "max": torch.gt}
    order_dict = {"min": "<", "max": ">"}

    def __init__(
        self,
        monitor: str,
        min_delta: float = 0.0,
        patience: int = 3,
        verbose: bool = False,
        mode: str = "min",
        strict: bool = True,
        check_finite: bool = True,
        stopping_threshold: float | None = None,
        divergence_threshold: float | None = None,
        check_on_train_epoch_end: bool | None = None,
        log_rank_zero_only: bool = False,
    ) -> None:
        super().__init__()
        self.monitor = monitor
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.mode = mode
        self.strict = strict
        self.check_finite = check_finite
        self.stopping_threshold = stopping_threshold
        self.divergence_threshold = divergence_threshold
        self.wait_count = 0
        self.stopped_epoch = 0
        self.stopping_reason = EarlyStoppingReason.NOT_STOPPED
        self.stopping_reason_message: str | None = None
        self._check_on_train_epoch_end = check_on_train_epoch_end
        self.log_rank_zero_only = log_rank_zero_only
        if self.mode not in self.mode_dict:
            raise MisconfigurationException(f"`mode` can be min, max, got {self.mode}")
        # Stored signed, as Lightning does: "improved" is then one comparison for both modes.
        self.min_delta *= 1 if self.monitor_op == torch.gt else -1
        inf = torch.tensor(torch.inf)
        self.best_score = inf if self.monitor_op == torch.lt else -inf

    @property
    def state_key(self) -> str:
        return self._generate_state_key(monitor=self.monitor, mode=self.mode)

    @property
    def monitor_op(self) -> Callable:
        return self.mode_dict[self.mode]

    def state_dict(self) -> dict[str, Any]:
        return {
            "wait_count": self.wait_count,
            "stopped_epoch": self.stopped_epoch,
            "best_score": self.best_score,
            "patience": self.patience,
            "stopping_reason": self.stopping_reason.value,
            "stopping_reason_message": self.stopping_reason_message,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.wait_count = state_dict["wait_count"]
        self.stopped_epoch = state_dict["stopped_epoch"]
        self.best_score = state_dict["best_score"]
        self.patience = state_dict["patience"]
        self.stopping_reason = EarlyStoppingReason(
            state_dict.get("stopping_reason", EarlyStoppingReason.NOT_STOPPED.value)
        )
        self.stopping_reason_message = state_dict.get("stopping_reason_message")

    def setup(self, trainer, pl_module, stage: str) -> None:
        if self._check_on_train_epoch_end is None:
            # Validation runs once per epoch: check at the train epoch end, which comes after it.
            self._check_on_train_epoch_end = (
                trainer.val_check_interval == 1.0 and trainer.check_val_every_n_epoch == 1
            )

    def _should_skip_check(self, trainer) -> bool:
        return not ts.is_fitting(trainer) or trainer.sanity_checking

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        if not self._check_on_train_epoch_end or self._should_skip_check(trainer):
            return
        self._run_early_stopping_check(trainer)

    def on_validation_end(self, trainer, pl_module) -> None:
        if self._check_on_train_epoch_end or self._should_skip_check(trainer):
            return
        self._run_early_stopping_check(trainer)

    def _validate_condition_metric(self, logs: dict[str, Tensor]) -> bool:
        if logs.get(self.monitor) is not None:
            return True
        message = (
            f"Early stopping conditioned on metric `{self.monitor}` which is not available."
            " Pass in or modify your `EarlyStopping` callback to use any of the following:"
            f" `{'`, `'.join(list(logs.keys()))}`"
        )
        if self.strict:
            raise RuntimeError(message)
        if self.verbose > 0:
            rank_zero_warn(message, category=RuntimeWarning)
        return False

    def _run_early_stopping_check(self, trainer) -> None:
        if trainer.fast_dev_run:
            return
        logs = trainer.callback_metrics
        should_stop, reason = False, None
        # A rank without the metric still joins the reduction below (with "don't stop"), so a
        # metric logged on rank 0 only cannot leave the other ranks waiting.
        if self._validate_condition_metric(logs):
            should_stop, reason = self._evaluate_stopping_criteria(logs[self.monitor].squeeze())
        elif ts.world_size(trainer) <= 1:
            return
        should_stop = trainer.strategy.reduce_boolean_decision(should_stop, all=False)
        trainer.should_stop = trainer.should_stop or should_stop
        if should_stop:
            self.stopped_epoch = trainer.current_epoch
            self.stopping_reason_message = reason
        if reason and self.verbose:
            self._log_info(trainer, reason, self.log_rank_zero_only)

    def _evaluate_stopping_criteria(self, current: Tensor) -> tuple[bool, str | None]:
        should_stop, reason = False, None
        if self.check_finite and not torch.isfinite(current):
            should_stop = True
            self.stopping_reason = EarlyStoppingReason.NON_FINITE_METRIC
            reason = (
                f"Monitored metric {self.monitor} = {current} is not finite."
                f" Previous best value was {self.best_score:.3f}. Signaling Trainer to stop."
            )
        elif self.stopping_threshold is not None and self.monitor_op(
            current, self.stopping_threshold
        ):
            should_stop = True
            self.stopping_reason = EarlyStoppingReason.STOPPING_THRESHOLD
            reason = (
                f"Stopping threshold reached: {self.monitor} = {current}"
                f" {self.order_dict[self.mode]} {self.stopping_threshold}. Signaling Trainer to stop."
            )
        elif self.divergence_threshold is not None and self.monitor_op(
            -current, -self.divergence_threshold
        ):
            should_stop = True
            self.stopping_reason = EarlyStoppingReason.DIVERGENCE_THRESHOLD
            reason = (
                f"Divergence threshold reached: {self.monitor} = {current}"
                f" {self.order_dict[self.mode]} {self.divergence_threshold}. Signaling Trainer to stop."
            )
        elif self.monitor_op(current - self.min_delta, self.best_score.to(current.device)):
            reason = self._improvement_message(current)
            self.best_score = current
            self.wait_count = 0
        else:
            self.wait_count += 1
            if self.wait_count >= self.patience:
                should_stop = True
                self.stopping_reason = EarlyStoppingReason.PATIENCE_EXHAUSTED
                reason = (
                    f"Monitored metric {self.monitor} did not improve in the last"
                    f" {self.wait_count} records. Best score: {self.best_score:.3f}."
                    " Signaling Trainer to stop."
                )
        return should_stop, reason

    def _improvement_message(self, current: Tensor) -> str:
        if torch.isfinite(self.best_score):
            return (
                f"Metric {self.monitor} improved by {abs(self.best_score - current):.3f} >="
                f" min_delta = {abs(self.min_delta)}. New best score: {current:.3f}"
            )
        return f"Metric {self.monitor} improved. New best score: {current:.3f}"

    @staticmethod
    def _log_info(trainer, message: str, log_rank_zero_only: bool) -> None:
        rank = trainer.global_rank if ts.world_size(trainer) > 1 else None
        if rank is not None:
            message = f"[rank: {rank}] {message}"
        if rank is None or not log_rank_zero_only or rank == 0:
            log.info(message)
