"""`self.log` storage: values stay tensors (no `.item()`, no copies) until something reads them.

One `ResultStore` per running loop (training, evaluation). Names follow Lightning: a metric logged
with both `on_step` and `on_epoch` appears as `name_step` / `name_epoch` to loggers and the progress
bar, and additionally as `name` in `callback_metrics`.
"""

from __future__ import annotations

import numbers
from typing import Any, Optional

import torch

_REDUCE_FX = {"mean": "mean", "avg": "mean", "sum": "sum", "max": "max", "min": "min"}
_TORCH_REDUCE = {torch.mean: "mean", torch.sum: "sum", torch.max: "max", torch.min: "min"}


def normalize_reduce_fx(reduce_fx: Any) -> str:
    if isinstance(reduce_fx, str) and reduce_fx.lower() in _REDUCE_FX:
        return _REDUCE_FX[reduce_fx.lower()]
    if reduce_fx in _TORCH_REDUCE:
        return _TORCH_REDUCE[reduce_fx]
    raise ValueError(
        f"self.log: reduce_fx={reduce_fx!r} is not supported; accepted: 'mean', 'sum', 'max', 'min'"
    )


def _is_metric_object(value: Any) -> bool:
    # torchmetrics.Metric without importing torchmetrics
    return hasattr(value, "compute") and hasattr(value, "update") and hasattr(value, "reset")


def extract_batch_size(batch: Any) -> int:
    """Size of the first dimension of the first tensor found in the batch (Lightning's rule)."""
    if isinstance(batch, torch.Tensor):
        return 1 if batch.ndim == 0 else batch.size(0)
    if isinstance(batch, (str, bytes)):
        return len(batch)
    if isinstance(batch, dict):
        for value in batch.values():
            size = extract_batch_size(value)
            if size is not None:
                return size
    elif isinstance(batch, (list, tuple)):
        for value in batch:
            size = extract_batch_size(value)
            if size is not None:
                return size
    return None  # type: ignore[return-value]


class _Entry:
    __slots__ = (
        "on_step", "on_epoch", "prog_bar", "logger", "reduce_fx", "sync_dist",
        "step_value", "acc", "weight", "metric", "step_fresh",
    )  # fmt: skip

    def __init__(self, on_step, on_epoch, prog_bar, logger, reduce_fx, sync_dist) -> None:
        self.on_step = on_step
        self.on_epoch = on_epoch
        self.prog_bar = prog_bar
        self.logger = logger
        self.reduce_fx = reduce_fx
        self.sync_dist = sync_dist
        self.step_value: Optional[torch.Tensor] = None
        self.acc: Optional[torch.Tensor] = None
        self.weight = 0
        self.metric: Any = None
        self.step_fresh = False


class ResultStore:
    def __init__(self) -> None:
        self.entries: dict[str, _Entry] = {}

    def reset(self) -> None:
        self.entries = {}

    def log(
        self,
        name: str,
        value: Any,
        on_step: bool,
        on_epoch: bool,
        prog_bar: bool,
        logger: bool,
        reduce_fx: str,
        sync_dist: bool,
        batch_size: Optional[int],
        get_batch_size,
        reduce,
        device: torch.device,
    ) -> None:
        entry = self.entries.get(name)
        if entry is None:
            entry = self.entries[name] = _Entry(
                on_step, on_epoch, prog_bar, logger, reduce_fx, sync_dist
            )
        else:
            entry.on_step, entry.on_epoch, entry.prog_bar = on_step, on_epoch, prog_bar
            entry.logger, entry.reduce_fx, entry.sync_dist = logger, reduce_fx, sync_dist
        if not isinstance(value, torch.Tensor) and _is_metric_object(value):
            entry.metric = value
            if on_step:
                cached = getattr(value, "_forward_cache", None)
                entry.step_value = cached if cached is not None else None
                entry.step_fresh = True
            return
        if isinstance(value, torch.Tensor):
            if value.numel() != 1:
                raise ValueError(
                    f"self.log({name!r}, ...): the value must be a scalar (one element), got shape "
                    f"{tuple(value.shape)}"
                )
            value = value.detach()
            if value.ndim:
                value = value.squeeze()
            if not torch.is_floating_point(value):
                value = value.to(torch.get_default_dtype())
        elif isinstance(value, numbers.Number):
            value = torch.tensor(value, dtype=torch.get_default_dtype(), device=device)
        else:
            raise ValueError(
                f"self.log({name!r}, ...): value of type {type(value).__name__} is not supported; "
                "accepted: a number, a scalar tensor, or a torchmetrics Metric"
            )
        if on_step:
            entry.step_value = reduce(value, reduce_fx) if sync_dist else value
            entry.step_fresh = True
        if on_epoch:
            if reduce_fx == "mean":
                size = batch_size if batch_size is not None else get_batch_size()
                weighted = value * size
                entry.acc = weighted if entry.acc is None else entry.acc + weighted
                entry.weight += size
            elif reduce_fx == "sum":
                entry.acc = value if entry.acc is None else entry.acc + value
            elif reduce_fx == "max":
                entry.acc = value if entry.acc is None else torch.maximum(entry.acc, value)
            else:
                entry.acc = value if entry.acc is None else torch.minimum(entry.acc, value)

    # --- reading ------------------------------------------------------------------------------
    def step_metrics(self) -> tuple[dict, dict, dict]:
        """(callback, logger, progress bar) dicts of the latest step values."""
        callback, log, pbar = {}, {}, {}
        for name, entry in self.entries.items():
            if not entry.on_step or entry.step_value is None:
                continue
            value = entry.step_value
            forked = f"{name}_step" if entry.on_epoch else name
            callback[name] = value
            callback[forked] = value
            if entry.logger:
                log[forked] = value
            if entry.prog_bar:
                pbar[forked] = value
        return callback, log, pbar

    def fresh_step_metrics(self) -> tuple[dict, dict, dict]:
        """Like `step_metrics`, only values logged since the last call (what a logger should get)."""
        callback, log, pbar = {}, {}, {}
        for name, entry in self.entries.items():
            if not entry.step_fresh or entry.step_value is None:
                continue
            entry.step_fresh = False
            forked = f"{name}_step" if entry.on_epoch else name
            callback[name] = callback[forked] = entry.step_value
            if entry.logger:
                log[forked] = entry.step_value
            if entry.prog_bar:
                pbar[forked] = entry.step_value
        return callback, log, pbar

    def epoch_metrics(self, reduce, final: bool = True) -> tuple[dict, dict, dict]:
        """Epoch aggregates. `final=False` previews them (metric objects are not reset)."""
        callback, log, pbar = {}, {}, {}
        for name, entry in self.entries.items():
            if not entry.on_epoch:
                continue
            value = self._epoch_value(entry, reduce, final)
            if value is None:
                continue
            forked = f"{name}_epoch" if entry.on_step else name
            callback[name] = value
            callback[forked] = value
            if entry.logger:
                log[forked] = value
            if entry.prog_bar:
                pbar[forked] = value
        return callback, log, pbar

    @staticmethod
    def _epoch_value(entry: _Entry, reduce, final: bool = True) -> Optional[torch.Tensor]:
        if entry.metric is not None:
            value = entry.metric.compute()
            if final:
                entry.metric.reset()
            return value
        if entry.acc is None:
            return None
        if entry.reduce_fx == "mean":
            if entry.sync_dist:
                return reduce(entry.acc, "sum") / reduce(
                    torch.tensor(float(entry.weight), device=entry.acc.device), "sum"
                )
            return entry.acc / entry.weight
        return reduce(entry.acc, entry.reduce_fx) if entry.sync_dist else entry.acc
