"""The fixtures' scripts, run once per session and shared by every test that reads them.

    test_fixtures.py          losses and trained tensors: original against each conversion
    test_fixture_features.py  what the original run did (clipping, learning rates, backward
                              calls per optimizer step), recorded by tests/fixture_probe
    test_fixture_metrics.py   what the runs printed and wrote

Each (case, kind) -- kind "original", "runtime" or "lightning" -- runs once, as a subprocess
traced by torchlift.verify (every original also under the probe). A test says which runs it
reads with `@pytest.mark.fixture_runs(kind, ...)` ("target" stands for its own `target`
parameter) and takes the session fixture `fixture_runs`.

Migrations happen on the main thread (at collection's end, or when a test asks), runs on a
pool of threads, each a subprocess. The runs start when collection ends, so they overlap the
rest of the suite: one at a time while the in-process tests keep a core busy, as many as there
are workers once a test reading them starts. Distributed fixtures (mp.spawn, torchrun) run one at a time after every other run:
several process groups forming at once on a loaded 2-core machine hung past the run timeout in
CI.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from fork_server import LIGHTNING, TORCH, ForkedRuns, ForkServer

from torchlift.cli.sources import encode_source, read_source
from torchlift.verify.trace import LiveRuns, TracedRun, kill_group, launcher_args, run_traced

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PROBE = Path(__file__).with_name("fixture_probe")
KINDS = ("original", "runtime", "lightning")
RUN_TIMEOUT = 240


def migrate(path: Path, target: str = "runtime", text: str | None = None):
    if text is None:
        text, _ = read_source(str(path))
    return _migrate_cached(str(path), target, text)


@functools.lru_cache(maxsize=None)
def _migrate_cached(path: str, target: str, text: str):
    # The same migration serves several tests (expected, twice, equivalence): do it once.
    from torchlift.migrator import migrate_source

    return migrate_source(text, path=path, target=target)


def is_distributed(case: str) -> bool:
    """A fixture starting several processes (mp.spawn, torchrun)."""
    return "torch.distributed" in (FIXTURES / case / "input.py").read_text(encoding="utf-8")


def launcher(case: str) -> list[str]:
    """fixtures/<case>/launch, if any: the command the case runs under, original and
    conversions alike (`torchrun --standalone --nproc_per_node=2`)."""
    launch = FIXTURES / case / "launch"
    return launcher_args(launch.read_text()) if launch.exists() else []


class _Slots:
    """How many runs may go at once: a limit raised once, while runs wait for it."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._busy = 0
        self._changed = threading.Condition()

    def raise_to(self, limit: int) -> None:
        with self._changed:
            self._limit = max(self._limit, limit)
            self._changed.notify_all()

    def __enter__(self) -> None:
        with self._changed:
            self._changed.wait_for(lambda: self._busy < self._limit)
            self._busy += 1

    def __exit__(self, *exc) -> None:
        with self._changed:
            self._busy -= 1
            self._changed.notify_all()


