"""Ctrl-C and early exits stop the whole job, as in Lightning: `fit` does not return, the
command exits non-zero, and no process of the job is left (interrupt_script.py, real processes;
every wait is bounded and leftovers are killed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runtime_engines import engines

SCRIPT = Path(__file__).with_name("interrupt_script.py")
_CLEARED = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "NODE_RANK", "MASTER_ADDR", "MASTER_PORT"]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"  # a zombie has ended; only its parent's bookkeeping is left


def job_pids(out: Path) -> list[int]:
    return [int(p.read_text()) for p in out.glob("pid.*") if p.read_text()]


@pytest.fixture
def launch(tmp_path):
    """Start interrupt_script.py in a session of its own; kill whatever is left afterwards."""
    started = []

    def start(engine: str, devices: int, mode: str) -> subprocess.Popen:
        env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
        env.update(OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
        command = [sys.executable, str(SCRIPT), str(tmp_path), engine, str(devices), mode]
        proc = subprocess.Popen(
            command,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        started.append(proc)
        return proc

    yield start
    for proc in started:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
    for pid in job_pids(tmp_path):
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def finish(proc: subprocess.Popen, timeout: float = 120) -> tuple[int, str, str]:
    stdout, stderr = proc.communicate(timeout=timeout)
    return proc.returncode, stdout, stderr


def assert_all_gone(out: Path, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and any(alive(pid) for pid in job_pids(out)):
        time.sleep(0.1)
    assert not [pid for pid in job_pids(out) if alive(pid)]


def wait_for(path: Path, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.1)


@pytest.mark.parametrize("engine", engines())
def test_keyboard_interrupt_in_fit_stops_the_script(launch, tmp_path, engine):
    code, stdout, stderr = finish(launch(engine, 1, "sigint_rank0"))
    assert code == 1, stderr
    assert "AFTER FIT" not in stdout
    assert "Detected KeyboardInterrupt" in stderr + stdout


def test_sigint_to_rank_zero_alone_stops_every_rank(launch, tmp_path):
    code, stdout, stderr = finish(launch("ours", 2, "sigint_rank0"), timeout=90)
    assert code != 0, stderr
    assert "AFTER FIT" not in stdout
    assert sorted(p.name for p in tmp_path.glob("pid.*")) == ["pid.0", "pid.1"]
    assert_all_gone(tmp_path)


def test_ctrl_c_to_the_process_group_stops_every_rank(launch, tmp_path):
    proc = launch("ours", 2, "sigint_group")
    wait_for(tmp_path / "ready", proc)
    os.killpg(proc.pid, signal.SIGINT)
    code, stdout, stderr = finish(proc, timeout=30)
    assert code != 0, stderr
    assert "AFTER FIT" not in stdout
    assert_all_gone(tmp_path)


def test_a_rank_exiting_before_it_joins_does_not_leave_rank_zero_waiting(launch, tmp_path):
    code, stdout, stderr = finish(launch("ours", 2, "rank_exits_early"), timeout=90)
    assert code == 1, stderr
    assert "local rank 1 exited (code 0) before joining the process group" in stderr
    assert "AFTER FIT" not in stdout
    assert_all_gone(tmp_path)
