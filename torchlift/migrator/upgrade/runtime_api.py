"""The Lightning names torchlift.runtime provides, as data (the migrator never imports the
runtime: it would cost torch's import). tests/migrator/upgrade/test_runtime_api.py checks
every entry against the real runtime, so the table cannot claim a name it lacks."""

from __future__ import annotations

# canonical module path ("" is the package itself) -> names it defines
RUNTIME_API: dict[str, frozenset[str]] = {
    "": frozenset(
        {
            "Callback",
            "LightningDataModule",
            "LightningModule",
            "Trainer",
            "seed_everything",
            "callbacks",
            "core",
            "loggers",
            "strategies",
            "trainer",
            "utilities",
        }
    ),
    "callbacks": frozenset(
        {
            "Callback",
            "Checkpoint",
            "EarlyStopping",
            "LearningRateMonitor",
            "ModelCheckpoint",
            "ProgressBar",
            "TQDMProgressBar",
        }
    ),
    "loggers": frozenset({"CSVLogger", "DummyLogger", "Logger", "TensorBoardLogger"}),
    "utilities": frozenset({"rank_zero_info", "rank_zero_only", "rank_zero_warn"}),
    "core": frozenset({"LightningDataModule", "LightningModule"}),
    "core.module": frozenset({"LightningModule"}),
    "core.datamodule": frozenset({"LightningDataModule"}),
    "trainer": frozenset({"Trainer"}),
    "strategies": frozenset({"DDPStrategy", "SingleDeviceStrategy", "Strategy"}),
}


def available_on_runtime(name: str) -> bool:
    """Whether canonical `name` (`callbacks.ModelSummary`, `loggers`, `Trainer`) exists in
    torchlift.runtime."""
    if name in RUNTIME_API:  # a module
        return True
    where, _, short = name.rpartition(".")
    return short in RUNTIME_API.get(where, ())
