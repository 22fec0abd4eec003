"""Shared helpers for the CLI tests.

Most CLI behaviour (diffs, writing, exit codes, reports) does not depend on what the migrator
converts, so those tests swap in `fake_engine`: a tiny migrate_source that rewrites a marker
comment. Tests of the real pipeline use the fixtures and the real migrator.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchlift.cli import migrate_command
from torchlift.migrator.result import Change, Finding, MigrationResult

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
BIN = Path(sys.executable).parent

MARK = "# CONVERT ME\n"
CONVERTED = "# converted\n"
GOOD_SOURCE = "import torch\n" + MARK + "x = 1\n"  # converts (line 2) under fake_engine


def fake_migrate_source(source, path="<string>", target="runtime"):
    """Replace MARK by CONVERTED (and name the target), with one finding; 'BOOM' raises;
    'BADOUT' produces code that does not compile."""
    if "BOOM" in source:
        raise RuntimeError("migrator exploded")
    if "BADOUT" in source:
        return MigrationResult(path, source, source + "def broken(:\n")
    if MARK not in source:
        note = Finding(path, 1, 0, "TL002", "no training loop found; file left unchanged")
        return MigrationResult(path, source, source, [note])
    line = source[: source.index(MARK)].count("\n") + 1
    output = source.replace(MARK, f"{CONVERTED.rstrip()} for {target}\n")
    finding = Finding(path, line, 0, "TL001", "converted the training loop")
    change = Change("TL001", (line, line), (line, line), "marker comment -> converted comment")
    return MigrationResult(path, source, output, [finding], changes=[change])


@pytest.fixture
def fake_engine(monkeypatch):
    import torchlift.migrator

    monkeypatch.setattr(torchlift.migrator, "migrate_source", fake_migrate_source, raising=False)
    return fake_migrate_source


@pytest.fixture
def cli():
    """Invoke `migrate` in-process; returns click's Result (stdout/stderr kept apart)."""
    runner = CliRunner()

    def invoke(*args, input=None):
        return runner.invoke(
            migrate_command, list(map(str, args)), input=input, catch_exceptions=False
        )

    return invoke


def stderr_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]
