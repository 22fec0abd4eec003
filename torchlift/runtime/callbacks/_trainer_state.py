"""Read the few trainer facts callbacks need that Lightning keeps in private loop objects.

Lightning's callbacks reach into `trainer.fit_loop.epoch_loop...` for these; our trainer may keep
them elsewhere. Each helper tries Lightning's location first, then a flat trainer attribute, so
the callbacks run on either trainer without knowing which one it is.
"""

from __future__ import annotations

from typing import Any

from torchlift.runtime.errors import MisconfigurationException  # noqa: F401 - re-exported


def _epoch_loop(trainer: Any) -> Any:
    fit_loop = getattr(trainer, "fit_loop", None)
    return getattr(fit_loop, "epoch_loop", None)


def is_fitting(trainer: Any) -> bool:
    """True inside `trainer.fit` (TrainerFn.FITTING is a str enum whose value is "fit")."""
    state = getattr(trainer, "state", None)
    fn = getattr(state, "fn", None)
    return getattr(fn, "value", fn) == "fit"


def batches_that_stepped(trainer: Any) -> int:
    """The step number loggers receive: batches that ran an optimizer step (Lightning's logger step)."""
    loop = _epoch_loop(trainer)
    value = getattr(loop, "_batches_that_stepped", None)
    if value is None:
        value = getattr(trainer, "_batches_that_stepped", None)
    return int(trainer.global_step if value is None else value)


def is_last_batch(trainer: Any) -> bool:
    loop = _epoch_loop(trainer)
    progress = getattr(loop, "batch_progress", None)
    if progress is not None and hasattr(progress, "is_last_batch"):
        return bool(progress.is_last_batch)
    return bool(getattr(trainer, "is_last_batch", False))


def should_update_logs(trainer: Any) -> bool:
    """Lightning's `_logger_connector.should_update_logs`: every `log_every_n_steps` batches, or at stop."""
    connector = getattr(trainer, "_logger_connector", None)
    if connector is not None and hasattr(connector, "should_update_logs"):
        return bool(connector.should_update_logs)
    if hasattr(trainer, "_should_update_logs"):  # torchlift's trainer
        return bool(trainer._should_update_logs)
    every = getattr(trainer, "log_every_n_steps", 50)
    if not every:
        return False
    return (batches_that_stepped(trainer) + 1) % every == 0 or bool(trainer.should_stop)


def validation_has_run(trainer: Any) -> bool:
    """Whether a (non sanity-check) validation pass has produced metrics in this fit."""
    loop = getattr(_epoch_loop(trainer), "val_loop", None)
    if loop is not None and hasattr(loop, "_has_run"):
        return bool(loop._has_run)
    return bool(getattr(trainer, "_validation_has_run", False))


def num_val_batches_total(trainer: Any) -> float:
    batches = getattr(trainer, "num_val_batches", 0)
    if isinstance(batches, (list, tuple)):
        return sum(batches)
    return batches or 0


def world_size(trainer: Any) -> int:
    return int(getattr(trainer, "world_size", 1) or 1)
