"""Shared by the row-family tables: migrate a snippet and read back code and findings."""

from __future__ import annotations

from torchlift.migrator import migrate_source

HEADER = "import pytorch_lightning as pl\n"


def upgrade(source: str, target: str = "pytorch_lightning"):
    return migrate_source(source, path="t.py", target=target)


def codes(result, severity: str | None = None) -> list[str]:
    return [f.code for f in result.findings if severity is None or f.severity == severity]


def assert_pair(before: str, after: str, target: str = "pytorch_lightning") -> None:
    result = upgrade(before, target)
    assert result.error is None
    assert result.output == after, "\n".join(str(f) for f in result.findings)
    again = upgrade(after, target)
    assert again.output == after, "upgrading the upgraded snippet changed it again"


def assert_reported(source: str, code: str, target: str = "pytorch_lightning") -> None:
    """The row is only reported: a warning with its code, and (nothing else to do) the
    file comes back byte for byte."""
    result = upgrade(source, target)
    assert code in codes(result, "warning"), [str(f) for f in result.findings]
    assert result.output == source
