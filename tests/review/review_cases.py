"""The conversion the review-page tests show: a fixture, with the migrator's own change log."""

from __future__ import annotations

from pathlib import Path

from torchlift.migrator import migrate_source
from torchlift.migrator.result import Change, MigrationResult

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def seed_review_result() -> MigrationResult:
    source = (FIXTURES / "seed_simple_model_validation" / "input.py").read_text()
    result = migrate_source(source, path="train.py")
    assert result.changed and result.changes, result.findings
    return result


def change_about(result: MigrationResult, words: str) -> tuple[int, Change]:
    """The (index, change) whose message contains `words`."""
    return next((i, c) for i, c in enumerate(result.changes) if words in c.message)
