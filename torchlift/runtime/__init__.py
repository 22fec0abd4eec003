"""torchlift.runtime: a small trainer with the API of `lightning.pytorch`.

    import torchlift.runtime as L
    trainer = L.Trainer(max_epochs=3)
    trainer.fit(model, train_loader, val_loader)

Names resolve lazily (PEP 562) so `import torchlift.runtime` costs little over `import torch`;
tensorboard, tqdm and the loggers load only when a Trainer needs them.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

# As `lightning.pytorch` does at import: the runtime's messages ("`Trainer.fit` stopped: ...")
# go to stderr through the package's own handler, unless the script configured logging before
# the import; then they reach its root handlers (a `basicConfig(filename=...)` file too).
_log = logging.getLogger(__name__)
_log.setLevel(logging.INFO)
if not logging.getLogger().hasHandlers():
    _log.addHandler(logging.StreamHandler())
    _log.propagate = False

__version__ = "2.6.6"  # the Lightning API level this runtime follows

_ATTRIBUTES = {
    "LightningModule": "torchlift.runtime.core.module",
    "LightningDataModule": "torchlift.runtime.core.datamodule",
    "Trainer": "torchlift.runtime.trainer.trainer",
    "Callback": "torchlift.runtime.callbacks.callback",
    "seed_everything": "torchlift.runtime.seed",
}
_SUBMODULES = (
    "callbacks",
    "loggers",
    "utilities",
    "strategies",
    "core",
    "trainer",
    "precision",
    "plugins",
    "seed",
)

__all__ = [
    "Callback",
    "LightningDataModule",
    "LightningModule",
    "Trainer",
    "seed_everything",
    *_SUBMODULES,
]


def __getattr__(name: str) -> Any:
    if name in _ATTRIBUTES:
        value = getattr(importlib.import_module(_ATTRIBUTES[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module 'torchlift.runtime' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
