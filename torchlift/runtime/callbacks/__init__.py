"""Callbacks with the names and behaviour of `lightning.pytorch.callbacks`.

Names load on first use (PEP 562): the trainer imports `callbacks.callback` on every run, and a
bare Trainer should not pay for the checkpoint, early-stopping and progress-bar modules.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "Callback": "callback",
    "Checkpoint": "checkpoint",
    "EarlyStopping": "early_stopping",
    "LearningRateMonitor": "lr_monitor",
    "ModelCheckpoint": "model_checkpoint",
    "ProgressBar": "progress",
    "TQDMProgressBar": "progress",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
