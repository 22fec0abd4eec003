"""The one place where the Trainer's strings become objects: accelerator, devices, strategy,
precision. Every bad value fails here, at `Trainer(...)`, with one line naming the argument and
what it accepts."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, Union

import torch

from torchlift.runtime.errors import MisconfigurationException
from torchlift.runtime.precision import DoublePrecision, MixedPrecision, Precision
from torchlift.runtime.strategies.strategy import SingleDeviceStrategy, Strategy
from torchlift.runtime.utilities.rank_zero import rank_zero_warn

ACCELERATORS = ("auto", "cpu", "gpu", "cuda", "mps")
STRATEGIES = (
    "auto",
    "single_device",
    "ddp",
    "ddp_spawn",
    "ddp_find_unused_parameters_true",
    "ddp_find_unused_parameters_false",
)
PRECISIONS = ("64-true", "32-true", "16-mixed", "bf16-mixed", 64, 32, 16, "64", "32", "16", "bf16")
_PRECISION_ALIASES = {"64": "64-true", "32": "32-true", "16": "16-mixed", "bf16": "bf16-mixed"}


@dataclass
class Resolved:
    accelerator: str  # "cpu" | "cuda" | "mps"
    devices: list[int]  # device indices for this node (cpu: range(n))
    strategy: Strategy
    precision: Precision
    precision_name: str


def resolve_precision_name(precision: Any) -> str:
    if isinstance(precision, bool) or precision not in PRECISIONS:
        raise MisconfigurationException(
            f"Trainer(precision={precision!r}) is not supported; accepted: "
            + ", ".join(repr(p) for p in PRECISIONS)
        )
    name = str(precision)
    return _PRECISION_ALIASES.get(name, name)


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend and backend.is_available())


def resolve_accelerator(accelerator: Any) -> str:
    if isinstance(accelerator, str):
        flag = accelerator.lower()
    else:
        flag = getattr(accelerator, "device_type", None) or accelerator
    if flag not in ACCELERATORS:
        raise MisconfigurationException(
            f"Trainer(accelerator={accelerator!r}) is not supported; accepted: "
            + ", ".join(repr(a) for a in ACCELERATORS)
        )
    if flag == "auto":
        if torch.cuda.is_available():
            return "cuda"
        return "mps" if _mps_available() else "cpu"
    if flag in ("gpu", "cuda"):
        if not torch.cuda.is_available():
            if flag == "gpu" and _mps_available():
                return "mps"
            raise MisconfigurationException(
                f"Trainer(accelerator={accelerator!r}) needs a CUDA GPU, but none is available; "
                "use accelerator='cpu' or 'auto'"
            )
        return "cuda"
    if flag == "mps" and not _mps_available():
        raise MisconfigurationException(
            "Trainer(accelerator='mps') needs Apple MPS, which is not available"
        )
    return flag


def resolve_devices(devices: Any, accelerator: str) -> list[int]:
    """Device indices this node uses. Lightning's forms: "auto", int (-1 = all), "N", "0,1", list."""
    accepted = (
        "'auto', a positive int, -1 (all), a string such as '2' or '0,1', or a list of indices"
    )
    available = torch.cuda.device_count() if accelerator == "cuda" else 1
    if devices == "auto" or devices is None:
        # Lightning's meaning: every visible GPU (one inside a notebook), one CPU / MPS device
        interactive = hasattr(sys, "ps1") or bool(sys.flags.interactive)
        if accelerator == "cuda" and not interactive:
            return list(range(max(available, 1)))
        return [0]
    parsed: Union[int, list[int]]
    if isinstance(devices, str):
        text = devices.strip()
        try:
            if "," in text:
                parsed = [int(part) for part in text.split(",") if part.strip()]
            else:
                parsed = int(text)
        except ValueError:
            raise MisconfigurationException(
                f"Trainer(devices={devices!r}) is not valid; accepted: {accepted}"
            ) from None
    elif isinstance(devices, bool):
        raise MisconfigurationException(
            f"Trainer(devices={devices!r}) is not valid; accepted: {accepted}"
        )
    elif isinstance(devices, int):
        parsed = devices
    elif isinstance(devices, (list, tuple)) and all(
        isinstance(d, int) and not isinstance(d, bool) for d in devices
    ):
        parsed = list(devices)
    else:
        raise MisconfigurationException(
            f"Trainer(devices={devices!r}) is not valid; accepted: {accepted}"
        )
    if isinstance(parsed, int):
        if parsed == -1:
            count = available if accelerator == "cuda" else (os.cpu_count() or 1)
            return list(range(count))
        if parsed <= 0:
            raise MisconfigurationException(
                f"Trainer(devices={devices!r}) is not valid with accelerator={accelerator!r}; accepted: {accepted}"
            )
        if accelerator == "cuda" and parsed > available:
            raise MisconfigurationException(
                f"Trainer(devices={devices!r}) asks for {parsed} GPUs but {available} are available"
            )
        return list(range(parsed))
    if not parsed or any(d < 0 for d in parsed):
        raise MisconfigurationException(
            f"Trainer(devices={devices!r}) is not valid; accepted: {accepted}"
        )
    if accelerator == "cuda" and max(parsed) >= available:
        raise MisconfigurationException(
            f"Trainer(devices={devices!r}) names GPU {max(parsed)} but only {available} are available"
        )
    return parsed


