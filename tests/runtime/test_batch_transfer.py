"""The runtime moves a batch to the device exactly as Lightning does (the "meta" device makes a
move visible on a CPU machine): objects with a `to`, mappings, namedtuples, sequences and
dataclasses; a plain object's attributes stay where they are."""

from __future__ import annotations

import dataclasses
from collections import defaultdict, namedtuple

import pytest
import torch
from lightning.fabric.utilities.apply_func import move_data_to_device as lightning_move

import torchlift.runtime as L

Pair = namedtuple("Pair", "x y")


class Plain:  # a collate_fn's `Batch(src, trg)`: no `to`
    def __init__(self, src, trg):
        self.src, self.trg = src, trg


class Movable(Plain):  # moves itself, in place, returning nothing
    def to(self, device):
        self.src, self.trg = self.src.to(device), self.trg.to(device)


@dataclasses.dataclass
class Fields:
    x: torch.Tensor
    rest: list


def _batches():
    t = torch.arange(3.0)
    return [
        t,
        (t, [t, {"k": t}]),
        Pair(t, t),
        defaultdict(list, {"a": t}),
        Plain(t, t),
        Movable(t, t),
        Fields(t, [t, "s"]),
        [Plain(t, t), "text", 3],
    ]


def _devices(data):
    if isinstance(data, torch.Tensor):
        return data.device.type
    if isinstance(data, dict):
        return {k: _devices(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_devices(v) for v in data]
    if hasattr(data, "__dict__"):
        return {k: _devices(v) for k, v in vars(data).items()}
    return data


@pytest.mark.parametrize("index", range(len(_batches())))
def test_moves_what_lightning_moves(index):
    ours = L.LightningModule().transfer_batch_to_device(_batches()[index], torch.device("meta"), 0)
    theirs = lightning_move(_batches()[index], torch.device("meta"))
    assert type(ours) is type(theirs)
    assert _devices(ours) == _devices(theirs)


def test_a_plain_objects_attributes_stay():
    batch = L.LightningDataModule().transfer_batch_to_device(
        Plain(torch.zeros(1), torch.zeros(1)), torch.device("meta"), 0
    )
    assert batch.src.device.type == "cpu"
