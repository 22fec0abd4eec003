"""tests/fork_server.py: a run forked from the pre-loaded server is the run `python script.py`
would have been -- what the script sees, what it prints, how it ends, what the trace records."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: fork_server
from fork_server import TORCH, ForkedRuns, ForkServer  # noqa: E402

from torchlift.verify.trace import run_traced  # noqa: E402

SCRIPT = """
import atexit, os, sys
import torch

atexit.register(lambda: print("exit functions ran"))
print("name", __name__, "file", os.path.basename(__file__))
print("argv", sys.argv[1:], "cwd", os.path.basename(os.getcwd()))
print("env", os.environ.get("FORK_TEST_VALUE"), "path0", os.path.basename(sys.path[0]))
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
for _ in range(2):
    (w * w).sum().backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad = None
sys.exit(int(sys.argv[1]))
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("server")
    server = ForkServer(folder, TORCH, dict(os.environ, OMP_NUM_THREADS="1"))
    yield server
    server.stop()


def _script(tmp_path: Path, code: str, name: str = "train.py") -> Path:
    folder = tmp_path / "run"
    folder.mkdir(exist_ok=True)
    script = folder / name
    script.write_text(textwrap.dedent(code))
    return script


def _run(script, server, tmp_path, args=(), **kwargs):
    env = dict(os.environ, FORK_TEST_VALUE="seen", OMP_NUM_THREADS="1")
    spawned = run_traced(script, list(args), cwd=script.parent, env=env, params=True, **kwargs)
    live = ForkedRuns(server, tmp_path / "streams")
    forked = run_traced(
        script, list(args), cwd=script.parent, env=env, params=True, live=live, **kwargs
    )
    return spawned, forked


def test_a_forked_run_sees_prints_and_ends_as_a_spawned_one(server, tmp_path):
    spawned, forked = _run(_script(tmp_path, SCRIPT), server, tmp_path, args=["3"])
    assert spawned.returncode == forked.returncode == 3
    assert forked.stdout == spawned.stdout
    assert "name __main__ file train.py" in forked.stdout
    assert "argv ['3'] cwd run" in forked.stdout
    assert "env seen path0 run" in forked.stdout
    assert forked.stdout.rstrip().endswith("exit functions ran")
    # the trace installed itself on the torch the server had imported
    assert forked.imported_torch and len(forked.losses) == 2
    assert forked.losses == spawned.losses
    assert [t.tolist() for t in forked.params] == [t.tolist() for t in spawned.params]


def test_an_exception_ends_the_forked_run_as_python_does(server, tmp_path):
    script = _script(tmp_path, "import torch\nraise ValueError('bad input')\n")
    spawned, forked = _run(script, server, tmp_path)
    assert spawned.returncode == forked.returncode == 1
    assert "ValueError: bad input" in forked.stderr
    assert "Traceback" in forked.stderr


def test_a_forked_run_past_its_timeout_is_killed(server, tmp_path):
    script = _script(tmp_path, "import time\ntime.sleep(60)\n")
    live = ForkedRuns(server, tmp_path / "streams")
    run = run_traced(script, cwd=script.parent, timeout=2, live=live)
    assert run.timed_out and not run.ok
