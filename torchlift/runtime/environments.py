"""Where the processes of a job come from, read from the environment the launcher left behind.

Three sources, checked in this order:

- `TorchElasticEnvironment`: the process was started by `torchrun` / `torch.distributed.run`
  (`TORCHELASTIC_RUN_ID` is set). Ranks and sizes come from RANK, LOCAL_RANK, GROUP_RANK,
  WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT.
- `SLURMEnvironment`: started by `srun` inside a SLURM job (`SLURM_NTASKS` set and a job name
  other than the interactive `bash` / `interactive`, as Lightning decides).
- `LocalEnvironment`: a plain `python train.py`. Local rank 0 re-runs the script for the other
  local ranks (launcher.py); those children, and processes a user starts by hand with
  LOCAL_RANK / NODE_RANK / MASTER_ADDR / MASTER_PORT (Lightning's manual protocol), read it back.

Nothing here starts processes or talks to the network; `validate` turns a broken environment
(a stale WORLD_SIZE, RANK without WORLD_SIZE, a NODE_RANK outside num_nodes, ...) into one clear
error before any process is started.
"""

from __future__ import annotations

import os
import re
import socket

from torchlift.runtime.errors import MisconfigurationException


class DistributedEnvironmentError(MisconfigurationException):
    """The environment describes a distributed job that cannot work; the message says why."""


def _int_env(key: str) -> int:
    value = os.environ[key]
    try:
        return int(value)
    except ValueError:
        raise DistributedEnvironmentError(
            f"environment variable {key}={value!r} is not an integer"
        ) from None


def find_free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("", 0))
        return sock.getsockname()[1]


