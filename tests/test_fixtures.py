"""The migrator's specification, as data: every case in fixtures/ is checked here.

    fixtures/<case>/input.py     a training script people really write (first line says what it shows)
    fixtures/<case>/expected.py  its migration for --target runtime (generated, then reviewed)
    fixtures/noop/*.py           files that must come back byte for byte

For each case: input migrates to expected.py exactly; expected.py migrates to itself; and the
converted script -- for the runtime and for real Lightning -- records the same per-step losses
as the original (the value passed to every Tensor.backward, seeded, on CPU). The scripts run
as subprocesses, all selected cases at once on a small thread pool, so the suite stays short.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from torchlift.cli.sources import encode_source, read_source
from torchlift.verify.trace import TracedRun, run_traced

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CASES = sorted(p.parent.name for p in FIXTURES.glob("*/input.py"))
NOOP = sorted(p.name for p in FIXTURES.glob("noop/*.py"))
TARGETS = ("runtime", "lightning")
RTOL = 1e-5
RUN_TIMEOUT = 240
EQUIVALENCE_TEST = "test_converted_script_trains_like_the_original"


def migrate(path: Path, target: str = "runtime", text: str | None = None):
    from torchlift.migrator import migrate_source

    if text is None:
        text, _ = read_source(str(path))
    return migrate_source(text, path=str(path), target=target)


def describe(result) -> str:
    lines = [str(result.error)] if result.error else []
    return "\n".join(lines + [str(f) for f in result.findings]) or "(no findings)"


@pytest.mark.parametrize("case", CASES)
def test_input_states_what_it_shows(case):
    first = (FIXTURES / case / "input.py").read_text().splitlines()[0]
    assert first.startswith("# ") and len(first) > 20, f"{case}: first line must say what it shows"


@pytest.mark.parametrize("case", CASES)
def test_input_migrates_to_expected(case):
    expected = FIXTURES / case / "expected.py"
    if not expected.exists():
        pytest.skip(f"{case}/expected.py not generated yet (the migrator's owner writes it)")
    source, encoding = read_source(str(FIXTURES / case / "input.py"))
    result = migrate(FIXTURES / case / "input.py", text=source)
    assert result.error is None, describe(result)
    assert encode_source(result.output, encoding) == expected.read_bytes(), describe(result)


@pytest.mark.parametrize("case", CASES)
def test_expected_is_a_fixed_point(case):
    expected = FIXTURES / case / "expected.py"
    if not expected.exists():
        pytest.skip(f"{case}/expected.py not generated yet (the migrator's owner writes it)")
    result = migrate(expected)
    assert result.error is None, describe(result)
    assert not result.changed, "migrating the migrated script changed it again"


@pytest.mark.parametrize("name", NOOP)
def test_noop_comes_back_byte_for_byte(name):
    path = FIXTURES / "noop" / name
    source, encoding = read_source(str(path))
    result = migrate(path, text=source)
    assert result.error is None, describe(result)
    assert not result.changed
    assert encode_source(result.output, encoding) == path.read_bytes()


@pytest.mark.parametrize("name", NOOP)
def test_noop_header_says_why(name):
    first = (FIXTURES / "noop" / name).read_text(encoding="utf-8-sig").splitlines()[0]
    assert first.startswith("# noop: "), f"{name}: first line must be '# noop: <why>'"


# --- equivalence ---------------------------------------------------------------------------


def run_script(script: Path) -> TracedRun:
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    return run_traced(script, cwd=script.parent, env=env, timeout=RUN_TIMEOUT)


def start_case(pool: ThreadPoolExecutor, case: str, workdir: Path) -> dict[str, Future]:
    """Submit the original and each target's conversion of `case`; return their futures."""
    source, encoding = read_source(str(FIXTURES / case / "input.py"))
    scripts = {"original": source}
    for target in TARGETS:
        try:
            result = migrate(FIXTURES / case / "input.py", target, text=source)
        except Exception as exc:  # reported by the test that needs it, not at setup
            scripts[target] = exc
            continue
        scripts[target] = result
    futures: dict[str, Future] = {}
    for kind, item in scripts.items():
        if not isinstance(item, str):
            if isinstance(item, Exception) or not item.changed:
                futures[kind] = item
                continue
            item = item.output
        folder = workdir / case / kind
        folder.mkdir(parents=True)
        script = folder / "train.py"
        script.write_bytes(encode_source(item, encoding))
        futures[kind] = pool.submit(run_script, script)
    return futures


@pytest.fixture(scope="module")
def equivalence_runs(request, tmp_path_factory):
    """Start every selected case's runs up front, so they overlap on the pool."""
    selected = [
        item.callspec.params["case"]
        for item in request.session.items
        if getattr(item, "originalname", None) == EQUIVALENCE_TEST and hasattr(item, "callspec")
    ]
    workers = int(os.environ.get("TORCHLIFT_TEST_JOBS", 0)) or max(2, os.cpu_count() or 1)
    pool = ThreadPoolExecutor(max_workers=workers)
    workdir = tmp_path_factory.mktemp("equivalence")
    runs = {}
    try:
        from torchlift.migrator import migrate_source  # noqa: F401
    except ImportError:
        pass  # each test fails on its own with the import error
    else:
        runs = {case: start_case(pool, case, workdir) for case in dict.fromkeys(selected)}
    yield runs
    pool.shutdown(wait=False, cancel_futures=True)


def assert_same_losses(original: list[float], converted: list[float], label: str) -> None:
    assert len(converted) == len(original), (
        f"{label}: {len(converted)} backward calls, the original made {len(original)}\n"
        f"original:  {original}\nconverted: {converted}"
    )
    for step, (a, b) in enumerate(zip(original, converted), start=1):
        assert math.isclose(a, b, rel_tol=RTOL, abs_tol=1e-8), (
            f"{label}: step {step} loss {b!r} != original {a!r}\n"
            f"original:  {original}\nconverted: {converted}"
        )


def tail(text: str, lines: int = 25) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_converted_script_trains_like_the_original(case, equivalence_runs):
    if case not in equivalence_runs:  # the migrator is not importable: say why
        migrate(FIXTURES / case / "input.py")
    runs = equivalence_runs[case]
    original = runs["original"].result()
    assert original.ok, f"the fixture itself fails:\n{tail(original.stderr)}"
    assert original.losses, "the fixture never called backward()"
    for target in TARGETS:
        item = runs[target]
        if isinstance(item, Exception):
            raise item
        if not isinstance(item, Future):
            pytest.fail(f"--target {target}: the migrator left {case} unchanged:\n{describe(item)}")
        run = item.result()
        assert run.ok, f"--target {target}: converted script failed:\n{tail(run.stderr)}"
        assert_same_losses(original.losses, run.losses, f"--target {target}")
