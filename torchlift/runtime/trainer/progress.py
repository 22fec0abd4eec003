"""Loop progress counters with the layout of Lightning's `loops` checkpoint entry.

Lightning resumes from these counters (ready / started / processed / completed, per epoch and
in total), so we keep the same ones and increment them at the same points; that is what lets a
checkpoint written here resume in Lightning's Trainer and the other way round.
"""

from __future__ import annotations

from typing import Any

RSPC = ("ready", "started", "processed", "completed")
RSC = ("ready", "started", "completed")
RC = ("ready", "completed")


class Progress:
    __slots__ = ("fields", "total", "current", "is_last_batch", "_has_last")

    def __init__(self, fields: tuple[str, ...] = RSPC, has_last_batch: bool = False) -> None:
        self.fields = fields
        self.total = dict.fromkeys(fields, 0)
        self.current = dict.fromkeys(fields, 0)
        self.is_last_batch = False
        self._has_last = has_last_batch

    def increment(self, field: str) -> None:
        self.total[field] += 1
        self.current[field] += 1

    def reset_current(self) -> None:
        self.current = dict.fromkeys(self.fields, 0)
        self.is_last_batch = False

    def reset(self) -> None:
        self.total = dict.fromkeys(self.fields, 0)
        self.reset_current()

    def state_dict(self) -> dict[str, Any]:
        state: dict[str, Any] = {"total": dict(self.total), "current": dict(self.current)}
        if self._has_last:
            state["is_last_batch"] = self.is_last_batch
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        for field in self.fields:
            self.total[field] = int(state["total"].get(field, 0))
            self.current[field] = int(state["current"].get(field, 0))
        self.is_last_batch = bool(state.get("is_last_batch", False))


class OptimizerProgress:
    """`optim_progress` of Lightning's automatic optimization: optimizer steps and zero_grads."""

    def __init__(self) -> None:
        self.step = Progress(RC)
        self.zero_grad = Progress(RSC)

    def reset_current(self) -> None:
        self.step.reset_current()
        self.zero_grad.reset_current()

    def state_dict(self) -> dict[str, Any]:
        return {
            "optimizer": {"step": self.step.state_dict(), "zero_grad": self.zero_grad.state_dict()}
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.step.load_state_dict(state["optimizer"]["step"])
        self.zero_grad.load_state_dict(state["optimizer"]["zero_grad"])


class _EvaluationLoopCounters:
    def __init__(self, has_last_batch: bool = True) -> None:
        self.batch_progress = Progress(RSPC, has_last_batch=has_last_batch)
        self._has_run = False

    def state_dict(self) -> dict[str, Any]:
        return {"state_dict": {}, "batch_progress": self.batch_progress.state_dict()}


class EpochLoopCounters:
    """Named like `trainer.fit_loop.epoch_loop` so callbacks written for Lightning find them."""

    def __init__(self) -> None:
        self.batch_progress = Progress(RSPC, has_last_batch=True)
        self.scheduler_progress = Progress(RC)
        self.optim_progress = OptimizerProgress()
        self.manual_optim_step_progress = Progress(RC)
        self.val_loop = _EvaluationLoopCounters()
        self._batches_that_stepped = 0
        self.automatic = True

    @property
    def batch_idx(self) -> int:
        return self.batch_progress.current["ready"] - 1

    @property
    def total_batch_idx(self) -> int:
        return self.batch_progress.total["ready"] - 1

    @property
    def global_step(self) -> int:
        if self.automatic:
            return self.optim_progress.step.total["completed"]
        return self.manual_optim_step_progress.total["completed"]


class FitLoopCounters:
    def __init__(self) -> None:
        self.epoch_progress = Progress(RSPC)
        self.epoch_loop = EpochLoopCounters()
        self.max_epochs: int = 1000
        self.min_epochs: int = 0

    def state_dict(self) -> dict[str, Any]:
        ep = self.epoch_loop
        return {
            "state_dict": {},
            "epoch_loop.state_dict": {"_batches_that_stepped": ep._batches_that_stepped},
            "epoch_loop.batch_progress": ep.batch_progress.state_dict(),
            "epoch_loop.scheduler_progress": ep.scheduler_progress.state_dict(),
            "epoch_loop.automatic_optimization.state_dict": {},
            "epoch_loop.automatic_optimization.optim_progress": ep.optim_progress.state_dict(),
            "epoch_loop.manual_optimization.state_dict": {},
            "epoch_loop.manual_optimization.optim_step_progress": ep.manual_optim_step_progress.state_dict(),
            "epoch_loop.val_loop.state_dict": {},
            "epoch_loop.val_loop.batch_progress": ep.val_loop.batch_progress.state_dict(),
            "epoch_progress": self.epoch_progress.state_dict(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        ep = self.epoch_loop
        ep._batches_that_stepped = int(
            state.get("epoch_loop.state_dict", {}).get("_batches_that_stepped", 0)
        )
        ep.batch_progress.load_state_dict(state["epoch_loop.batch_progress"])
        ep.scheduler_progress.load_state_dict(state["epoch_loop.scheduler_progress"])
        ep.optim_progress.load_state_dict(state["epoch_loop.automatic_optimization.optim_progress"])
        ep.manual_optim_step_progress.load_state_dict(
            state["epoch_loop.manual_optimization.optim_step_progress"]
        )
        if "epoch_loop.val_loop.batch_progress" in state:
            ep.val_loop.batch_progress.load_state_dict(state["epoch_loop.val_loop.batch_progress"])
        self.epoch_progress.load_state_dict(state["epoch_progress"])


def loops_state_dict(fit_loop: FitLoopCounters) -> dict[str, Any]:
    empty_eval = _EvaluationLoopCounters().state_dict()
    predict = {"state_dict": {}, "batch_progress": Progress(RSPC).state_dict()}
    return {
        "fit_loop": fit_loop.state_dict(),
        "validate_loop": empty_eval,
        "test_loop": _EvaluationLoopCounters().state_dict(),
        "predict_loop": predict,
    }
