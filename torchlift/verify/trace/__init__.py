"""Run a Python script with the backward trace installed (see sitecustomize.py) and read it back."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

TRACE_DIR = Path(__file__).parent


@dataclass
class TracedRun:
    losses: list[float]
    returncode: int
    stdout: str
    stderr: str
    imported_torch: bool = False  # the script imported torch (so backward could be traced)
    stopped: bool = False  # the trace stopped the script after the requested steps
    timed_out: bool = False
    params: list | None = None  # final values of every tensor that received a gradient
    rank_losses: dict = field(default_factory=dict)  # rank >= 1 -> its losses (DDP runs)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def run_traced(
    script: str | os.PathLike,
    args: list[str] | tuple[str, ...] = (),
    *,
    steps: int = 0,
    cwd: str | os.PathLike | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 300,
    params: bool = False,
    seed: int | None = None,
    hide_gpus: bool = True,
    live: LiveRuns | None = None,
    launcher: list[str] | tuple[str, ...] = (),
) -> TracedRun:
    """Run `python script args...` in a subprocess; return every loss passed to backward()
    (rank 0's in `losses`, other ranks' in `rank_losses`).

    steps: stop after this many backward calls (0: run to the end). params: also return the
    final values of the trained tensors. seed: seed torch, numpy and `random` in the script's process.
    hide_gpus: run on CPU (CUDA_VISIBLE_DEVICES="" unless `env` already chooses devices).
    On timeout the whole process group is killed (DDP children included) and `timed_out` set.
    live: register the process there, so another thread can end it (LiveRuns.stop_all).
    launcher: python arguments before the script, e.g. `-m torch.distributed.run --standalone
    --nproc_per_node=2` to run it under torchrun.
    """
    with tempfile.TemporaryDirectory(prefix="torchlift-trace-") as tmp:
        trace = Path(tmp) / "trace.jsonl"
        params_file = Path(tmp) / "params.pt"
        run_env = dict(os.environ if env is None else env)
        run_env["PYTHONPATH"] = os.pathsep.join(
            p for p in [str(TRACE_DIR), run_env.get("PYTHONPATH", "")] if p
        )
        run_env["TORCHLIFT_TRACE"] = str(trace)
        run_env["TORCHLIFT_TRACE_STEPS"] = str(steps)
        run_env["TORCHLIFT_TRACE_PARAMS"] = str(params_file) if params else ""
        run_env["TORCHLIFT_TRACE_SEED"] = "" if seed is None else str(seed)
        if hide_gpus:
            run_env.setdefault("CUDA_VISIBLE_DEVICES", "")
        stdout, stderr, returncode, timed_out = _run_group(
            [sys.executable, *launcher, str(script), *args],
            cwd,
            run_env,
            timeout,
            live or LiveRuns(),
        )
        run = TracedRun([], returncode, stdout, stderr, timed_out=timed_out)
        _read_trace(trace, run)
        for other in sorted(Path(tmp).glob("trace.jsonl.rank*")):
            rank_run = TracedRun([], returncode, "", "")
            _read_trace(other, rank_run)
            run.rank_losses[int(other.name.rsplit("rank", 1)[1])] = rank_run.losses
        if params and params_file.exists():
            import torch

            run.params = torch.load(params_file, weights_only=True)
        return run


def launcher_args(command: str) -> list[str]:
    """The python arguments standing for a launcher command written as users type it:
    `torchrun --standalone --nproc_per_node=2` -> `-m torch.distributed.run --standalone ...`
    (the same interpreter runs it, with the trace installed)."""
    words = command.split()
    if not words:
        return []
    if words[0] != "torchrun":
        raise ValueError(f"unknown launcher {words[0]!r} (expected torchrun)")
    options = words[1:]
    if "--standalone" in options and not any(
        word.split("=")[0] in ("--local-addr", "--local_addr") for word in options
    ):
        # A standalone rendezvous is this machine alone, yet torchrun hands its workers the
        # machine's FQDN as MASTER_ADDR: where that name does not resolve (CI hosts, some
        # containers) every worker retries the store until the run times out.
        options = ["--local-addr=127.0.0.1", *options]
    return ["-m", "torch.distributed.run", *options]


class LiveRuns:
    """The script processes started for one caller, so that all of them can be ended at once
    (`migrate --verify` interrupted by Ctrl-C or SIGTERM). Each runs in a session of its own,
    so ending it also ends the script's DDP workers."""

    def __init__(self) -> None:
        self._procs: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self._stopped = False

    def start(self, command, cwd, env) -> subprocess.Popen | None:
        """Start `command`, or return None once `stop_all` was called."""
        with self._lock:
            if self._stopped:
                return None
            proc = self.popen(command, cwd, env)
            self._procs.add(proc)
            return proc

    def popen(self, command, cwd, env) -> subprocess.Popen:
        """The process itself (the test suite starts some from a pre-loaded fork server)."""
        return subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
        )

    def finished(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._procs.discard(proc)

    def stop_all(self) -> None:
        with self._lock:
            self._stopped = True
            procs = list(self._procs)
        for proc in procs:
            kill_group(proc)


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _run_group(command, cwd, env, timeout, live: LiveRuns):
    proc = live.start(command, cwd, env)
    if proc is None:
        return "", "stopped before it started", -signal.SIGKILL, False
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        return stdout, stderr, proc.returncode, False
    except subprocess.TimeoutExpired:
        kill_group(proc)
        stdout, stderr = proc.communicate()
        return stdout, stderr, proc.returncode, True
    finally:
        live.finished(proc)


def _read_trace(trace: Path, run: TracedRun) -> None:
    if not trace.exists():
        return
    for line in trace.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut short by a killed process
        if "loss" in record:
            run.losses.append(record["loss"])
        elif record.get("event") == "torch":
            run.imported_torch = True
        elif record.get("event") == "limit":
            run.stopped = True
