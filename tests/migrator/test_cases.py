"""Before/after cases: tests/migrator/cases/<name>.in.py -> <name>.out.py (target runtime).

One glob collects them (TorchFix style). A case without an .out.py must come back unchanged.
Regenerate an expected output after reviewing it by hand:
    python -m tests.migrator.regen <name>
"""

from pathlib import Path

import pytest

from torchlift.migrator import migrate_source

CASES = Path(__file__).parent / "cases"
INPUTS = sorted(CASES.glob("*.in.py"))


@pytest.mark.parametrize("source", INPUTS, ids=[p.name[: -len(".in.py")] for p in INPUTS])
def test_case_converts_to_expected(source: Path):
    expected_path = source.with_name(source.name.replace(".in.py", ".out.py"))
    text = source.read_text()
    result = migrate_source(text, str(source))
    assert result.error is None
    expected = expected_path.read_text() if expected_path.exists() else text
    assert result.output == expected, "\n".join(map(str, result.findings))
    again = migrate_source(result.output, str(source))
    assert again.output == result.output, "migration is not idempotent"