def _launched_processes_per_node() -> int | None:
    """Processes per machine that torchrun / SLURM already started (None outside a launcher)."""
    if not any(key in os.environ for key in ("LOCAL_WORLD_SIZE", "SLURM_NTASKS", "SLURM_JOB_ID")):
        return None  # the common single-process case pays no import
    from torchlift.runtime.environments import detect_environment

    try:
        return detect_environment().local_world_size()
    except Exception:  # noqa: BLE001 - a half-set environment is the DDP strategy's to report
        return None


def _ddp_strategy(accelerator: str, devices: Any, num_nodes: int, **kwargs: Any) -> Strategy:
    try:
        from torchlift.runtime.strategies.ddp import DDPStrategy
    except ImportError as exc:  # pragma: no cover - only while the DDP part is missing
        raise MisconfigurationException(
            f"strategy='ddp' is not available in this build of torchlift.runtime ({exc})"
        ) from None
    if devices != "auto" and accelerator != "cuda":
        devices = len(devices)  # CPU processes are counted, not indexed
    return DDPStrategy(accelerator=accelerator, devices=devices, num_nodes=num_nodes, **kwargs)


def resolve_strategy(
    strategy: Any, accelerator: str, devices: list[int], num_nodes: int, devices_flag: Any = None
) -> Strategy:
    if isinstance(strategy, Strategy):
        return strategy
    if not isinstance(strategy, str) or strategy.lower() not in STRATEGIES:
        raise MisconfigurationException(
            f"Trainer(strategy={strategy!r}) is not supported; accepted: "
            + ", ".join(repr(s) for s in STRATEGIES)
            + ", or a Strategy instance"
        )
    flag = strategy.lower()
    distributed = len(devices) > 1 or num_nodes > 1
    if flag == "single_device" or (flag == "auto" and not distributed):
        if distributed:
            raise MisconfigurationException(
                f"Trainer(strategy='single_device') cannot use devices={devices} / num_nodes={num_nodes}; "
                "use strategy='ddp'"
            )
        index = devices[0] if devices else 0
        device = (
            torch.device(accelerator, index) if accelerator == "cuda" else torch.device(accelerator)
        )
        return SingleDeviceStrategy(device)
    kwargs: dict[str, Any] = {}
    if flag == "ddp_find_unused_parameters_true":
        kwargs["find_unused_parameters"] = True
    # devices="auto" under a launcher means "the processes it started"; the DDP strategy reads that.
    return _ddp_strategy(
        accelerator, "auto" if devices_flag == "auto" else devices, num_nodes, **kwargs
    )


def resolve_precision(name: str, accelerator: str) -> tuple[Precision, str]:
    if name == "16-mixed" and accelerator == "cpu":
        # What Lightning does: fp16 AMP does not exist on CPU, bf16 autocast is used instead.
        rank_zero_warn(
            "You passed `Trainer(accelerator='cpu', precision='16-mixed')` but AMP with fp16 is not supported "
            "on CPU. Using `precision='bf16-mixed'` instead."
        )
        name = "bf16-mixed"
    if name in ("16-mixed", "bf16-mixed"):
        return MixedPrecision(name, "cuda" if accelerator == "cuda" else accelerator), name
    if name == "64-true":
        return DoublePrecision(), name
    return Precision(), name


def precision_plugin_of(plugins: Any, precision: Any) -> Precision | None:
    """The precision plugin among `Trainer(plugins=...)` (one plugin or an iterable of them),
    as Lightning's accelerator connector reads it: at most one, and not beside `precision=`.
    The runtime has no other kind of plugin (checkpoint IO, cluster environment): an error."""
    if plugins is None:
        return None
    given = [plugins] if not isinstance(plugins, (list, tuple)) else list(plugins)
    others = [p for p in given if not isinstance(p, Precision)]
    if others:
        raise MisconfigurationException(
            f"Trainer(plugins={others[0]!r}) is not supported by torchlift.runtime (only a "
            "precision plugin is); remove it or run the script on Lightning"
        )
    if len(given) > 1:
        raise MisconfigurationException(
            "Received multiple values for Precision flags in `plugins`. Expected one value for "
            "each type at most."
        )
    if given and precision is not None:
        raise ValueError(
            f"Received both `precision={precision}` and `plugins={given[0]}`. Choose one."
        )
    return given[0] if given else None


def resolve(
    accelerator: Any,
    devices: Any,
    strategy: Any,
    num_nodes: Any,
    precision: Any,
    precision_plugin: Precision | None = None,
) -> Resolved:
    precision_name = resolve_precision_name(precision)
    if not isinstance(num_nodes, int) or isinstance(num_nodes, bool) or num_nodes < 1:
        raise MisconfigurationException(
            f"Trainer(num_nodes={num_nodes!r}) is not valid; accepted: a positive int"
        )
    if isinstance(strategy, Strategy) and accelerator == "auto":
        accelerator_type = strategy.root_device.type
    else:
        accelerator_type = resolve_accelerator(accelerator)
    device_list = resolve_devices(devices, accelerator_type)
    if devices in ("auto", None):
        launched = _launched_processes_per_node()
        if launched and launched > 1:
            device_list = list(range(launched))
    strategy_obj = resolve_strategy(strategy, accelerator_type, device_list, num_nodes, devices)
    if precision_plugin is not None:  # Lightning uses it as given, on any accelerator
        plugin, precision_name = precision_plugin, precision_plugin.name
    else:
        plugin, precision_name = resolve_precision(precision_name, accelerator_type)
    return Resolved(accelerator_type, device_list, strategy_obj, plugin, precision_name)
