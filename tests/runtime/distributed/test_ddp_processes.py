"""DDP acceptance on CPU with gloo, in real processes (ddp_script.py is the training script).

Each test launches the script the way a user would: `python script.py`, torchrun, two torchrun
"machines" on loopback. Small model, few steps, one thread per process.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
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
from exit_abort import aborted_at_exit  # noqa: E402

from torchlift.runtime.launcher import reserve_port  # noqa: E402

_CLEARED = (
    "RANK LOCAL_RANK WORLD_SIZE NODE_RANK GROUP_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT "
    "TORCHELASTIC_RUN_ID PL_GLOBAL_SEED"
).split()


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED and not k.startswith("SLURM_")}
    env.update(OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", **extra)
    return env


def _aborted_at_exit(proc: subprocess.CompletedProcess) -> bool:
    return aborted_at_exit(proc.returncode, proc.stderr)


def run(
    args: list[str], timeout: float = 120, cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess:
    def once():
        return subprocess.run(
            args, env=clean_env(**env), capture_output=True, text=True, timeout=timeout, cwd=cwd
        )

    proc = once()
    for _ in range(2):
        if not _aborted_at_exit(proc):
            break
        if str(SCRIPT) in args:  # its output folder starts empty again (result.json appends)
            shutil.rmtree(args[args.index(str(SCRIPT)) + 1], ignore_errors=True)
        proc = once()
    return proc


def script(out: Path, *options: str) -> list[str]:
    return [sys.executable, str(SCRIPT), str(out), *options]


def torchrun(*args: str) -> list[str]:
    return [sys.executable, "-m", "torch.distributed.run", *args]


@contextlib.contextmanager
def reserved_port():
    """A free port that stays reserved while the block runs: no other bind(0) gets it, and the
    rendezvous store (SO_REUSEADDR) can still listen on it. Closing a probe socket and reusing
    its number would race with every other process picking ports."""
    with reserve_port() as sock:
        yield sock.getsockname()[1]


def results(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "result.json").read_text().splitlines()]


def reference_weights(
    steps: int, global_batch: int, shuffle: bool, world_size: int = 1, precision: str = "32-true"
) -> list[torch.Tensor]:
    """One process, plain torch. Each global batch is split into the shards DistributedSampler
    gives `world_size` ranks; each shard's gradient is computed on its own (under bf16 autocast
    for precision="bf16-mixed") and the shards' gradients averaged as DDP does (g / world_size,
    summed). SGD with momentum, as ddp_script."""
    torch.manual_seed(7)
    model = ddp_script.Regressor()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    dataset = ddp_script.data()
    samplers = [
        DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=shuffle, seed=7)
        for rank in range(world_size)
    ]
    loaders = [
        DataLoader(dataset, batch_size=global_batch // world_size, sampler=s) for s in samplers
    ]
    done, epoch = 0, 0
    while done < steps:
        for sampler in samplers:
            sampler.set_epoch(epoch)  # the trainer must do the same on every rank
        for shards in zip(*loaders):
            grads = []
            for x, y in shards:
                model.zero_grad()
                with torch.autocast("cpu", torch.bfloat16, enabled=precision == "bf16-mixed"):
                    loss = torch.nn.functional.mse_loss(model.layer(x), y)
                loss.backward()
                grads.append([p.grad / world_size for p in model.parameters()])
            for param, *shard_grads in zip(model.parameters(), *grads):
                param.grad = sum(shard_grads[1:], shard_grads[0])
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


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_no_gloo_thread_outlives_the_exit_handlers(tmp_path):
    """Deterministic check of the exit-abort's cause: gloo's worker and transport threads (and
    rank 0's store thread) must be gone before the interpreter finalizes. They outlived
    destroy_process_group while torch.distributed.nn.functional (imported by DDP, through
    torch._dynamo) held the group in its default arguments (strategies/group_teardown.py)."""
    out = tmp_path / "threads"
    proc = run(script(out, "devices=2", "steps=3", "exit_threads=1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    for rank in (0, 1):
        names = json.loads((out / f"exit_threads_rank{rank}.json").read_text())
        left = [name for name in names if "gloo" in name or "tcpstore" in name]
        assert left == [], f"rank {rank}: {names}"


def processes_left_after(text: str, timeout: float) -> list[int]:
    """The processes still mentioning `text` once they had `timeout` seconds to go: the parent's
    exit does not wait for the kernel to reap every child, so scanning at once can race."""
    deadline = time.monotonic() + timeout
    while (pids := live_processes_mentioning(text)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return pids


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
    assert processes_left_after(str(out), timeout=15) == []
    assert not (out / "result.json").exists()


def test_torchrun_two_processes_with_amp(tmp_path):
    out = tmp_path / "torchrun"
    with reserved_port() as port:
        command = torchrun(
            "--nproc_per_node=2", "--master_addr=127.0.0.1", f"--master_port={port}", str(SCRIPT)
        )
        options = [str(out), "devices=auto", "steps=4", "batch=4", "precision=bf16-mixed"]
        proc = run(command + options)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (result,) = results(out)
    assert result["world_size"] == 2
    rank1 = json.loads((out / "rank1.json").read_text())
    assert rank1["weights"] == result["weights"]
    got = [torch.tensor(w) for w in result["weights"]]
    # AMP under DDP: exactly what each rank computes under bf16 autocast, averaged (a training
    # loader built without shuffle is shuffled by its injected sampler, as Lightning does) ...
    bf16 = reference_weights(4, 8, shuffle=True, world_size=2, precision="bf16-mixed")
    for weights, want in zip(got, bf16):
        torch.testing.assert_close(weights, want, rtol=1e-6, atol=1e-7)
    # ... and visibly not fp32 (a run with autocast off must fail here)
    fp32 = reference_weights(4, 8, shuffle=True, world_size=2)
    assert any(not torch.allclose(w, f, rtol=1e-4, atol=1e-5) for w, f in zip(got, fp32))


def test_one_and_two_processes_train_alike_across_epochs(tmp_path):
    """devices=1 and devices=2 with the same global batch (1 x 8, 2 x 4), shuffled, 10 steps:
    past the end of the first epoch (8 steps), where set_epoch must reshuffle on every rank."""
    runs = {}
    for devices, batch in ((1, 8), (2, 4)):
        out = tmp_path / f"devices{devices}"
        proc = run(script(out, f"devices={devices}", f"batch={batch}", "shuffle=1", "steps=10"))
        assert proc.returncode == 0, proc.stderr[-3000:]
        (runs[devices],) = results(out)
        assert runs[devices]["world_size"] == devices and runs[devices]["global_step"] == 10
    assert_weights(runs[1], reference_weights(steps=10, global_batch=8, shuffle=True))
    assert_weights(runs[2], reference_weights(steps=10, global_batch=8, shuffle=True, world_size=2))
    for one, two in zip(runs[1]["weights"], runs[2]["weights"]):
        torch.testing.assert_close(torch.tensor(two), torch.tensor(one), rtol=1e-5, atol=1e-6)


@pytest.mark.lightning
def test_two_processes_match_lightning(tmp_path):
    """The same script on 2 gloo processes, on our runtime and on real Lightning: the same loss
    at every step on both ranks, and the same final weights (past an epoch end). The loader is
    built without shuffle: Lightning's injected sampler shuffles a training loader anyway."""
    pytest.importorskip("lightning.pytorch")
    runs = {}
    for engine in ("torchlift", "lightning"):
        out = tmp_path / engine
        options = ["devices=2", "batch=4", "shuffle=0", "steps=10"]
        proc = run(script(out, *options), TORCHLIFT_TEST_ENGINE=engine)
        assert proc.returncode == 0, proc.stderr[-3000:]
        (result,) = results(out)
        rank1 = json.loads((out / "rank1.json").read_text())
        runs[engine] = [result["losses"], rank1["losses"], *result["weights"]]
    ours, theirs = runs["torchlift"], runs["lightning"]
    assert len(ours[0]) == len(ours[1]) == 10  # each rank's losses, then each weight tensor
    assert len(ours) == len(theirs)
    for mine, lightning in zip(ours, theirs):
        torch.testing.assert_close(
            torch.tensor(mine), torch.tensor(lightning), rtol=1e-6, atol=1e-7
        )


def test_two_machines_on_loopback(tmp_path):
    """The many-machines path: two torchrun commands with a static rendezvous."""
    out = tmp_path / "nodes"
    for _ in range(3):  # torch's exit abort (see _EXIT_ABORT), reported by torchrun, or a hang
        shutil.rmtree(out, ignore_errors=True)
        with reserved_port() as port:
            outputs, codes = run_two_nodes(port, out)
        hung = None in codes  # a hang of the loopback rendezvous, seen on a loaded machine
        if not hung and not any(
            _torchrun_saw_exit_abort(code, err) for code, (_, err) in zip(codes, outputs)
        ):
            break
    assert codes == [0, 0], outputs[0][1][-2000:] + outputs[1][1][-2000:]
    (result,) = results(out)
    assert result["world_size"] == 2
    assert_weights(result, reference_weights(steps=10, global_batch=8, shuffle=True, world_size=2))


def _torchrun_saw_exit_abort(code: int, stderr: str) -> bool:
    """torchrun's report of a worker that aborted at interpreter exit, after training."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    return (
        code != 0
        and bool(lines)
        and lines[0] == "terminate called without an active exception"
        and "(exitcode: -6)" in stderr
    )


def run_two_nodes(port: int, out: Path):
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
    try:
        outputs = [node.communicate(timeout=120) for node in nodes]
    except subprocess.TimeoutExpired:  # a rendezvous that never completed: both go, None
        for node in nodes:
            node.kill()
        outputs = [node.communicate() for node in nodes]
        return outputs, [None, None]
    return outputs, [node.returncode for node in nodes]


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
