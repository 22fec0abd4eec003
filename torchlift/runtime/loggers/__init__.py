"""Experiment loggers with the names and file layout of `lightning.pytorch.loggers`.

Names load on first use (PEP 562), so a run without a logger imports none of them.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "CSVLogger": "csv_logs",
    "DummyLogger": "logger",
    "Logger": "logger",
    "TensorBoardLogger": "tensorboard",
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
