"""DDP acceptance on CPU with gloo, in real processes (ddp_script.py is the training script).

Each test launches the script the way a user would: `python script.py`, torchrun, two torchrun
"machines" on loopback. Small model, few steps, one thread per process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from torch.utils.data import DataLoader, DistributedSampler

SCRIPT = Path(__file__).with_name("ddp_script.py")
sys.path.insert(0, str(SCRIPT.parent))
import ddp_script  # noqa: E402

_CLEARED = (
    "RANK LOCAL_RANK WORLD_SIZE NODE_RANK GROUP_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT "
    "TORCHELASTIC_RUN_ID PL_GLOBAL_SEED"
).split()


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED and not k.startswith("SLURM_")}
    env.update(OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", **extra)
    return env


def run(
    args: list[str], timeout: float = 120, cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, env=clean_env(**env), capture_output=True, text=True, timeout=timeout, cwd=cwd
    )


def script(out: Path, *options: str) -> list[str]:
    return [sys.executable, str(SCRIPT), str(out), *options]


def torchrun(*args: str) -> list[str]:
    return [sys.executable, "-m", "torch.distributed.run", *args]


def free_port() -> int:
    from torchlift.runtime.environments import find_free_port

    return find_free_port()


def results(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "result.json").read_text().splitlines()]


def reference_weights(steps: int, global_batch: int, shuffle: bool) -> list[torch.Tensor]:
    """One process, plain torch, the global batch in the order DistributedSampler gives it."""
    torch.manual_seed(7)
    model = ddp_script.Regressor()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    dataset = ddp_script.data()
    sampler = DistributedSampler(dataset, num_replicas=1, rank=0, shuffle=shuffle, seed=7)
    loader = DataLoader(dataset, batch_size=global_batch, sampler=sampler)
    done, epoch = 0, 0
    while done < steps:
        sampler.set_epoch(epoch)  # the trainer must do the same on every rank
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model.layer(x), y).backward()
            optimizer.step()
            done += 1
            if done == steps:
                break
        epoch += 1
    return [p.detach().flatten() for p in model.parameters()]


def assert_weights(result: dict, expected: list[torch.Tensor]) -> None:
    for got, want in zip(result["weights"], expected):
        torch.testing.assert_close(torch.tensor(got), want, rtol=1e-5, atol=1e-6)


def live_processes_mentioning(text: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
                status = (entry / "status").read_text()
            except OSError:
                continue
            if text in cmdline and "\nState:\tZ" not in status:
                pids.append(int(entry.name))
    return pids


def test_plain_python_script_trains_on_two_processes(tmp_path):
    """`python script.py` with devices=2: two ranks, accumulation + shuffling, one checkpoint,
    one log directory, sync_dist logging, trainer.test() after fit, weights = 1 process."""
    out = tmp_path / "run"
    proc = run(
        script(out, "devices=2", "batch=2", "accumulate=2", "shuffle=1", "steps=3", "test=1")
        + ["sync_log=1", "logger=1", "default_ckpt=1", "collectives=1"]
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (result,) = results(out)  # written once, by rank zero
    assert result["world_size"] == 2 and result["global_step"] == 3
    assert result["ranks_mean"] == 0.5  # mean over ranks 0 and 1
    rank1 = json.loads((out / "rank1.json").read_text())
    assert rank1["weights"] == result["weights"]
    for rank, report in enumerate((result, rank1)):
        assert report["collectives"] == {
            "sum": 1.0,
            "max": 1.0,
            "min": 0.0,
            "mean": 0.5,
            "gathered": [[0.0, 0.0], [1.0, 2.0]],
            "broadcast": "from rank 0",
            "all": False,
            "any": True,
            "rank": rank,
        }
    assert len(result["test"]) == 1 and "test_loss" in result["test"][0]
    assert len(list(out.rglob("*.ckpt"))) == 1
    assert [p.name for p in (out / "lightning_logs").iterdir()] == ["version_0"]
    assert_weights(result, reference_weights(steps=3, global_batch=8, shuffle=True))


@pytest.mark.parametrize("rank", [1, 0])  # a launched child / the launching process
def test_rank_failure_stops_every_process(tmp_path, rank):
    out = tmp_path / "fail"
    proc = run(script(out, "devices=2", f"fail_rank={rank}", "fail_step=3", "steps=20"), timeout=90)
    elapsed = time.time() - float((out / "failed_at").read_text())
    assert proc.returncode != 0
    message = f"ValueError: deliberate failure on rank {rank} at step 3"
    assert proc.stderr.count(message) == 1, proc.stderr
    assert proc.stderr.count("Traceback") == 1, proc.stderr
    assert elapsed < 30
    assert live_processes_mentioning(str(out)) == []
    assert not (out / "result.json").exists()


def test_torchrun_two_processes_with_amp(tmp_path):
    out = tmp_path / "torchrun"
    port = free_port()
    command = torchrun(
        "--nproc_per_node=2", "--master_addr=127.0.0.1", f"--master_port={port}", str(SCRIPT)
    )
    proc = run(command + [str(out), "devices=auto", "steps=4", "batch=4", "precision=bf16-mixed"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    (result,) = results(out)
    assert result["world_size"] == 2
    rank1 = json.loads((out / "rank1.json").read_text())
    assert rank1["weights"] == result["weights"]
    # AMP under DDP: bf16 autocast rounds differently from the fp32 reference, but not far
    for got, want in zip(result["weights"], reference_weights(4, 8, shuffle=False)):
        torch.testing.assert_close(torch.tensor(got), want, rtol=0, atol=5e-2)


def test_two_machines_on_loopback(tmp_path):
    """The many-machines path: two torchrun commands with a static rendezvous."""
    out = tmp_path / "nodes"
    port = free_port()
    common = [
        "--nnodes=2",
        "--nproc_per_node=1",
        "--master_addr=127.0.0.1",
        f"--master_port={port}",
    ]
    # 10 steps of 2 x 4 samples cross the epoch boundary (64 samples): set_epoch reshuffles
    options = [str(out), "devices=auto", "num_nodes=2", "steps=10", "batch=4", "shuffle=1"]
    env = clean_env()
    nodes = [
        subprocess.Popen(
            torchrun(*common, f"--node_rank={rank}", str(SCRIPT)) + options,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in (0, 1)
    ]
    outputs = [node.communicate(timeout=120) for node in nodes]
    assert [node.returncode for node in nodes] == [0, 0], (
        outputs[0][1][-2000:] + outputs[1][1][-2000:]
    )
    (result,) = results(out)
    assert result["world_size"] == 2
    assert_weights(result, reference_weights(steps=10, global_batch=8, shuffle=True))


def test_resume_from_a_ddp_checkpoint_equals_uninterrupted(tmp_path):
    full = tmp_path / "full"
    # launched as `python -m ddp_script`: the children must re-run the module, not a file
    as_module = [sys.executable, "-m", SCRIPT.stem, str(full)]
    options = ["devices=2", "shuffle=1", "steps=6", "ckpt_every=3", "rank0_monitor=1"]
    proc = run(as_module + options, cwd=SCRIPT.parent)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (uninterrupted,) = results(full)
    checkpoint = next(full.rglob("*step=3*.ckpt"))  # mid-epoch: 8 steps make an epoch
    resumed_dir = tmp_path / "resumed"
    proc = run(script(resumed_dir, "devices=2", "shuffle=1", "steps=6", f"resume={checkpoint}"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    (resumed,) = results(resumed_dir)
    assert resumed["global_step"] == 6
    assert_weights(resumed, [torch.tensor(w) for w in uninterrupted["weights"]])
    assert_weights(uninterrupted, reference_weights(steps=6, global_batch=8, shuffle=True))


def test_stale_world_size_is_a_clear_startup_error(tmp_path):
    proc = run(script(tmp_path / "bad", "devices=2"), timeout=60, WORLD_SIZE="2")
    assert proc.returncode != 0
    assert "WORLD_SIZE=2 is set but RANK and LOCAL_RANK are not" in proc.stderr


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_nccl_on_two_gpus(tmp_path):  # pragma: no cover - no GPU here
    out = tmp_path / "gpu"
    proc = run(script(out, "devices=2", "steps=3", "accelerator=gpu"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert results(out)[0]["world_size"] == 2
