"""Write `hparams.yaml` as Lightning does (PyYAML's `yaml.dump`), with a fallback writer.

Lightning (without omegaconf) writes `yaml.dump(hparams)`: block style, keys sorted. PyYAML is
not a dependency of torchlift, so when it is missing `dump_yaml` emits the same text for the
values hyperparameters are made of (None, bool, int, float, str, lists, dicts); anything else is
written as its string form, so the file stays readable by `yaml.safe_load`.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from argparse import Namespace
from enum import Enum
from typing import Any, Mapping

_PLAIN = re.compile(r"^[A-Za-z_/][A-Za-z0-9_ ./()'-]*$")
_RESERVED = {"yes", "no", "on", "off", "true", "false", "null", "~"}


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value).lower()
        if "." not in text and "e" in text:  # PyYAML writes 1e-05 as 1.0e-05
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"
        return text
    text = str(value)
    if (
        _PLAIN.match(text)
        and text.lower() not in _RESERVED
        and not text.endswith(" ")
        and ": " not in text
        and " #" not in text
    ):
        return text
    return "'" + text.replace("'", "''") + "'"


def _lines(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    out: list[str] = []
    if isinstance(value, Mapping):
        for key in sorted(value, key=str):
            item = value[key]
            head = f"{pad}{_scalar(key)}:"
            if isinstance(item, Mapping) and item:
                out += [head, *_lines(item, indent + 2)]
            elif isinstance(item, (list, tuple)) and item:
                out += [head, *_lines(item, indent)]  # PyYAML does not indent lists under keys
            else:
                out.append(f"{head} {_inline(item)}")
    else:
        for item in value:
            if isinstance(item, Mapping) and item:
                nested = _lines(item, indent + 2)
                out.append(f"{pad}- {nested[0].lstrip()}")
                out += nested[1:]
            elif isinstance(item, (list, tuple)) and item:
                nested = _lines(item, indent + 2)
                out.append(f"{pad}- {nested[0].lstrip()}")
                out += nested[1:]
            else:
                out.append(f"{pad}- {_inline(item)}")
    return out


def _inline(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, (list, tuple)):
        return "[]"
    return _scalar(value)


def _fallback_dump(data: Any) -> str:
    if isinstance(data, (Mapping, list, tuple)) and data:
        return "\n".join(_lines(data, 0)) + "\n"
    return (
        _inline(data)
        + "\n"
        + ("..." + "\n" if not isinstance(data, (Mapping, list, tuple)) else "")
    )


def dump_yaml(data: Any) -> str:
    """YAML text for `data`: PyYAML's `yaml.dump` if installed, else the equivalent fallback."""
    try:
        import yaml
    except ImportError:
        return _fallback_dump(data)
    return yaml.dump(data)


def _plain(value: Any) -> Any:
    """The fallback writer's view of a value: containers kept, other objects as strings."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


def save_hparams_to_yaml(config_yaml: str | os.PathLike, hparams: Mapping | Namespace) -> None:
    """Lightning's `save_hparams_to_yaml` (without omegaconf): drop values YAML cannot represent."""
    folder = os.path.dirname(os.fspath(config_yaml))
    if not os.path.isdir(folder):
        raise RuntimeError(f"Missing folder: {folder}.")
    if isinstance(hparams, Namespace):
        hparams = vars(hparams)
    if not isinstance(hparams, Mapping):
        raise TypeError("hparams must be dictionary")
    try:
        import yaml
    except ImportError:
        yaml = None
    allowed: dict[str, Any] = {}
    for key, value in dict(hparams).items():
        value = value.name if isinstance(value, Enum) else value
        if yaml is None:
            allowed[key] = _plain(value)
            continue
        try:
            yaml.dump(value)
        except (TypeError, ValueError):
            warnings.warn(
                f"Skipping '{key}' parameter because it is not possible to safely dump to YAML."
            )
        else:
            allowed[key] = value
    with open(config_yaml, "w", newline="") as handle:
        handle.write(dump_yaml(allowed))
