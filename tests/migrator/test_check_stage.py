"""The engine's last stage: checks plugged into engine.CHECKS see the original and the
converted text; a warning from any of them refuses the conversion (file unchanged)."""

from __future__ import annotations

import pytest

from torchlift.migrator import engine, migrate_source
from torchlift.migrator.result import Finding
from torchlift.migrator.rules import RULE_DETAILS

SCRIPT = RULE_DETAILS["TL001"].example_source()


@pytest.fixture
def plugged():
    seen = []

    def refuse_everything(original: str, converted: str, path: str) -> list[Finding]:
        seen.append((original, converted, path))
        return [Finding(path, 3, 0, "TL900", "refused by the check stage", "warning")]

    engine.CHECKS.append(refuse_everything)
    try:
        yield seen
    finally:
        engine.CHECKS.remove(refuse_everything)


def test_a_refusing_check_keeps_the_file_and_reports_why(plugged):
    result = migrate_source(SCRIPT, "train.py")
    assert not result.changed and result.output == SCRIPT
    assert "refused by the check stage" in [f.message for f in result.findings]
    ((original, converted, path),) = plugged
    assert original == SCRIPT and "L.Trainer(" in converted and path == "train.py"


def test_the_default_checks_pass_a_sound_conversion():
    from torchlift.migrator import static_check

    assert engine.CHECKS == [static_check.check]
    assert migrate_source(SCRIPT, "train.py").changed