class FixtureRuns:
    def __init__(self, workdir: Path, workers: int) -> None:
        self.workdir = workdir
        self.workers = workers
        self._slots = _Slots(max(1, workers - 1))
        self._reading = threading.Event()  # a test reading runs has started
        self._pool = ThreadPoolExecutor(max_workers=workers)
        self._alone = ThreadPoolExecutor(max_workers=1)
        self._futures: dict[tuple[str, str], Future] = {}
        self._lock = threading.Lock()
        self._stopped = False
        # runs fork from a process that imported torch (lightning too, for that target):
        # fork_server.py; TORCHLIFT_FORK_RUNS=0 spawns each run instead
        self._servers: dict[str, ForkServer] = {}
        if os.environ.get("TORCHLIFT_FORK_RUNS", "1") != "0":
            env = _run_env()
            env["CUDA_VISIBLE_DEVICES"] = ""  # as run_traced hides GPUs
            self._servers = {
                "torch": ForkServer(workdir, TORCH, env),
                "lightning": ForkServer(workdir, LIGHTNING, env),
            }

    # -- what tests call ----------------------------------------------------------------------
    def get(self, case: str, kind: str):
        """The TracedRun of `case` for `kind`, or the MigrationResult when the migrator left the
        script alone."""
        self.reading()
        return self.submit(case, kind).result()

    def probe_events(self, case: str) -> list[dict]:
        """What tests/fixture_probe recorded during the original run."""
        run = self.get(case, "original")
        assert run.ok, f"the fixture itself fails:\n{run.stderr[-3000:]}"
        log = self._probe_log(case)
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def folder(self, case: str, kind: str) -> Path:
        """Where the run's script ran (and wrote its files)."""
        return self.workdir / case / kind

    def live(self, lightning: bool, folder: Path) -> LiveRuns:
        """Where another test's `python script` runs start (run_traced's `live`): forked from
        the server holding torch (and lightning, for a script importing it), as the fixture
        runs are; spawned when forking is off. `folder` keeps the forked run's streams."""
        server = self._servers.get("lightning" if lightning else "torch")
        return ForkedRuns(server, folder) if server else LiveRuns()

    def run_python(
        self,
        script: Path,
        env: dict[str, str],
        *,
        lightning: bool,
        args: tuple[str, ...] = (),
        cwd: Path | None = None,
        timeout: float = RUN_TIMEOUT,
    ) -> subprocess.CompletedProcess:
        """`subprocess.run([python, script, *args], cwd=cwd or the script's folder, env=env,
        capture_output=True, text=True, timeout=timeout)` for a test's own script, started as
        `live` starts it."""
        command = [sys.executable, str(script), *map(str, args)]
        live = self.live(lightning, Path(tempfile.mkdtemp(dir=self.workdir, prefix="streams-")))
        proc = live.start(command, cwd or script.parent, env)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            raise
        finally:
            live.finished(proc)
        return subprocess.CompletedProcess(command, proc.returncode, stdout, stderr)

    def reading(self) -> None:
        """Tests reading runs are on: every worker may run now."""
        if not self._reading.is_set():
            self._reading.set()
            self._slots.raise_to(self.workers)

    # -- scheduling ---------------------------------------------------------------------------
    def submit(self, case: str, kind: str) -> Future:
        """Migrate here, run on the pool. Called from the main thread only: ast.parse is not
        thread-safe on CPython 3.11 ("AST constructor recursion depth mismatch"), so every
        migration happens where the suite's own do."""
        with self._lock:
            future = self._futures.get((case, kind))
            if future is not None:
                return future
        source, encoding = read_source(str(FIXTURES / case / "input.py"))
        if kind != "original":
            result = migrate(FIXTURES / case / "input.py", kind, text=source)
            if not result.changed:
                future = Future()
                future.set_result(result)
                with self._lock:
                    return self._futures.setdefault((case, kind), future)
            source = result.output
        script = encode_source(source, encoding)
        with self._lock:
            if (case, kind) not in self._futures:
                if is_distributed(case):
                    others = [f for (c, _), f in self._futures.items() if not is_distributed(c)]
                    future = self._alone.submit(self._run_alone, others, case, kind, script)
                else:
                    future = self._pool.submit(self._run_in_slot, case, kind, script)
                self._futures[(case, kind)] = future
            return self._futures[(case, kind)]

    def shutdown(self) -> None:
        """No new run starts (a session cut short must not wait for the whole queue)."""
        self._stopped = True
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._alone.shutdown(wait=False, cancel_futures=True)
        self._reading.set()
        self._slots.raise_to(self.workers)
        for server in self._servers.values():
            server.stop()

    def _run_in_slot(self, case: str, kind: str, script: bytes):
        with self._slots:
            return None if self._stopped else self._run(case, kind, script)

    def _run_alone(self, others: list[Future], case: str, kind: str, script: bytes):
        self._reading.wait()  # never beside the suite's own DDP tests
        for future in others:
            if not future.cancelled():
                future.exception()
        return None if self._stopped else self._run(case, kind, script)

    # -- one run --------------------------------------------------------------------------------
    def _probe_log(self, case: str) -> Path:
        return self.workdir / case / "original.probe.jsonl"

    def _run(self, case: str, kind: str, script: bytes) -> TracedRun:
        run = self._run_once(case, kind, script)
        if is_distributed(case) and _gloo_teardown_abort(run):
            run = self._run_once(case, kind, script)  # once: a real crash aborts again
        return run

    def _run_once(self, case: str, kind: str, script: bytes) -> TracedRun:
        folder = self.folder(case, kind)
        shutil.rmtree(folder, ignore_errors=True)
        if kind == "original":
            self._probe_log(case).unlink(missing_ok=True)
        folder.mkdir(parents=True)
        path = folder / "train.py"
        path.write_bytes(script)
        env = _run_env()
        if kind == "original":
            env["TORCHLIFT_PROBE"] = str(self._probe_log(case))
            env["PYTHONPATH"] = os.pathsep.join(
                filter(None, [str(PROBE), env.get("PYTHONPATH", "")])
            )
        # a distributed case starts processes of its own: spawned as users run it
        server = (
            None
            if is_distributed(case)
            else self._servers.get("lightning" if kind == "lightning" else "torch")
        )
        live = ForkedRuns(server, self.workdir / case / f"{kind}.streams") if server else None
        return run_traced(
            path,
            cwd=folder,
            env=env,
            timeout=RUN_TIMEOUT,
            params=True,
            launcher=launcher(case),
            live=live,
        )