def is_port_in_use(port: int) -> bool:
    """Whether something listens on (or holds) `port`. A port the previous run left in
    TIME_WAIT is free: rank 0's TCPStore sets SO_REUSEADDR and listens on it, so this check
    does too (without it, rerunning a script with a fixed MASTER_PORT failed for a minute)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("", port))
        except OSError:
            return True
    return False


class ClusterEnvironment:
    """Interface: the topology of this process within the job."""

    name = "cluster"
    #: True when some launcher (torchrun, srun, our own launcher, the user) already started
    #: every process; False for a plain `python train.py`, whose rank 0 must launch the rest.
    creates_processes_externally = True

    def main_address(self) -> str:
        return os.environ.get("MASTER_ADDR", "127.0.0.1")

    def main_port(self) -> int:
        return _int_env("MASTER_PORT")

    def world_size(self) -> int:
        raise NotImplementedError

    def global_rank(self) -> int:
        raise NotImplementedError

    def local_rank(self) -> int:
        raise NotImplementedError

    def node_rank(self) -> int:
        raise NotImplementedError

    def local_world_size(self) -> int | None:
        """Processes per machine as the launcher knows it (what `devices="auto"` means), or None."""
        return None

    def validate(self, num_processes: int, num_nodes: int) -> None:
        """Raise DistributedEnvironmentError when the job cannot start with these settings."""
        expected = num_processes * num_nodes
        if self.world_size() != expected:
            raise DistributedEnvironmentError(
                f"{self.name} started {self.world_size()} processes, but devices={num_processes} x "
                f"num_nodes={num_nodes} = {expected}; make the Trainer's devices/num_nodes match "
                f"the launcher (devices='auto' uses the launcher's processes per machine)"
            )
        if not 0 <= self.global_rank() < expected:
            raise DistributedEnvironmentError(
                f"global rank {self.global_rank()} is outside the world size {expected}"
            )


class TorchElasticEnvironment(ClusterEnvironment):
    name = "torchrun"

    @staticmethod
    def detect() -> bool:
        return "TORCHELASTIC_RUN_ID" in os.environ

    def _require(self, key: str) -> int:
        if key not in os.environ:
            raise DistributedEnvironmentError(
                f"started by torchrun but {key} is not set; run the script with "
                f"`torchrun` / `python -m torch.distributed.run` unchanged"
            )
        return _int_env(key)

    def main_port(self) -> int:
        return self._require("MASTER_PORT")

    def world_size(self) -> int:
        return self._require("WORLD_SIZE")

    def global_rank(self) -> int:
        return self._require("RANK")

    def local_rank(self) -> int:
        return self._require("LOCAL_RANK")

    def node_rank(self) -> int:
        return _int_env("GROUP_RANK") if "GROUP_RANK" in os.environ else 0

    def local_world_size(self) -> int | None:
        return _int_env("LOCAL_WORLD_SIZE") if "LOCAL_WORLD_SIZE" in os.environ else None


def _first_slurm_host(nodelist: str) -> str:
    # "host[5-9,12]" -> "host5"; "a,b" -> "a"; "a b" -> "a"
    nodelist = re.sub(r"\[(\d+)[^\]]*\]", r"\1", nodelist)
    return nodelist.split(" ")[0].split(",")[0]


class SLURMEnvironment(ClusterEnvironment):
    name = "SLURM"

    @staticmethod
    def detect() -> bool:
        return "SLURM_NTASKS" in os.environ and os.environ.get("SLURM_JOB_NAME") not in (
            "bash",
            "interactive",
        )

    def main_address(self) -> str:
        if "MASTER_ADDR" not in os.environ:
            os.environ["MASTER_ADDR"] = _first_slurm_host(
                os.environ.get("SLURM_NODELIST", "127.0.0.1")
            )
        return os.environ["MASTER_ADDR"]

    def main_port(self) -> int:
        # Lightning's convention, so every task of the job derives the same port without talking.
        if "MASTER_PORT" not in os.environ:
            job_id = os.environ.get("SLURM_JOB_ID")
            port = 15000 + int(job_id[-4:]) if job_id and job_id[-4:].isdigit() else 12910
            os.environ["MASTER_PORT"] = str(port)
        return _int_env("MASTER_PORT")

    def world_size(self) -> int:
        return _int_env("SLURM_NTASKS")

    def global_rank(self) -> int:
        return _int_env("SLURM_PROCID")

    def local_rank(self) -> int:
        return _int_env("SLURM_LOCALID")

    def node_rank(self) -> int:
        return _int_env("SLURM_NODEID")

    def local_world_size(self) -> int | None:
        # "2" or "2(x3)" (two tasks on each of three nodes)
        match = re.match(r"\d+", os.environ.get("SLURM_NTASKS_PER_NODE", ""))
        return int(match.group()) if match else None

    def validate(self, num_processes: int, num_nodes: int) -> None:
        per_node = self.local_world_size()
        if per_node is not None and per_node != num_processes:
            raise DistributedEnvironmentError(
                f"devices={num_processes} but SLURM runs --ntasks-per-node={per_node}; "
                f"set devices={per_node} (or 'auto')"
            )
        nodes = os.environ.get("SLURM_NNODES")
        if nodes is not None and nodes.isdigit() and int(nodes) != num_nodes:
            raise DistributedEnvironmentError(
                f"num_nodes={num_nodes} but the SLURM job has --nodes={nodes}; set num_nodes={nodes}"
            )
        super().validate(num_processes, num_nodes)


class LocalEnvironment(ClusterEnvironment):
    """A plain `python train.py` (rank 0 launches), or one of the processes it launched."""

    name = "local"

    def __init__(self) -> None:
        self._num_processes = 1
        self._num_nodes = 1
        self._port: int | None = None

    @property
    def creates_processes_externally(self) -> bool:  # type: ignore[override]
        return "LOCAL_RANK" in os.environ

    def set_topology(self, num_processes: int, num_nodes: int) -> None:
        self._num_processes = num_processes
        self._num_nodes = num_nodes

    def main_port(self) -> int:
        if self._port is None:
            self._port = (
                _int_env("MASTER_PORT") if "MASTER_PORT" in os.environ else find_free_port()
            )
        return self._port

    def world_size(self) -> int:
        return self._num_processes * self._num_nodes

    def local_rank(self) -> int:
        return _int_env("LOCAL_RANK") if "LOCAL_RANK" in os.environ else 0

    def node_rank(self) -> int:
        for key in ("NODE_RANK", "GROUP_RANK"):
            if key in os.environ:
                return _int_env(key)
        return 0

    def global_rank(self) -> int:
        return self.node_rank() * self._num_processes + self.local_rank()

    def validate(self, num_processes: int, num_nodes: int) -> None:
        self.set_topology(num_processes, num_nodes)
        env = os.environ
        if "WORLD_SIZE" in env and "LOCAL_RANK" not in env and "RANK" not in env:
            raise DistributedEnvironmentError(
                f"WORLD_SIZE={env['WORLD_SIZE']} is set but RANK and LOCAL_RANK are not: unset "
                f"WORLD_SIZE to let the Trainer start its processes, or launch with torchrun"
            )
        if "RANK" in env and "WORLD_SIZE" not in env:
            raise DistributedEnvironmentError(
                f"RANK={env['RANK']} is set but WORLD_SIZE is not: set both (and LOCAL_RANK), "
                f"unset RANK, or launch with torchrun"
            )
        node_rank = self.node_rank()
        if not 0 <= node_rank < num_nodes:
            raise DistributedEnvironmentError(
                f"NODE_RANK={node_rank} but num_nodes={num_nodes}; NODE_RANK must be in "
                f"[0, {num_nodes}) (unset a stale NODE_RANK on a single machine)"
            )
        if not 0 <= self.local_rank() < num_processes:
            raise DistributedEnvironmentError(
                f"LOCAL_RANK={self.local_rank()} but devices={num_processes}; LOCAL_RANK must be "
                f"in [0, {num_processes})"
            )
        if num_nodes > 1 and not self.creates_processes_externally and "MASTER_ADDR" not in env:
            raise DistributedEnvironmentError(
                f"num_nodes={num_nodes} outside torchrun/SLURM needs MASTER_ADDR, MASTER_PORT and "
                f"NODE_RANK set on every machine; or launch with torchrun --nnodes={num_nodes}"
            )
        if "WORLD_SIZE" in env and _int_env("WORLD_SIZE") != self.world_size():
            raise DistributedEnvironmentError(
                f"WORLD_SIZE={env['WORLD_SIZE']} but devices={num_processes} x num_nodes="
                f"{num_nodes} = {self.world_size()}; unset the stale WORLD_SIZE or fix devices"
            )
        if "RANK" in env and _int_env("RANK") != self.global_rank():
            raise DistributedEnvironmentError(
                f"RANK={env['RANK']} disagrees with NODE_RANK={node_rank} x devices={num_processes}"
                f" + LOCAL_RANK={self.local_rank()}; unset the stale RANK"
            )


def detect_environment() -> ClusterEnvironment:
    """The environment this process runs in; never None (falls back to LocalEnvironment)."""
    if TorchElasticEnvironment.detect():
        return TorchElasticEnvironment()
    if SLURMEnvironment.detect():
        return SLURMEnvironment()
    return LocalEnvironment()


def launched_world_size() -> int:
    """Processes an external launcher (torchrun, SLURM) started for this job; 1 when none did.

    The trainer's connector uses it to choose DDP for `strategy="auto"` under torchrun.
    """
    env = detect_environment()
    return 1 if isinstance(env, LocalEnvironment) else env.world_size()
