"""`Strategy`: where the model, the data and the processes live. The trainer talks only to this.

Single-process training is the base behaviour (methods are identity / no-ops); `DDPStrategy`
(strategies/ddp.py) overrides them. Contract used by the trainer, in call order:

    strategy.setup_environment()          # before anything else in fit/validate/test/predict:
                                          # launch extra local ranks if needed, init the process group
    module = strategy.setup_module(model) # move to root_device; wrap (DDP) for training
    loader = strategy.process_dataloader(loader, stage)   # inject DistributedSampler etc.
    strategy.on_train_epoch_start(loader, epoch)          # set_epoch on distributed samplers
    with strategy.block_backward_sync(module, should_sync): ...  # no_sync on accumulation micro-batches
    strategy.reduce(tensor, "mean"|"sum"|"max"|"min")     # self.log(sync_dist=True), callbacks' decisions
    strategy.broadcast(obj, src=0) / strategy.barrier(name)
    strategy.teardown()
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch


class Strategy:
    # one process per device (DDP): where Lightning's parallel strategies apply layer syncs
    is_parallel = False

    def __init__(self, device: torch.device | str = "cpu") -> None:
        self.root_device = torch.device(device)

    # --- process topology -------------------------------------------------------------------
    @property
    def global_rank(self) -> int:
        return 0

    @property
    def local_rank(self) -> int:
        return 0

    @property
    def node_rank(self) -> int:
        return 0

    @property
    def world_size(self) -> int:
        return 1

    @property
    def is_global_zero(self) -> bool:
        return self.global_rank == 0

    # --- life cycle --------------------------------------------------------------------------
    def setup_environment(self) -> None:
        if self.root_device.type == "cuda":
            torch.cuda.set_device(self.root_device)

    def setup_module(self, module: torch.nn.Module) -> torch.nn.Module:
        return module.to(self.root_device)

    def unwrap(self, module: torch.nn.Module) -> torch.nn.Module:
        return module

    def process_dataloader(self, dataloader: Any, stage: str, overfit: bool = False) -> Any:
        return dataloader

    def on_train_epoch_start(self, dataloader: Any, epoch: int) -> None:
        sampler = getattr(dataloader, "sampler", None)
        if hasattr(sampler, "set_epoch"):
            sampler.set_epoch(epoch)

    def block_backward_sync(self, module: torch.nn.Module, should_sync: bool):
        return contextlib.nullcontext()

    def teardown(self) -> None: ...

    # --- collectives ------------------------------------------------------------------------
    def reduce(self, tensor: torch.Tensor, reduce_op: str = "mean") -> torch.Tensor:
        return tensor

    def broadcast(self, obj: Any, src: int = 0) -> Any:
        return obj

    def barrier(self, name: str | None = None) -> None: ...

    def all_gather(self, tensor: torch.Tensor) -> torch.Tensor:
        return tensor.unsqueeze(0)

    def reduce_boolean_decision(self, decision: bool, all: bool = True) -> bool:
        return decision


class SingleDeviceStrategy(Strategy):
    """One process, one device."""
