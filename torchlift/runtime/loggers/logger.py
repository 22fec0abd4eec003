"""`Logger`: the interface the trainer and `ModelCheckpoint` talk to (Lightning 2.6's names).

Loggers write on global rank zero only: methods that touch files are wrapped in
`rank_zero_only`, and `experiment` on other ranks is a `DummyExperiment` that swallows calls.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from argparse import Namespace
from functools import wraps
from typing import Any, Callable, Mapping

from torch import Tensor

from torchlift.runtime.utilities.rank_zero import rank_zero_only


def rank_zero_experiment(fn: Callable) -> Callable:
    """Decorate an `experiment` property: the real object on rank zero, a dummy elsewhere."""

    @wraps(fn)
    def experiment(self: Logger) -> Any:
        if rank_zero_only.rank > 0:
            return DummyExperiment()
        return fn(self)

    return experiment


class DummyExperiment:
    """Accepts any call and does nothing (the experiment seen by ranks other than zero)."""

    def nop(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __getattr__(self, _: Any) -> Callable:
        return self.nop

    def __getitem__(self, idx: int) -> DummyExperiment:
        return self

    def __setitem__(self, *args: Any, **kwargs: Any) -> None:
        pass


class Logger(ABC):
    """Base class for experiment loggers."""

    @property
    @abstractmethod
    def name(self) -> str | None:
        """The experiment name."""

    @property
    @abstractmethod
    def version(self) -> int | str | None:
        """The experiment version."""

    @property
    def root_dir(self) -> str | None:
        """Where all versions of the experiment live, or None for non-local loggers."""
        return None

    @property
    def log_dir(self) -> str | None:
        """Where this version's files live, or None for non-local loggers."""
        return None

    @property
    def save_dir(self) -> str | None:
        """The directory the logger was given, or None if it saves nothing locally."""
        return None

    @property
    def group_separator(self) -> str:
        return "/"

    @abstractmethod
    def log_metrics(self, metrics: dict[str, float], step: int | None = None) -> None:
        """Record `metrics` ({name: value}) at `step`."""

    @abstractmethod
    def log_hyperparams(
        self, params: dict[str, Any] | Namespace, *args: Any, **kwargs: Any
    ) -> None:
        """Record hyperparameters."""

    def log_graph(self, model: Any, input_array: Tensor | None = None) -> None:
        """Record the model graph (no-op unless a logger supports it)."""

    def save(self) -> None:
        """Flush what was recorded."""

    def finalize(self, status: str) -> None:
        """Called once at the end of the run with "success", "failed" or "aborted"."""
        self.save()

    def after_save_checkpoint(self, checkpoint_callback: Any) -> None:
        """Called by `ModelCheckpoint` after it wrote a checkpoint."""


class DummyLogger(Logger):
    """Stands in for a user's logger when a feature must not log; accepts every call."""

    def __init__(self) -> None:
        self._experiment = DummyExperiment()

    @property
    def experiment(self) -> DummyExperiment:
        return self._experiment

    def log_metrics(self, *args: Any, **kwargs: Any) -> None:
        pass

    def log_hyperparams(self, *args: Any, **kwargs: Any) -> None:
        pass

    @property
    def name(self) -> str:
        return ""

    @property
    def version(self) -> str:
        return ""

    def __getitem__(self, idx: int) -> DummyLogger:
        return self

    def __getattr__(self, name: str) -> Callable:
        def method(*args: Any, **kwargs: Any) -> None:
            return None

        return method


# --- helpers shared by the file loggers ----------------------------------------------------------
def _convert_params(params: dict[str, Any] | Namespace | None) -> dict[str, Any]:
    if isinstance(params, Namespace):
        return vars(params)
    return {} if params is None else params


def _add_prefix(metrics: Mapping[str, Any], prefix: str, separator: str) -> Mapping[str, Any]:
    if not prefix:
        return metrics
    return {f"{prefix}{separator}{k}": v for k, v in metrics.items()}


class _VersionedLogger(Logger):
    """A logger writing under `save_dir/name/version_N`, N one past the highest existing version
    (Lightning's layout for the CSV and TensorBoard loggers)."""

    def __init__(self, save_dir: str | os.PathLike, name: str | None, version: int | str | None):
        self._save_dir = os.fspath(save_dir)
        self._name = name or ""
        self._version = version

    @property
    def name(self) -> str:
        return self._name

    @property
    def version(self) -> int | str:
        if self._version is None:
            self._version = _next_version(self.root_dir)
        return self._version

    @property
    def save_dir(self) -> str:
        return self._save_dir

    @property
    def root_dir(self) -> str:
        return os.path.join(self.save_dir, self.name)

    @property
    def _version_log_dir(self) -> str:
        return os.path.join(self.root_dir, _version_dir(self.version))


def _next_version(versions_root: str) -> int:
    """One more than the highest existing `version_N` directory under `versions_root` (0 if none)."""
    try:
        entries = os.listdir(versions_root)
    except OSError:
        return 0
    versions = [
        int(entry.split("_")[1])
        for entry in entries
        if entry.startswith("version_")
        and entry.split("_")[1].isdigit()
        and os.path.isdir(os.path.join(versions_root, entry))
    ]
    return max(versions) + 1 if versions else 0


def _version_dir(version: int | str) -> str:
    return version if isinstance(version, str) else f"version_{version}"
