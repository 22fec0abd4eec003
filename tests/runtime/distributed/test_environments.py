"""Cluster environment detection and start-up validation (no processes started)."""

from __future__ import annotations

import socket

import pytest

from torchlift.runtime.environments import (
    DistributedEnvironmentError,
    LocalEnvironment,
    SLURMEnvironment,
    TorchElasticEnvironment,
    detect_environment,
    launched_world_size,
)
from torchlift.runtime.strategies.ddp import DDPStrategy
from torchlift.runtime.utilities.rank_zero import rank_zero_only

_KEYS = (
    "RANK LOCAL_RANK WORLD_SIZE NODE_RANK GROUP_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT "
    "TORCHELASTIC_RUN_ID SLURM_NTASKS SLURM_JOB_NAME SLURM_PROCID SLURM_LOCALID SLURM_NODEID "
    "SLURM_NTASKS_PER_NODE SLURM_NNODES SLURM_NODELIST SLURM_JOB_ID"
).split()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for key in _KEYS:
        monkeypatch.delenv(key, raising=False)
    rank = rank_zero_only.rank
    yield monkeypatch
    rank_zero_only.rank = rank


def set_env(monkeypatch, **values):
    for key, value in values.items():
        monkeypatch.setenv(key, str(value))


def test_plain_run_is_local_and_launches(clean_env):
    env = detect_environment()
    assert isinstance(env, LocalEnvironment)
    assert not env.creates_processes_externally
    assert launched_world_size() == 1
    strategy = DDPStrategy("cpu", devices=2)
    assert (strategy.global_rank, strategy.world_size, strategy.is_global_zero) == (0, 2, True)


def test_launched_child_reads_its_rank(clean_env):
    set_env(clean_env, LOCAL_RANK=1, NODE_RANK=1, WORLD_SIZE=4, MASTER_ADDR="h", MASTER_PORT=1)
    strategy = DDPStrategy("cpu", devices=2, num_nodes=2)
    assert strategy.environment.creates_processes_externally
    assert (strategy.global_rank, strategy.local_rank, strategy.node_rank) == (3, 1, 1)
    assert rank_zero_only.rank == 3 and not strategy.is_global_zero


def test_torchrun_environment(clean_env):
    set_env(
        clean_env,
        TORCHELASTIC_RUN_ID="x",
        RANK=3,
        LOCAL_RANK=1,
        GROUP_RANK=1,
        WORLD_SIZE=4,
        LOCAL_WORLD_SIZE=2,
        MASTER_ADDR="10.0.0.1",
        MASTER_PORT=29500,
    )
    env = detect_environment()
    assert isinstance(env, TorchElasticEnvironment) and env.creates_processes_externally
    assert launched_world_size() == 4
    # devices="auto" means the launcher's processes per machine
    strategy = DDPStrategy("cpu", devices="auto", num_nodes=2)
    assert strategy.num_processes == 2
    assert (strategy.global_rank, strategy.local_rank, strategy.node_rank) == (3, 1, 1)
    with pytest.raises(DistributedEnvironmentError, match="devices=2 x num_nodes=1"):
        DDPStrategy("cpu", devices="auto", num_nodes=1)


def test_slurm_needs_a_real_job_name(clean_env):
    set_env(clean_env, SLURM_NTASKS=2, SLURM_JOB_NAME="bash")
    assert isinstance(detect_environment(), LocalEnvironment)
    set_env(
        clean_env,
        SLURM_JOB_NAME="train",
        SLURM_PROCID=1,
        SLURM_LOCALID=1,
        SLURM_NODEID=0,
        SLURM_NTASKS_PER_NODE="2(x1)",
        SLURM_NNODES=1,
        SLURM_NODELIST="node[07-09]",
        SLURM_JOB_ID=123456,
    )
    env = detect_environment()
    assert isinstance(env, SLURMEnvironment)
    assert env.main_address() == "node07" and env.main_port() == 15000 + 3456
    strategy = DDPStrategy("cpu", devices="auto")
    assert (strategy.num_processes, strategy.global_rank, strategy.world_size) == (2, 1, 2)
    with pytest.raises(DistributedEnvironmentError, match="ntasks-per-node=2"):
        DDPStrategy("cpu", devices=4)


@pytest.mark.parametrize(
    "values, message",
    [
        ({"WORLD_SIZE": 2}, "WORLD_SIZE=2 is set but RANK and LOCAL_RANK are not"),
        ({"RANK": 1}, "RANK=1 is set but WORLD_SIZE is not"),
        ({"NODE_RANK": 1}, "NODE_RANK=1 but num_nodes=1"),
        ({"LOCAL_RANK": 3, "WORLD_SIZE": 2}, "LOCAL_RANK=3 but devices=2"),
        ({"LOCAL_RANK": 1, "WORLD_SIZE": 8}, "WORLD_SIZE=8 but devices=2"),
        ({"LOCAL_RANK": 1, "WORLD_SIZE": 2, "RANK": 0}, "RANK=0 disagrees"),
        ({"TORCHELASTIC_RUN_ID": "x", "WORLD_SIZE": 2, "LOCAL_RANK": 0}, "RANK is not set"),
    ],
)
def test_broken_environment_is_one_clear_error(clean_env, values, message):
    set_env(clean_env, **values)
    with pytest.raises(DistributedEnvironmentError, match=message):
        DDPStrategy("cpu", devices=2)


def test_multi_node_without_a_cluster_needs_master_addr(clean_env):
    with pytest.raises(DistributedEnvironmentError, match="needs MASTER_ADDR"):
        DDPStrategy("cpu", devices=2, num_nodes=2)


def test_port_in_use_fails_before_launching(clean_env):
    with socket.socket() as busy:
        busy.bind(("", 0))
        busy.listen(1)
        set_env(clean_env, MASTER_PORT=busy.getsockname()[1], OMP_NUM_THREADS=1)
        strategy = DDPStrategy("cpu", devices=2)
        with pytest.raises(DistributedEnvironmentError, match="already in use"):
            strategy.setup_environment()
    assert strategy.launcher is None or not strategy.launcher.procs


@pytest.mark.parametrize(
    "devices, expected",
    [(2, 2), ("3", 3), ([0, 1], 2), ("0,1", 2), ("auto", 1)],
)
def test_devices_forms(clean_env, devices, expected):
    assert DDPStrategy("cpu", devices=devices).num_processes == expected


@pytest.mark.parametrize("devices", [0, -2, "two", [], True])
def test_bad_devices(clean_env, devices):
    with pytest.raises(ValueError, match="devices="):
        DDPStrategy("cpu", devices=devices)


def test_find_unused_parameters_strategy_passes_the_option_to_ddp(clean_env):
    """`strategy="ddp_find_unused_parameters_true"` (Lightning's name, what the migrator writes
    for `DDP(model, find_unused_parameters=True)`) is DDP with that option; `_false` is DDP's
    default."""
    from torchlift.runtime.trainer.connector import resolve_strategy

    found = resolve_strategy("ddp_find_unused_parameters_true", "cpu", [0, 1], 1)
    assert isinstance(found, DDPStrategy)
    assert found.ddp_kwargs == {"find_unused_parameters": True}
    assert resolve_strategy("ddp_find_unused_parameters_false", "cpu", [0, 1], 1).ddp_kwargs == {}
