"""Moving a batch to the device, as Lightning's `move_data_to_device` does.

Lightning moves every object whose class has a callable `to` (a tensor, a PyG `Data`, a HF
`BatchEncoding`, a script's own batch class with `to`) and walks mappings, namedtuples,
sequences and dataclass instances; anything else -- a plain object's attributes -- stays where
it is. The runtime must move exactly the same things: a conversion that verified on one target
must place its data the same way on the other.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict, defaultdict
from collections.abc import Mapping, Sequence
from copy import deepcopy
from functools import cached_property
from typing import Any

import torch

_BLOCKING_DEVICE_TYPES = ("cpu", "mps")  # Lightning issues no non-blocking copy to these


def move_data_to_device(batch: Any, device: torch.device | str) -> Any:
    if isinstance(device, str):
        device = torch.device(device)

    def move(data: Any) -> Any:
        kwargs = {}
        if isinstance(data, torch.Tensor) and device.type not in _BLOCKING_DEVICE_TYPES:
            kwargs["non_blocking"] = True
        moved = data.to(device, **kwargs)
        return data if moved is None else moved  # a `to` that moves in place returns nothing

    return _apply(batch, move)


def _apply(data: Any, move) -> Any:
    if callable(getattr(type(data), "to", None)):
        return move(data)
    if dataclasses.is_dataclass(data) and not isinstance(data, type):
        return _dataclass(data, move)
    if isinstance(data, Mapping):
        items = OrderedDict((key, _apply(value, move)) for key, value in data.items())
        if isinstance(data, defaultdict):
            return type(data)(data.default_factory, items)
        return type(data)(items)
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return type(data)(*(_apply(item, move) for item in data))
    if isinstance(data, Sequence) and not isinstance(data, str):
        return type(data)([_apply(item, move) for item in data])
    return data


def _dataclass(data: Any, move) -> Any:
    """A copy with its init fields moved (Lightning copies the rest, and refuses a frozen one)."""
    fields = {f.name: (getattr(data, f.name), f.init) for f in dataclasses.fields(data)}
    result = deepcopy(data, memo={id(value): value for value, _ in fields.values()})
    for name, (value, init) in fields.items():
        try:
            setattr(result, name, _apply(value, move) if init else value)
        except dataclasses.FrozenInstanceError as e:
            raise ValueError(
                "A frozen dataclass was passed to `apply_to_collection` but this is not allowed."
            ) from e
    for name, attr in vars(type(data)).items():  # a cached value may hold the old data
        if isinstance(attr, cached_property):
            vars(result).pop(name, None)
    return result
