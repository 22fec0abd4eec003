"""Lightning 1.x -> 2.x upgrade fixtures: every case in fixtures/upgrade_1x/ is checked here.

    fixtures/upgrade_1x/<family>/input.py      a Lightning 1.x script (first line: what it shows)
    fixtures/upgrade_1x/<family>/expected.py   `migrate --target runtime` of it, reviewed by hand
    fixtures/upgrade_1x/<family>/reference.py  the same script written for 2.x by hand

No Lightning 1.x can be installed next to 2.x, so the originals cannot run. Instead, for each
engine (torchlift.runtime and real Lightning 2.6), the upgraded script records the same value
at every backward() as the hand-written 2.x reference (seeded, on CPU). The reference is run
on the runtime by pointing its `lightning.pytorch` imports at `torchlift.runtime`.
The cases sit one folder deeper than fixtures/<case>/input.py, so tests/test_fixtures.py
(which runs every input.py as a plain script) does not collect them.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from torchlift.migrator import migrate_source
from torchlift.verify.trace import TracedRun, run_traced

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
UPGRADES = FIXTURES / "upgrade_1x"
CASES = sorted(p.parent.name for p in UPGRADES.glob("*/input.py"))
RUNNABLE = sorted(p.parent.name for p in UPGRADES.glob("*/reference.py"))
ENGINES = {"runtime": "torchlift.runtime", "lightning": "lightning.pytorch"}
RUN_TIMEOUT = 300
EQUIVALENCE_TEST = "test_upgraded_script_trains_like_the_reference"


def upgrade(case: str, target: str = "runtime", text: str | None = None):
    if text is None:
        text = (UPGRADES / case / "input.py").read_text()
    return migrate_source(text, path=f"{case}/input.py", target=target)


def describe(result) -> str:
    return "\n".join([str(result.error)] * bool(result.error) + [str(f) for f in result.findings])


def test_cases_exist_and_stay_out_of_the_plain_fixture_glob():
    assert {
        "trainer_flags",
        "epoch_end_hooks",
        "calls_and_imports",
        "callbacks",
    } <= set(CASES)
    plain = {p.resolve() for p in FIXTURES.glob("*/input.py")}
    assert not [p for p in plain if UPGRADES in p.parents]


@pytest.mark.parametrize("case", CASES)
def test_input_states_what_it_shows(case):
    first = (UPGRADES / case / "input.py").read_text().splitlines()[0]
    assert first.startswith("# ") and len(first) > 20


@pytest.mark.parametrize("case", CASES)
def test_input_upgrades_to_expected(case):
    result = upgrade(case)
    assert result.error is None, describe(result)
    assert result.output == (UPGRADES / case / "expected.py").read_text(), describe(result)
    assert not [f for f in result.findings if f.severity == "warning"], describe(result)
    assert any(f.code.startswith("TL2") for f in result.findings)


@pytest.mark.parametrize("case", CASES)
def test_expected_is_a_fixed_point(case):
    expected = (UPGRADES / case / "expected.py").read_text()
    result = migrate_source(expected, path=f"{case}/expected.py", target="runtime")
    assert result.output == expected, describe(result)


@pytest.mark.parametrize("target", ["lightning", "pytorch_lightning"])
@pytest.mark.parametrize("case", CASES)
def test_upgrading_twice_changes_nothing(case, target):
    first = upgrade(case, target)
    assert first.changed, describe(first)
    second = upgrade(case, target, text=first.output)
    assert second.output == first.output, describe(second)


def test_seed_snippet_upgrades_to_the_issue_line():
    expected = (UPGRADES / "seed_gpus_ddp" / "expected.py").read_text()
    assert 'Trainer(accelerator="gpu", devices=2, strategy="ddp")' in expected


# --- equivalence ---------------------------------------------------------------------------


def _script(case: str, kind: str, engine: str) -> str:
    if kind == "upgraded":
        return upgrade(case, engine).output
    reference = (UPGRADES / case / "reference.py").read_text()
    return reference.replace("lightning.pytorch", ENGINES[engine])


def _run(case: str, kind: str, engine: str, workdir: Path, python_runs) -> TracedRun:
    folder = workdir / case / f"{kind}-{engine}"
    folder.mkdir(parents=True)
    script = folder / "train.py"
    script.write_text(_script(case, kind, engine))
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    # forked as the fixture runs are (tests/fixture_runs.py)
    live = python_runs.live(engine == "lightning", folder.with_name(folder.name + ".streams"))
    return run_traced(script, cwd=folder, env=env, timeout=RUN_TIMEOUT, live=live)


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory, python_runs):
    """Start the selected cases' runs up front, so they overlap on a small pool."""
    selected = {
        item.callspec.params["case"]
        for item in request.session.items
        if getattr(item, "originalname", None) == EQUIVALENCE_TEST and hasattr(item, "callspec")
    }
    workers = int(os.environ.get("TORCHLIFT_TEST_JOBS", "0")) or 2
    pool = ThreadPoolExecutor(max_workers=workers)
    workdir = tmp_path_factory.mktemp("upgrade")
    futures = {
        (case, kind, engine): pool.submit(_run, case, kind, engine, workdir, python_runs)
        for case in sorted(selected)
        for engine in ENGINES
        for kind in ("upgraded", "reference")
    }
    yield futures
    pool.shutdown(wait=False, cancel_futures=True)


def _tail(text: str) -> str:
    return "\n".join(text.strip().splitlines()[-25:])


@pytest.mark.slow
@pytest.mark.lightning
@pytest.mark.parametrize("case", RUNNABLE)
def test_upgraded_script_trains_like_the_reference(case, runs):
    for engine in ENGINES:
        upgraded = runs[(case, "upgraded", engine)].result()
        reference = runs[(case, "reference", engine)].result()
        assert reference.ok, f"{engine}: the reference fails:\n{_tail(reference.stderr)}"
        assert upgraded.ok, f"{engine}: the upgraded script fails:\n{_tail(upgraded.stderr)}"
        assert reference.losses, f"{engine}: the reference never called backward()"
        assert len(upgraded.losses) == len(reference.losses), (
            f"{engine}: {len(upgraded.losses)} steps, reference {len(reference.losses)}"
        )
        for step, (a, b) in enumerate(zip(reference.losses, upgraded.losses), start=1):
            assert math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9), (
                f"{engine}: step {step}: upgraded {b!r} != reference {a!r}"
            )
