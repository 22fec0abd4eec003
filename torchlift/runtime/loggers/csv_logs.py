"""`CSVLogger`: metrics to `save_dir/name/version_N/metrics.csv`, hyperparameters to `hparams.yaml`.

The file layout is Lightning's: one row per `log_metrics` call, a "step" column, columns sorted
by name, the header rewritten (and old rows kept) when a new metric name appears.
"""

from __future__ import annotations

import csv
import os
from argparse import Namespace
from typing import Any

from torch import Tensor

from torchlift.runtime.loggers.hparams_file import save_hparams_to_yaml
from torchlift.runtime.loggers.logger import (
    _add_prefix,
    _convert_params,
    _VersionedLogger,
    rank_zero_experiment,
)
from torchlift.runtime.utilities.rank_zero import rank_zero_only, rank_zero_warn


class ExperimentWriter:
    """Buffers metric rows in memory and appends them to metrics.csv on `save()`."""

    NAME_METRICS_FILE = "metrics.csv"
    NAME_HPARAMS_FILE = "hparams.yaml"

    def __init__(self, log_dir: str) -> None:
        self.hparams: dict[str, Any] = {}
        self.metrics: list[dict[str, Any]] = []
        self.metrics_keys: list[str] = []
        self.log_dir = log_dir
        self.metrics_file_path = os.path.join(log_dir, self.NAME_METRICS_FILE)
        self._check_log_dir_exists()
        os.makedirs(log_dir, exist_ok=True)

    def log_hparams(self, params: dict[str, Any]) -> None:
        self.hparams.update(params)
        save_hparams_to_yaml(os.path.join(self.log_dir, self.NAME_HPARAMS_FILE), self.hparams)

    def log_metrics(self, metrics_dict: dict[str, Any], step: int | None = None) -> None:
        if step is None:
            step = len(self.metrics)
        row = {k: (v.item() if isinstance(v, Tensor) else v) for k, v in metrics_dict.items()}
        row["step"] = step
        self.metrics.append(row)

    def save(self) -> None:
        if not self.metrics:
            return
        current_keys = set().union(*self.metrics)
        new_keys = current_keys - set(self.metrics_keys)
        self.metrics_keys.extend(new_keys)
        self.metrics_keys.sort()
        file_exists = os.path.isfile(self.metrics_file_path)
        if new_keys and file_exists:
            self._rewrite_with_new_header(self.metrics_keys)
        with open(self.metrics_file_path, "a" if file_exists else "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=self.metrics_keys)
            if not file_exists:
                writer.writeheader()
            writer.writerows(self.metrics)
        self.metrics = []

    def _rewrite_with_new_header(self, fieldnames: list[str]) -> None:
        with open(self.metrics_file_path, newline="") as handle:
            rows = list(csv.DictReader(handle))
        with open(self.metrics_file_path, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fieldnames)
            writer.writeheader()
            writer.writerows(rows)

    def _check_log_dir_exists(self) -> None:
        if os.path.isdir(self.log_dir) and os.listdir(self.log_dir):
            rank_zero_warn(
                f"Experiment logs directory {self.log_dir} exists and is not empty."
                " Previous log files in this directory will be deleted when the new ones are saved!"
            )
            if os.path.isfile(self.metrics_file_path):
                os.remove(self.metrics_file_path)


class CSVLogger(_VersionedLogger):
    LOGGER_JOIN_CHAR = "-"

    def __init__(
        self,
        save_dir: str | os.PathLike,
        name: str | None = "lightning_logs",
        version: int | str | None = None,
        prefix: str = "",
        flush_logs_every_n_steps: int = 100,
    ) -> None:
        super().__init__(save_dir, name, version)
        self._prefix = prefix
        self._flush_logs_every_n_steps = flush_logs_every_n_steps
        self._experiment: ExperimentWriter | None = None

    @property
    def log_dir(self) -> str:
        return self._version_log_dir

    @property
    @rank_zero_experiment
    def experiment(self) -> ExperimentWriter:
        if self._experiment is None:
            os.makedirs(self.root_dir, exist_ok=True)
            self._experiment = ExperimentWriter(log_dir=self.log_dir)
        return self._experiment

    @rank_zero_only
    def log_hyperparams(self, params: dict[str, Any] | Namespace | None = None) -> None:
        self.experiment.log_hparams(_convert_params(params))

    @rank_zero_only
    def log_metrics(self, metrics: dict[str, Any], step: int | None = None) -> None:
        metrics = _add_prefix(metrics, self._prefix, self.LOGGER_JOIN_CHAR)
        if step is None:
            step = len(self.experiment.metrics)
        self.experiment.log_metrics(metrics, step)
        if (step + 1) % self._flush_logs_every_n_steps == 0:
            self.save()

    @rank_zero_only
    def save(self) -> None:
        self.experiment.save()

    @rank_zero_only
    def finalize(self, status: str) -> None:
        if self._experiment is not None:  # nothing was logged: create no files
            self.save()
