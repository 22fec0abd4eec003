"""What a reviewer reads: the change log under `-v`, the JSON report (schema 2), the --html page."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES, GOOD_SOURCE, REPO

jsonschema = pytest.importorskip("jsonschema")
SCHEMA = json.loads((REPO / "docs" / "report-schema-v2.json").read_text())


def test_verbose_prints_one_grepable_line_per_change(fake_engine, cli, tmp_path):
    script = tmp_path / "a.py"
    script.write_text(GOOD_SOURCE)
    result = cli("-v", script)
    assert result.exit_code == 0
    log = [line for line in result.stderr.splitlines() if ": TL001 marker comment" in line]
    assert log == [f"{script}:2: TL001 marker comment -> converted comment (lines 2 -> 2)"]
    assert result.stdout.startswith("---")  # the diff itself stays on stdout, first


def test_change_log_is_not_printed_without_verbose(fake_engine, cli, tmp_path):
    script = tmp_path / "a.py"
    script.write_text(GOOD_SOURCE)
    assert "marker comment ->" not in cli(script).stderr


def test_report_follows_schema_2(fake_engine, cli, tmp_path):
    changed, plain, empty = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"
    changed.write_text(GOOD_SOURCE)
    plain.write_text("import os\n")
    empty.write_text("")
    report = tmp_path / "report.json"
    cli("--report", report, changed, plain, empty)
    document = json.loads(report.read_text())
    jsonschema.validate(document, SCHEMA)
    assert [f["changes"] != [] for f in document["files"]].count(True) == 1


def test_schema_rejects_a_version_1_document():
    old = {"version": 1, "target": "runtime", "summary": {"changed": 0, "unchanged": 0, "failed": 0},
           "files": []}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(old, SCHEMA)


def test_html_page_is_written_for_the_run(cli, tmp_path):
    """Real migrator on a fixture: the page holds both texts and every finding."""
    script = tmp_path / "train.py"
    script.write_text((FIXTURES / "seed_simple_model_validation" / "input.py").read_text())
    page = tmp_path / "review.html"
    result = cli("--html", page, script)
    assert result.exit_code == 0
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert 'class="pane original"' in text and 'class="pane converted"' in text
    assert "TL001" in text and "LitSimpleModel" in text
    assert script.read_text() == (FIXTURES / "seed_simple_model_validation" / "input.py").read_text()