def _gloo_teardown_abort(run: TracedRun) -> bool:
    """A process of a DDP run aborted by std::terminate in a C++ thread, Python raising nothing:
    gloo's transport threads racing `destroy_process_group` on a loaded machine (seen once in
    CI on an unchanged fixture's original script, after its every step had run)."""
    return not run.ok and "terminate called without an active exception" in run.stderr


def _run_env() -> dict[str, str]:
    return dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONWARNINGS="ignore")


def _wanted_runs(item) -> list[tuple[str, str]]:
    marker = item.get_closest_marker("fixture_runs")
    params = getattr(getattr(item, "callspec", None), "params", {})
    if marker is None or "case" not in params:
        return []
    kinds = [params["target"] if kind == "target" else kind for kind in marker.args]
    return [(params["case"], kind) for kind in kinds]


_SESSION: dict[str, FixtureRuns] = {}


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "fixture_runs(*kinds): the test reads these runs of its `case` (tests/fixture_runs.py)",
    )


def _start() -> FixtureRuns:
    if "runs" not in _SESSION:
        workers = int(os.environ.get("TORCHLIFT_TEST_JOBS", 0)) or max(2, os.cpu_count() or 1)
        workdir = Path(tempfile.mkdtemp(prefix="torchlift-fixture-runs-"))
        _SESSION["runs"] = FixtureRuns(workdir, workers)
    return _SESSION["runs"]


def pytest_collection_finish(session):
    """Start the runs the selected tests read, in the order they read them."""
    wanted = [run for item in session.items for run in _wanted_runs(item)]
    if not wanted or session.config.option.collectonly:
        return
    try:
        from torchlift.migrator import migrate_source  # noqa: F401
    except ImportError:
        return  # each test fails on its own with the import error
    runs = _start()
    # originals first (nothing to migrate: they start at once), distributed cases last (each
    # waits for the runs submitted before it)
    order = sorted(
        dict.fromkeys(wanted), key=lambda run: (is_distributed(run[0]), run[1] != "original")
    )
    for case, kind in order:
        runs.submit(case, kind)


def pytest_sessionfinish(session):
    runs = _SESSION.pop("runs", None)
    if runs is not None:
        runs.shutdown()
        if not session.testsfailed:  # kept for a look at what failed
            shutil.rmtree(runs.workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def fixture_runs() -> FixtureRuns:
    runs = _start()
    runs.reading()
    return runs


@pytest.fixture(scope="session")
def python_runs() -> FixtureRuns:
    """For a test running scripts of its own: `live(...)` / `run_python(...)` fork them from the
    fixture runs' servers (without starting the fixture runs)."""
    return _start()


def describe(result) -> str:
    """A MigrationResult's error and findings, one per line."""
    lines = [str(result.error)] if result.error else []
    return "\n".join(lines + [str(f) for f in result.findings]) or "(no findings)"


def traced(run, label: str) -> TracedRun:
    """`run` as a TracedRun that ended well, or the test fails saying why not."""
    if not isinstance(run, TracedRun):
        pytest.fail(f"{label}: the migrator left the script unchanged:\n{describe(run)}")
    assert run.ok, f"{label}: the script failed:\n" + "\n".join(
        run.stderr.strip().splitlines()[-25:]
    )
    return run
