"""`DDPStrategy`: one process per device, gradients averaged by `DistributedDataParallel`.

gloo on CPU, nccl on CUDA (`torch.cuda.set_device(local device)`, `device_ids=[it]`). Where the
processes come from is the environment's business (environments.py): under torchrun or SLURM
they exist already; from a plain `python train.py`, local rank 0 starts the others
(launcher.py) when the trainer first calls `setup_environment`.

The LightningModule itself is never replaced: `setup_module` wraps it in DDP and points the
module's `training_step` at the wrapper's forward, so the trainer keeps calling
`module.training_step(...)`, DDP sees a forward before every backward (that is what arms its
gradient all-reduce), and checkpoints keep Lightning's parameter names (no "module." prefix).
No collective runs per step beyond DDP's own all-reduce; everything else here runs only when
the trainer asks (`self.log(sync_dist=True)`, callbacks' decisions, barriers).
"""

from __future__ import annotations

import atexit
import contextlib
import os
from datetime import timedelta
from typing import Any

import torch

from torchlift.runtime.distributed import inject_distributed_sampler
from torchlift.runtime.environments import (
    ClusterEnvironment,
    DistributedEnvironmentError,
    LocalEnvironment,
    detect_environment,
)
from torchlift.runtime.errors import MisconfigurationException
from torchlift.runtime.strategies.group_teardown import destroy_default_group
from torchlift.runtime.strategies.strategy import Strategy
from torchlift.runtime.utilities.rank_zero import rank_zero_only

DEFAULT_TIMEOUT = timedelta(minutes=30)  # Lightning's default_pg_timeout
_REDUCE_OPS = {"sum": "SUM", "max": "MAX", "min": "MIN", "mean": "SUM", "avg": "SUM"}


def _normalize_accelerator(accelerator: str) -> str:
    accelerator = str(accelerator).lower()
    if accelerator in ("gpu", "cuda"):
        return "cuda"
    if accelerator == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if accelerator != "cpu":
        raise MisconfigurationException(
            f"DDPStrategy: accelerator={accelerator!r} is not supported; use 'cpu', 'gpu'/'cuda' "
            f"or 'auto'"
        )
    return accelerator


def _parse_devices(
    devices: int | list[int] | str, accelerator: str, environment: ClusterEnvironment
) -> list[int]:
    """Local device indices, one per process on this machine (CPU: 0..N-1, all meaning 'cpu')."""
    if isinstance(devices, str):
        text = devices.strip()
        if text == "auto":
            launched = environment.local_world_size()
            if launched is not None:
                return list(range(launched))
            count = torch.cuda.device_count() if accelerator == "cuda" else 1
            return list(range(max(count, 1)))
        if "," in text:
            return [int(part) for part in text.split(",") if part.strip()]
        try:
            devices = int(text)
        except ValueError:
            raise MisconfigurationException(
                f"devices={devices!r} is not understood; use an int, a list of device indices, "
                f"'auto' or -1"
            ) from None
    if isinstance(devices, (list, tuple)):
        if not devices:
            raise MisconfigurationException("devices=[] selects no device; give at least one index")
        return [int(index) for index in devices]
    if isinstance(devices, int) and not isinstance(devices, bool):
        if devices == -1:
            count = torch.cuda.device_count() if accelerator == "cuda" else (os.cpu_count() or 1)
            return list(range(count))
        if devices >= 1:
            return list(range(devices))
    raise MisconfigurationException(
        f"devices={devices!r} is not valid; use a positive int, a list of device indices, "
        f"'auto' or -1"
    )


class _StepThroughDDP(torch.nn.Module):
    """DDP's forward target: runs the LightningModule's own `training_step`."""

    def __init__(self, module: torch.nn.Module, step: Any) -> None:
        super().__init__()
        self.module = module
        self._step = step

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._step(*args, **kwargs)


