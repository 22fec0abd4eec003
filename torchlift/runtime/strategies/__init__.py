"""Strategies with the names of `lightning.pytorch.strategies` (DDPStrategy loads lazily)."""

from __future__ import annotations

from typing import Any

from torchlift.runtime.strategies.strategy import SingleDeviceStrategy, Strategy

__all__ = ["DDPStrategy", "SingleDeviceStrategy", "Strategy"]


def __getattr__(name: str) -> Any:
    if name == "DDPStrategy":
        from torchlift.runtime.strategies.ddp import DDPStrategy

        return DDPStrategy
    raise AttributeError(f"module 'torchlift.runtime.strategies' has no attribute {name!r}")
