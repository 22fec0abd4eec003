"""SIGINT / SIGTERM to `migrate` end everything it started and leave no temporary file:
the worker pool, a `-w` write in progress, and the two script runs of `--verify`.
Real processes; every wait is bounded and leftovers are killed in teardown."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import BIN, FIXTURES

HOOKS = Path(__file__).with_name("slow_hooks")
SCRIPT = "import torch\nx = torch.zeros(1)\n"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.fixture
def job(tmp_path):
    """Start `migrate ARGS` in a session of its own, with a private TMPDIR and a folder where
    the slow places (slow_hooks/sitecustomize.py, or the verified script) mark their pids."""
    marks = tmp_path / "marks"
    marks.mkdir()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    started = []

    def start(*args, slow: str | None = None) -> subprocess.Popen:
        env = dict(os.environ, TMPDIR=str(tmp), TORCHLIFT_TEST_MARKS=str(marks))
        if slow:
            env["TORCHLIFT_TEST_SLOW"] = slow
            env["PYTHONPATH"] = os.pathsep.join([str(HOOKS), env.get("PYTHONPATH", "")])
        exe = BIN / "migrate"
        command = [str(exe)] if exe.exists() else [sys.executable, "-m", "torchlift", "migrate"]
        proc = subprocess.Popen(
            command + [str(a) for a in args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        started.append(proc)
        return proc

    start.marks, start.tmp = marks, tmp
    yield start
    for proc in started:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
    for mark in marks.iterdir():
        if alive(int(mark.name)):
            os.kill(int(mark.name), signal.SIGKILL)


def wait_for_marks(job, proc, count: int, timeout: float = 120) -> list[int]:
    deadline = time.monotonic() + timeout
    while len(list(job.marks.iterdir())) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the slow place was never reached"
        time.sleep(0.1)
    return [int(mark.name) for mark in job.marks.iterdir()]


def assert_gone(pids: list[int], within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.1)
    assert not [pid for pid in pids if alive(pid)]


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_the_worker_pool_ends_every_worker(job, tmp_path, signum):
    tree = tmp_path / "src"
    tree.mkdir()
    for index in range(6):
        (tree / f"m{index}.py").write_text(SCRIPT)
    proc = job("--check", tree, slow="migrate")
    workers = wait_for_marks(job, proc, 2)
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr
    assert_gone(workers)


def test_sigterm_during_a_write_leaves_the_file_and_no_temp_file(job, tmp_path):
    tree = tmp_path / "src"
    tree.mkdir()
    script = tree / "train.py"
    source = (FIXTURES / "seed_simple_model_validation" / "input.py").read_text()
    script.write_text(source)
    proc = job("-w", script, slow="write")
    wait_for_marks(job, proc, 1)
    assert len(files_under(tree)) == 2  # the temporary file exists now
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    assert files_under(tree) == ["train.py"]
    assert script.read_text() == source


SLEEPER = """
import os
import time

open(os.path.join(os.environ["TORCHLIFT_TEST_MARKS"], str(os.getpid())), "w").close()
time.sleep(600)
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_to_verify_stops_both_runs_and_removes_their_folders(job, tmp_path, signum):
    folder = tmp_path / "project"
    folder.mkdir()
    script = folder / "train.py"
    source = (FIXTURES / "seed_simple_model_validation" / "input.py").read_text()
    head, _, rest = source.partition("torch.manual_seed(42)\n")
    script.write_text(head + SLEEPER + "torch.manual_seed(42)\n" + rest)
    proc = job("--verify", script, "--timeout", "600")
    runs = wait_for_marks(job, proc, 2)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, stdout + stderr
    assert "Traceback" not in stderr
    assert_gone(runs)
    assert files_under(job.tmp) == []