class DDPStrategy(Strategy):
    strategy_name = "ddp"
    is_parallel = True

    def __init__(
        self,
        accelerator: str = "cpu",
        devices: int | list[int] | str = 1,
        num_nodes: int = 1,
        process_group_backend: str | None = None,
        timeout: timedelta | None = DEFAULT_TIMEOUT,
        cluster_environment: ClusterEnvironment | None = None,
        **ddp_kwargs: Any,
    ) -> None:
        self.accelerator = _normalize_accelerator(accelerator)
        if not isinstance(num_nodes, int) or isinstance(num_nodes, bool) or num_nodes < 1:
            raise MisconfigurationException(
                f"num_nodes={num_nodes!r} is not valid; use a positive int"
            )
        self.environment = cluster_environment or detect_environment()
        self.parallel_devices = _parse_devices(devices, self.accelerator, self.environment)
        self.num_processes = len(self.parallel_devices)
        self.num_nodes = num_nodes
        self.process_group_backend = process_group_backend or (
            "nccl" if self.accelerator == "cuda" else "gloo"
        )
        self.timeout = timeout
        self.ddp_kwargs = ddp_kwargs
        self.launcher = None
        self._ddp: torch.nn.parallel.DistributedDataParallel | None = None
        self._wrapped: torch.nn.Module | None = None
        # A broken environment fails here, at Trainer construction, before any process starts.
        self.environment.validate(self.num_processes, self.num_nodes)
        super().__init__(self._device_for(self.local_rank))
        # Known before any process group exists, as in Lightning: loggers created at Trainer
        # construction already write on rank zero only.
        rank_zero_only.rank = self.global_rank

    def _device_for(self, local_rank: int) -> torch.device:
        if self.accelerator == "cuda":
            return torch.device("cuda", self.parallel_devices[local_rank])
        return torch.device("cpu")

    # --- process topology -------------------------------------------------------------------
    @property
    def global_rank(self) -> int:
        return self.environment.global_rank()

    @property
    def local_rank(self) -> int:
        return self.environment.local_rank()

    @property
    def node_rank(self) -> int:
        return self.environment.node_rank()

    @property
    def world_size(self) -> int:
        return self.environment.world_size()

    @property
    def distributed_sampler_kwargs(self) -> dict[str, int]:
        return {"num_replicas": self.world_size, "rank": self.global_rank}

    # --- life cycle --------------------------------------------------------------------------
    def setup_environment(self) -> None:
        """Launch the other local ranks if this is a plain run, then join the process group.

        Idempotent: `trainer.test()` after `trainer.fit()` reuses the same processes and group.
        """
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return
        from torchlift.runtime.failure import install_failure_hook, watch_parent
        from torchlift.runtime.launcher import PARENT_PID_KEY, SubprocessScriptLauncher

        env = self.environment
        self._limit_threads()
        if not env.creates_processes_externally and self.num_processes > 1:
            assert isinstance(env, LocalEnvironment)
            self.launcher = SubprocessScriptLauncher(env, self.num_processes, self.num_nodes)
            self.launcher.launch()
        parent = os.environ.get(PARENT_PID_KEY)
        if parent is not None and int(parent) != os.getpid():
            watch_parent(int(parent))
        install_failure_hook(self.global_rank, self.launcher)
        os.environ["MASTER_ADDR"] = env.main_address()
        os.environ["MASTER_PORT"] = str(env.main_port())
        if self.root_device.type == "cuda":
            torch.cuda.set_device(self.root_device)
        try:
            dist.init_process_group(
                self.process_group_backend,
                rank=self.global_rank,
                world_size=self.world_size,
                timeout=self.timeout,
            )
        except dist.DistNetworkError as exc:
            raise DistributedEnvironmentError(
                f"could not open the process group at {os.environ['MASTER_ADDR']}:"
                f"{os.environ['MASTER_PORT']} ({str(exc).strip().splitlines()[0]}); is the port "
                f"in use or the address wrong?"
            ) from None
        install_failure_hook(self.global_rank, self.launcher)  # replaces torch's own hook
        # A gloo group left for interpreter finalization can abort the process ("terminate
        # called without an active exception") after a run that succeeded (group_teardown.py).
        # Registered after the launcher's handler, so it runs first: the group is gone before
        # rank 0 waits for its children.
        atexit.register(destroy_default_group)
        if self.launcher is not None:
            self.launcher.group_formed()
        rank_zero_only.rank = self.global_rank

    def _limit_threads(self) -> None:
        # N processes on one machine each using every core slows all of them down (Lightning too).
        if self.num_processes > 1 and "OMP_NUM_THREADS" not in os.environ:
            threads = max(1, (os.cpu_count() or 1) // self.num_processes)
            torch.set_num_threads(threads)
            os.environ["OMP_NUM_THREADS"] = str(threads)

    def setup_module(self, module: torch.nn.Module) -> torch.nn.Module:
        module = module.to(self.root_device)
        if self._wrapped is module or not any(p.requires_grad for p in module.parameters()):
            return module
        from torch.nn.parallel import DistributedDataParallel

        self._restore_module()
        device_ids = [self.root_device.index] if self.root_device.type == "cuda" else None
        step = getattr(module, "training_step", None)
        if step is None:  # a plain nn.Module: hand back the wrapper, whose forward syncs
            self._ddp = DistributedDataParallel(module, device_ids=device_ids, **self.ddp_kwargs)
            return self._ddp
        self._ddp = DistributedDataParallel(
            _StepThroughDDP(module, step), device_ids=device_ids, **self.ddp_kwargs
        )
        ddp = self._ddp

        def training_step(*args: Any, **kwargs: Any) -> Any:
            return ddp(*args, **kwargs)

        # An instance attribute shadows the class's method; set through __dict__ because
        # nn.Module.__setattr__ would register a Module value as a child (a cycle here).
        module.__dict__["training_step"] = training_step
        self._wrapped = module
        return module

    def _restore_module(self) -> None:
        if self._wrapped is not None:
            self._wrapped.__dict__.pop("training_step", None)
        self._wrapped = None
        self._ddp = None

    @property
    def model(self) -> torch.nn.Module | None:
        """The DistributedDataParallel wrapper while training (None outside)."""
        return self._ddp

    def process_dataloader(self, dataloader: Any, stage: str, overfit: bool = False) -> Any:
        stage = {
            "train": "fit",
            "training": "fit",
            "val": "validate",
            "validation": "validate",
        }.get(stage, stage)
        return inject_distributed_sampler(
            dataloader, stage, self.world_size, self.global_rank, overfit
        )

    def block_backward_sync(self, module: torch.nn.Module, should_sync: bool):
        # Micro-batches that do not step keep their gradients local; the stepping one all-reduces
        # the accumulated sum once.
        if should_sync or self._ddp is None:
            return contextlib.nullcontext()
        return self._ddp.no_sync()

    def teardown(self) -> None:
        """Unwrap the module; the process group stays for a later validate/test in this launch."""
        self._restore_module()

    # --- collectives ------------------------------------------------------------------------
    def _active(self) -> bool:
        import torch.distributed as dist

        return dist.is_available() and dist.is_initialized() and self.world_size > 1

    def reduce(self, tensor: Any, reduce_op: str = "mean") -> Any:
        if not self._active():
            return tensor
        import torch.distributed as dist

        op_name = str(reduce_op).lower()
        if op_name not in _REDUCE_OPS:
            raise MisconfigurationException(
                f"reduce_op={reduce_op!r} is not supported; use one of {sorted(_REDUCE_OPS)}"
            )
        is_tensor = isinstance(tensor, torch.Tensor)
        value = tensor.detach().clone() if is_tensor else torch.tensor(tensor)
        source_device = value.device
        value = value.to(self.root_device)
        if op_name in ("mean", "avg") and not value.is_floating_point():
            value = value.float()
        dist.all_reduce(value, op=getattr(dist.ReduceOp, _REDUCE_OPS[op_name]))
        if op_name in ("mean", "avg"):
            value = value / self.world_size
        return value.to(source_device)

    def broadcast(self, obj: Any, src: int = 0) -> Any:
        if not self._active():
            return obj
        import torch.distributed as dist

        holder = [obj]
        device = self.root_device if self.process_group_backend == "nccl" else None
        dist.broadcast_object_list(holder, src=src, device=device)
        return holder[0]

    def barrier(self, name: str | None = None) -> None:
        if not self._active():
            return
        import torch.distributed as dist

        if self.process_group_backend == "nccl":
            dist.barrier(device_ids=[self.root_device.index])
        else:
            dist.barrier()

    def all_gather(self, tensor: torch.Tensor) -> torch.Tensor:
        if not self._active():
            return tensor.unsqueeze(0)
        import torch.distributed as dist

        value = tensor.detach().to(self.root_device).contiguous()
        parts = [torch.empty_like(value) for _ in range(self.world_size)]
        dist.all_gather(parts, value)
        return torch.stack(parts).to(tensor.device)

    def reduce_boolean_decision(self, decision: bool, all: bool = True) -> bool:
        if not self._active():
            return decision
        votes = self.reduce(torch.tensor(int(bool(decision)), device=self.root_device), "sum")
        return bool(votes == self.world_size) if all else bool(votes > 0)
