"""`migrate` as users run it: the installed console script and `python -m torchlift`,
as real processes with the real migrator."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys

from conftest import BIN, FIXTURES

CASE = FIXTURES / "seed_simple_model_validation" / "input.py"
NOOP = FIXTURES / "noop"


def migrate(*args, input=None, cwd=None):
    exe = BIN / "migrate"
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "torchlift", "migrate"]
    return subprocess.run(
        command + [str(a) for a in args],
        input=input,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def torchlift_module(*args, input=None):
    return subprocess.run(
        [sys.executable, "-m", "torchlift", *map(str, args)],
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_help_and_version():
    assert (BIN / "migrate").exists(), "pip install -e . should create the `migrate` script"
    assert migrate("--help").returncode == 0
    version = torchlift_module("--version")
    assert version.returncode == 0 and "torchlift" in version.stdout


def test_default_diff_of_a_fixture_touches_nothing(tmp_path):
    script = tmp_path / "train.py"
    shutil.copy(CASE, script)
    result = migrate(script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"--- a/{script}\n+++ b/{script}\n")
    assert "LightningModule" in result.stdout
    assert script.read_bytes() == CASE.read_bytes()
    assert result.stderr.strip().splitlines()[-1] == "1 file would be changed."
    assert torchlift_module("migrate", script).stdout == result.stdout


def test_write_then_check_is_clean_and_compiles(tmp_path):
    script = tmp_path / "train.py"
    shutil.copy(CASE, script)
    os.chmod(script, 0o750)
    assert migrate("--check", script).returncode == 1
    written = migrate("-w", script)
    assert written.returncode == 0, written.stderr
    compile(script.read_text(), str(script), "exec")
    assert "import torchlift.runtime as L" in script.read_text()
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    again = migrate("--check", script)
    assert again.returncode == 0, again.stderr  # idempotent


def test_target_changes_only_the_import_line(tmp_path):
    runtime = migrate(CASE, "-o", tmp_path / "runtime.py")
    lightning = migrate(CASE, "--target", "lightning", "-o", tmp_path / "lightning.py")
    assert runtime.returncode == 0 and lightning.returncode == 0, runtime.stderr + lightning.stderr
    a = (tmp_path / "runtime.py").read_text().splitlines()
    b = (tmp_path / "lightning.py").read_text().splitlines()
    differing = [(x, y) for x, y in zip(a, b) if x != y]
    assert len(a) == len(b)
    assert differing == [("import torchlift.runtime as L", "import lightning.pytorch as L")]


def test_stdin_to_stdout():
    result = migrate("-", input=CASE.read_text())
    assert result.returncode == 0, result.stderr
    assert "class Lit" in result.stdout
    compile(result.stdout, "<stdout>", "exec")


def test_noop_directory_checks_clean():
    result = migrate("--check", NOOP)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    count = len(list(NOOP.glob("*.py")))
    assert result.stderr.strip().splitlines()[-1] == f"{count} files would be left unchanged."


def test_directory_mirror_with_the_real_migrator(tmp_path):
    src = tmp_path / "src"
    (src / "nested").mkdir(parents=True)
    shutil.copy(CASE, src / "nested" / "train.py")
    shutil.copy(NOOP / "no_torch.py", src / "tool.py")
    (src / "config.yaml").write_text("lr: 0.1\n")
    result = migrate(src, "-o", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (tmp_path / "out").rglob("*") if p.is_file()) == [
        "tool.py",
        "train.py",
    ]
    assert (tmp_path / "out" / "tool.py").read_bytes() == (NOOP / "no_torch.py").read_bytes()


BAD_INPUTS = {
    "syntax.py": (b"import torch\nfor x in y:\nprint(x)\n", 3, "syntax error"),
    "python2.py": (b"import torch\nprint 'loss', loss\n", 2, "Python 2"),
    "empty.py": (b"", 1, "empty file"),
    "undecodable.py": (b"x = 1\n\xff\n", 2, "decode"),
}


def test_each_bad_input_is_one_line_the_others_still_written(tmp_path):
    for name, (data, _, _) in BAD_INPUTS.items():
        (tmp_path / name).write_bytes(data)
    good = tmp_path / "good.py"
    shutil.copy(CASE, good)
    result = migrate("-w", *sorted(tmp_path.iterdir()))
    assert result.returncode == 123
    assert "Traceback" not in result.stderr, result.stderr
    errors = [l for l in result.stderr.splitlines() if l.startswith("migrate: ")]
    assert len(errors) == len(BAD_INPUTS), result.stderr
    for name, (data, line, word) in BAD_INPUTS.items():
        bad = tmp_path / name
        (error,) = [e for e in errors if e.startswith(f"migrate: {bad}:")]
        assert error.startswith(f"migrate: {bad}:{line}: ") and word in error, error
        assert error.endswith("; nothing written")
        assert bad.read_bytes() == data
    assert "LightningModule" in good.read_text()
    assert result.stderr.splitlines()[-1] == "1 file changed, 4 files failed to migrate."


def test_missing_path_and_usage_error_exit_codes(tmp_path):
    missing = migrate(tmp_path / "missing.py")
    assert missing.returncode == 123
    assert missing.stderr.splitlines()[0] == (
        f"migrate: {tmp_path / 'missing.py'}:1: no such file or directory; nothing written"
    )
    usage = migrate("--target", "tf", CASE)
    assert usage.returncode == 2 and "Usage: migrate" in usage.stderr
