"""The CLI treats an upgrade like a loop conversion: diff, -w, --check, --report."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from torchlift.cli import migrate_command

SEED = Path(__file__).resolve().parents[3] / "fixtures" / "upgrade_1x" / "seed_gpus_ddp"


def run(*args):
    return CliRunner().invoke(migrate_command, [str(a) for a in args])


def test_check_fails_on_a_1x_file_and_passes_once_written(tmp_path):
    script = tmp_path / "train.py"
    script.write_text((SEED / "input.py").read_text())
    assert run("--check", script).exit_code == 1
    assert run("-w", script).exit_code == 0
    assert script.read_text() == (SEED / "expected.py").read_text()
    assert run("--check", script).exit_code == 0


def test_report_lists_each_applied_row(tmp_path):
    script = tmp_path / "train.py"
    script.write_text((SEED / "input.py").read_text())
    report = tmp_path / "report.json"
    result = run("--target", "lightning", "--report", report, script)
    assert result.exit_code == 0
    assert '+trainer = Trainer(accelerator="gpu", devices=2, strategy="ddp")' in result.output
    (entry,) = json.loads(report.read_text())["files"]
    assert entry["status"] == "changed"
    assert {"TL201", "TL202", "TL250"} <= {f["code"] for f in entry["findings"]}


def test_a_row_only_reported_leaves_the_file_and_says_why(tmp_path):
    script = tmp_path / "train.py"
    source = "import pytorch_lightning as pl\ntrainer = pl.Trainer(track_grad_norm=2)\n"
    script.write_text(source)
    result = run("--check", script)
    assert result.exit_code == 0
    assert f"{script}:2:21: TL211" in result.output
    assert script.read_text() == source
