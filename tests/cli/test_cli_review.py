"""What a reviewer reads: the change log under `-v`, the JSON report (schema 2), the --html page."""

from __future__ import annotations

import json
import os

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
    old = {
        "version": 1,
        "target": "runtime",
        "summary": {"changed": 0, "unchanged": 0, "failed": 0},
        "files": [],
    }
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
    assert (
        script.read_text() == (FIXTURES / "seed_simple_model_validation" / "input.py").read_text()
    )


def test_diff_is_coloured_only_when_asked_or_on_a_terminal(fake_engine, cli, tmp_path, monkeypatch):
    script = tmp_path / "a.py"
    script.write_text(GOOD_SOURCE)
    plain = cli(script).stdout  # CliRunner is not a terminal: no escape codes
    assert "\x1b[" not in plain and "+# converted" in plain
    coloured = cli("--color", script).stdout
    assert "\x1b[32m+# converted" in coloured and "\x1b[31m-# CONVERT ME" in coloured
    assert "\x1b[" not in cli("--no-color", script).stdout
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" in cli("--color", script).stdout  # an explicit flag wins over NO_COLOR


def test_directory_run_ends_with_a_table_by_rule_code(cli, tmp_path):
    """Real migrator: one converted fixture, one refused GAN-style loop, one plain module."""
    tree = tmp_path / "project"
    tree.mkdir()
    (tree / "train.py").write_text(
        (FIXTURES / "seed_simple_model_validation" / "input.py").read_text()
    )
    (tree / "util.py").write_text("import os\n")
    refused = next(p for p in sorted((FIXTURES / "noop").glob("*.py")) if "gan" in p.name.lower())
    (tree / "gan.py").write_text(refused.read_text())
    result = cli(tree)
    lines = result.stderr.splitlines()
    table = {line.split()[0] + " " + line.split()[1]: line for line in lines[-5:-1]}
    assert lines[-1] == "1 file would be changed, 2 files would be left unchanged."
    assert table["files converted"].split()[2] == "1"
    assert table["files unchanged"].split()[2] == "2"
    assert table["files failed"].split()[2] == "0"
    assert "TL" in table["loops refused"] and int(table["loops refused"].split()[2]) >= 1


GOLDEN = REPO / "tests" / "cli" / "golden"


@pytest.mark.parametrize("case", ["seed_simple_model_validation", "train_one_epoch_helpers"])
def test_verbose_report_is_stable(cli, tmp_path, monkeypatch, case):
    """`migrate -v` is read by people and grepped by scripts: its lines change only on purpose.
    TORCHLIFT_REGEN_GOLDEN=1 rewrites the golden files after an intended change."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text((FIXTURES / case / "input.py").read_text())
    result = cli("-v", "--no-color", "train.py")
    golden = GOLDEN / f"{case}.stderr"
    if os.environ.get("TORCHLIFT_REGEN_GOLDEN"):
        golden.write_text(result.stderr)
    assert result.stderr == golden.read_text()


def test_a_named_file_with_nothing_to_convert_says_why_without_verbose(cli, tmp_path):
    script = tmp_path / "plain.py"
    script.write_text("import torch\nprint(torch.ones(2).sum())\n")
    result = cli(script)
    assert result.exit_code == 0
    assert f"{script}:1:0: TL002 no training loop found (nothing calls `.backward()`)" in result.stderr


def test_files_met_in_a_directory_stay_quiet_without_verbose(cli, tmp_path):
    (tmp_path / "plain.py").write_text("import os\n")
    assert "TL002" not in cli(tmp_path).stderr
    assert "TL002" in cli("-v", tmp_path).stderr
