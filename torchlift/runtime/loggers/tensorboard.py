"""`TensorBoardLogger`: TensorBoard event files in `save_dir/name/version_N[/sub_dir]`.

Uses the real event writer (`torch.utils.tensorboard.SummaryWriter`, which needs the
`tensorboard` package), imported when the first event is written, so importing the runtime
stays cheap. Hyperparameters go to TensorBoard's HParams plugin and to `hparams.yaml`.
"""

from __future__ import annotations

import os
from argparse import Namespace
from collections.abc import MutableMapping
from dataclasses import asdict, is_dataclass
from typing import Any, Mapping

from torch import Tensor

from torchlift.runtime.loggers.hparams_file import save_hparams_to_yaml
from torchlift.runtime.loggers.logger import (
    _add_prefix,
    _convert_params,
    _VersionedLogger,
    rank_zero_experiment,
)
from torchlift.runtime.utilities.rank_zero import rank_zero_only, rank_zero_warn


def _tensorboard_available() -> bool:
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        return False
    return True


def _flatten_dict(params: MutableMapping, delimiter: str = "/", parent_key: str = "") -> dict:
    """{"a": {"b": 1}} -> {"a/b": 1}; lists of dicts are flattened with their index."""
    result: dict[str, Any] = {}
    for key, value in params.items():
        new_key = f"{parent_key}{delimiter}{key}" if parent_key else str(key)
        if is_dataclass(value) and not isinstance(value, type):
            value = asdict(value)
        elif isinstance(value, Namespace):
            value = vars(value)
        if isinstance(value, MutableMapping):
            result.update(_flatten_dict(value, delimiter, new_key))
        elif (
            isinstance(value, list) and value and all(isinstance(v, MutableMapping) for v in value)
        ):
            for i, item in enumerate(value):
                result.update(_flatten_dict(item, delimiter, f"{new_key}/{i}"))
        else:
            result[new_key] = value
    return result


def _sanitize_params(params: dict[str, Any]) -> dict[str, Any]:
    """HParams accepts bool/int/float/str/scalar tensors; anything else is shown as text."""
    clean: dict[str, Any] = {}
    for key, value in params.items():
        if (
            hasattr(value, "item")
            and not isinstance(value, Tensor)
            and getattr(value, "ndim", 1) == 0
        ):
            value = value.item()  # numpy scalars
        if type(value) not in (bool, int, float, str, Tensor):
            value = str(value)
        if hasattr(value, "ndim") and value.ndim > 1:
            value = str(value)
        clean[key] = value
    return clean


class TensorBoardLogger(_VersionedLogger):
    NAME_HPARAMS_FILE = "hparams.yaml"
    LOGGER_JOIN_CHAR = "-"

    def __init__(
        self,
        save_dir: str | os.PathLike,
        name: str | None = "lightning_logs",
        version: int | str | None = None,
        log_graph: bool = False,
        default_hp_metric: bool = True,
        prefix: str = "",
        sub_dir: str | os.PathLike | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(save_dir, name, version)
        self._sub_dir = None if sub_dir is None else os.fspath(sub_dir)
        self._default_hp_metric = default_hp_metric
        self._prefix = prefix
        self._kwargs = kwargs
        self._experiment = None
        self._log_graph = log_graph
        self.hparams: dict[str, Any] = {}

    @property
    def sub_dir(self) -> str | None:
        return self._sub_dir

    @property
    def log_dir(self) -> str:
        log_dir = self._version_log_dir
        if isinstance(self.sub_dir, str):
            log_dir = os.path.join(log_dir, self.sub_dir)
        return os.path.expanduser(os.path.expandvars(log_dir))

    @property
    @rank_zero_experiment
    def experiment(self):
        """The `SummaryWriter` (created on first use, on rank zero only)."""
        if self._experiment is not None:
            return self._experiment
        if not _tensorboard_available():
            raise ModuleNotFoundError(
                "TensorBoardLogger needs the `tensorboard` package: `pip install tensorboard`,"
                " or use `CSVLogger` instead."
            )
        from torch.utils.tensorboard import SummaryWriter

        if self.root_dir:
            os.makedirs(self.root_dir, exist_ok=True)
        self._experiment = SummaryWriter(log_dir=self.log_dir, **self._kwargs)
        return self._experiment

    @rank_zero_only
    def log_metrics(self, metrics: Mapping[str, Any], step: int | None = None) -> None:
        metrics = _add_prefix(metrics, self._prefix, self.LOGGER_JOIN_CHAR)
        for key, value in metrics.items():
            if isinstance(value, Tensor):
                value = value.item()
            if isinstance(value, dict):
                self.experiment.add_scalars(key, value, step)
                continue
            try:
                self.experiment.add_scalar(key, value, step)
            except Exception as error:
                raise ValueError(
                    f"TensorBoardLogger cannot log {key}={value!r}: log a number, a scalar tensor"
                    " or a dict of them."
                ) from error

    @rank_zero_only
    def log_hyperparams(
        self,
        params: dict[str, Any] | Namespace,
        metrics: dict[str, Any] | float | None = None,
        step: int | None = None,
    ) -> None:
        """Record hyperparameters (and `hp_metric`, -1 until the user logs it, as Lightning does)."""
        params = _convert_params(params)
        self.hparams.update(params)
        params = _sanitize_params(_flatten_dict(params))
        if metrics is None:
            metrics = {"hp_metric": -1} if self._default_hp_metric else None
        elif not isinstance(metrics, dict):
            metrics = {"hp_metric": metrics}
        if metrics:
            self.log_metrics(metrics, step)
            from torch.utils.tensorboard.summary import hparams

            writer = self.experiment._get_file_writer()
            for summary in hparams(params, metrics):
                writer.add_summary(summary, step)

    @rank_zero_only
    def log_graph(self, model: Any, input_array: Tensor | None = None) -> None:
        if not self._log_graph:
            return
        if input_array is None:
            input_array = getattr(model, "example_input_array", None)
        if input_array is None:
            rank_zero_warn(
                "Could not log computational graph to TensorBoard: The `model.example_input_array`"
                " attribute is not set or `input_array` was not given."
            )
        elif not isinstance(input_array, (Tensor, tuple)):
            rank_zero_warn(
                "Could not log computational graph to TensorBoard: `input_array` has type"
                f" {type(input_array)}; give a tensor or a tuple of the `forward()` arguments."
            )
        else:
            device = getattr(model, "device", None)
            if isinstance(input_array, Tensor) and device is not None:
                input_array = input_array.to(device)
            self.experiment.add_graph(model, input_array)

    @rank_zero_only
    def save(self) -> None:
        self.experiment.flush()
        hparams_file = os.path.join(self.log_dir, self.NAME_HPARAMS_FILE)
        if os.path.isdir(self.log_dir) and not os.path.isfile(hparams_file):
            save_hparams_to_yaml(hparams_file, self.hparams)

    @rank_zero_only
    def finalize(self, status: str) -> None:
        if self._experiment is not None:
            self._experiment.flush()
            self._experiment.close()
        if status == "success":
            self.save()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_experiment"] = None  # the writer owns a thread and a file
        return state
