"""The migrator's specification, as data: every case in fixtures/ is checked here.

    fixtures/<case>/input.py     a training script people really write (first line says what it shows)
    fixtures/<case>/expected.py  its migration for --target runtime (generated, then reviewed)
    fixtures/noop/*.py           files that must come back byte for byte

For each case: input migrates to expected.py exactly; expected.py migrates to itself; and the
converted script -- for the runtime and for real Lightning -- records the same per-step losses
as the original (the value passed to every Tensor.backward, seeded, on CPU) and ends with the
same trained tensors, bit for bit. The scripts run as subprocesses, once per session, shared
with the other tests reading them (tests/fixture_runs.py).
"""

from __future__ import annotations

import pytest
from fixture_runs import FIXTURES, describe, migrate, traced

from torchlift.cli.sources import encode_source, read_source
from torchlift.verify.compare import compare_runs
from torchlift.verify.trace import TracedRun

CASES = sorted(p.parent.name for p in FIXTURES.glob("*/input.py"))
NOOP = sorted(p.name for p in FIXTURES.glob("noop/*.py"))
TARGETS = ("runtime", "lightning")


@pytest.mark.parametrize("case", CASES)
def test_input_states_what_it_shows(case):
    first = (FIXTURES / case / "input.py").read_text().splitlines()[0]
    assert first.startswith("# ") and len(first) > 20, f"{case}: first line must say what it shows"


@pytest.mark.parametrize("case", CASES)
def test_input_migrates_to_expected(case):
    expected = FIXTURES / case / "expected.py"
    assert expected.exists(), f"{case}/expected.py is missing: every case must convert"
    source, encoding = read_source(str(FIXTURES / case / "input.py"))
    result = migrate(FIXTURES / case / "input.py", text=source)
    assert result.error is None, describe(result)
    assert encode_source(result.output, encoding) == expected.read_bytes(), describe(result)


@pytest.mark.parametrize("case", CASES)
def test_expected_is_a_fixed_point(case):
    expected = FIXTURES / case / "expected.py"
    assert expected.exists(), f"{case}/expected.py is missing: every case must convert"
    result = migrate(expected)
    assert result.error is None, describe(result)
    assert not result.changed, "migrating the migrated script changed it again"


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES)
def test_migrating_twice_changes_nothing(case, target):
    first = migrate(FIXTURES / case / "input.py", target)
    assert first.error is None, describe(first)
    assert first.changed, f"every case must convert: {describe(first)}"
    second = migrate(FIXTURES / case / "input.py", target, text=first.output)
    assert second.error is None, describe(second)
    assert second.output == first.output, "the migrated script was migrated again"


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


def assert_trains_identically(original: TracedRun, converted: TracedRun, label: str) -> None:
    """Bit for bit: every fixture computes the same floats in the same order after conversion,
    so any difference at all -- a loss scaled by 1.000001, one step less -- is a failure.
    Losses at every backward(), then the final value of every trained tensor (verify's
    comparison, with no tolerance)."""
    assert converted.params is not None, f"{label}: the converted script recorded no parameters"
    comparison = compare_runs(original, converted, rtol=0.0)
    assert comparison.outcome == "identical", (
        f"{label}: {comparison.outcome} at step {comparison.step}: {comparison.detail}\n"
        f"original:  {original.losses}\nconverted: {converted.losses}"
    )


def tail(text: str, lines: int = 25) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


@pytest.mark.slow
@pytest.mark.lightning
@pytest.mark.fixture_runs("original", *TARGETS)
@pytest.mark.parametrize("case", CASES)
def test_converted_script_trains_like_the_original(case, fixture_runs):
    original = fixture_runs.get(case, "original")
    assert original.ok, f"the fixture itself fails:\n{tail(original.stderr)}"
    assert original.losses, "the fixture never called backward()"
    assert original.params, "the fixture trained no tensor"
    for target in TARGETS:
        run = traced(fixture_runs.get(case, target), f"--target {target}")
        assert_trains_identically(original, run, f"--target {target}")
