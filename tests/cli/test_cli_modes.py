"""Output modes of `migrate`: default diff, --check, -w, -o (file and tree), stdin."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import CONVERTED, FIXTURES, MARK, stderr_lines

SCRIPT = "import torch\n" + MARK + "x = 1\n"
PLAIN = "import os\nprint(os.sep)\n"


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(SCRIPT)
    return path


def test_default_prints_a_diff_and_writes_nothing(fake_engine, cli, script):
    result = cli(script)
    assert result.exit_code == 0
    assert f"--- a/{script}" in result.stdout and f"+++ b/{script}" in result.stdout
    assert "-" + MARK in result.stdout
    assert "+" + CONVERTED.rstrip() + " for runtime\n" in result.stdout
    assert script.read_text() == SCRIPT
    lines = stderr_lines(result)
    assert f"{script}:2:0: TL001 converted the training loop" in lines
    assert f"would change {script}" in lines
    assert lines[-1] == "1 file would be changed."


def patched(diff: str, original: Path, tmp_path: Path) -> bytes:
    """The file `patch` makes from a copy of `original` and `diff` (the real tool)."""
    assert shutil.which("patch"), "this test needs GNU patch: apt-get install patch"
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(original, copy / original.name)
    applied = subprocess.run(
        ["patch", "--batch", "--forward", "-p0", "-i", "-", str(copy / original.name)],
        check=False,
        input=diff,
        capture_output=True,
        text=True,
    )
    assert applied.returncode == 0, applied.stdout + applied.stderr
    return (copy / original.name).read_bytes()


@pytest.mark.parametrize("last_line", ["y = 2", "y = 2\n"], ids=["no_final_newline", "newline"])
def test_diff_applies_with_patch_semantics(fake_engine, cli, tmp_path, last_line):
    # The printed diff, fed to the real `patch`, must produce exactly what -o writes.
    path = tmp_path / "t.py"
    path.write_text(MARK + last_line)
    converted = tmp_path / "converted.py"
    assert cli(path, "-o", converted).exit_code == 0
    assert patched(cli(path).stdout, path, tmp_path) == converted.read_bytes() != path.read_bytes()


def test_diff_of_a_changed_last_line_without_newline_applies(cli, tmp_path):
    # A converted loop that ends the file, which has no final newline: the diff's last added
    # line must be marked, or patch would add a newline the conversion does not have.
    path = tmp_path / "train.py"
    path.write_bytes((FIXTURES / "plateau_scheduler_val_loss" / "input.py").read_bytes().rstrip())
    converted = tmp_path / "converted.py"
    assert cli(path, "-o", converted).exit_code == 0
    assert not converted.read_bytes().endswith(b"\n")
    assert patched(cli(path).stdout, path, tmp_path) == converted.read_bytes()


def test_unchanged_file_prints_no_diff(fake_engine, cli, tmp_path):
    path = tmp_path / "plain.py"
    path.write_text(PLAIN)
    result = cli(path)
    assert result.exit_code == 0 and result.stdout == ""
    assert stderr_lines(result)[-1] == "1 file would be left unchanged."


def test_target_reaches_the_migrator(fake_engine, cli, script):
    assert "for lightning" in cli("--target", "lightning", script).stdout
    assert "for pytorch_lightning" in cli("--target", "pytorch_lightning", script).stdout


def test_check_exits_1_when_something_would_change(fake_engine, cli, script, tmp_path):
    plain = tmp_path / "plain.py"
    plain.write_text(PLAIN)
    changed = cli("--check", script, plain)
    assert changed.exit_code == 1 and changed.stdout == ""
    assert stderr_lines(changed)[-1] == "1 file would be changed, 1 file would be left unchanged."
    assert script.read_text() == SCRIPT
    assert cli("--check", plain).exit_code == 0


def test_quiet_prints_nothing_but_errors(fake_engine, cli, script):
    result = cli("--check", "-q", script, script.parent / "missing.py")
    assert result.exit_code == 123
    assert stderr_lines(result) == [
        f"migrate: {script.parent / 'missing.py'}:1: no such file or directory; nothing written"
    ]


def test_write_rewrites_in_place_and_keeps_the_mode(fake_engine, cli, script, tmp_path):
    os.chmod(script, 0o754)
    plain = tmp_path / "plain.py"
    plain.write_text(PLAIN)
    before = plain.stat().st_mtime_ns
    result = cli("-w", script, plain)
    assert result.exit_code == 0, result.stderr
    assert script.read_text() == SCRIPT.replace(MARK, CONVERTED.rstrip() + " for runtime\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o754
    assert plain.stat().st_mtime_ns == before  # unchanged files are not rewritten
    assert result.stdout == ""
    assert stderr_lines(result)[-1] == "1 file changed, 1 file left unchanged."
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp files left


def test_write_keeps_crlf_and_bom(fake_engine, cli, tmp_path):
    path = tmp_path / "win.py"
    path.write_bytes(b"\xef\xbb\xbfimport torch\r\n" + MARK.encode() + b"x = 1\r\n")
    assert cli("-w", path).exit_code == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbfimport torch\r\n") and data.endswith(b"x = 1\r\n")


def test_write_is_atomic_when_replacing_fails(fake_engine, cli, script, monkeypatch):
    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    result = cli("-w", script)
    assert result.exit_code == 123
    assert script.read_text() == SCRIPT
    assert (
        f"migrate: {script}:1: cannot write (Permission denied); nothing written"
        in stderr_lines(result)
    )
    assert [p.name for p in script.parent.iterdir()] == ["train.py"]  # temp file removed


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_write_into_a_read_only_directory_changes_nothing(fake_engine, cli, script):
    os.chmod(script.parent, 0o555)
    try:
        result = cli("-w", script)
    finally:
        os.chmod(script.parent, 0o755)
    assert result.exit_code == 123 and script.read_text() == SCRIPT
    assert "cannot write" in result.stderr


def test_output_file(fake_engine, cli, script, tmp_path):
    out = tmp_path / "out" / "train_lit.py"
    result = cli(script, "-o", out)
    assert result.exit_code == 0, result.stderr
    assert out.read_text() == SCRIPT.replace(MARK, CONVERTED.rstrip() + " for runtime\n")
    assert script.read_text() == SCRIPT and result.stdout == ""


def test_output_into_an_existing_directory(fake_engine, cli, script, tmp_path):
    out = tmp_path / "dest"
    out.mkdir()
    assert cli(script, "-o", out).exit_code == 0
    assert (out / "train.py").read_text().startswith("import torch\n# converted")


def test_output_mirrors_a_directory_tree(fake_engine, cli, tmp_path):
    src = tmp_path / "project"
    (src / "pkg" / "sub").mkdir(parents=True)
    (src / "train.py").write_text(SCRIPT)
    (src / "pkg" / "sub" / "deep.py").write_text(SCRIPT)
    (src / "pkg" / "util.py").write_text(PLAIN)
    (src / "README.md").write_text("not python\n")
    out = tmp_path / "mirror"
    result = cli(src, "-o", out)
    assert result.exit_code == 0, result.stderr
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert files == ["pkg/sub/deep.py", "pkg/util.py", "train.py"]
    assert (out / "pkg" / "util.py").read_text() == PLAIN
    assert "# converted" in (out / "pkg" / "sub" / "deep.py").read_text()
    assert (src / "train.py").read_text() == SCRIPT


def test_stdin_prints_the_converted_code(fake_engine, cli):
    result = cli("-", input=SCRIPT)
    assert result.exit_code == 0
    assert result.stdout == SCRIPT.replace(MARK, CONVERTED.rstrip() + " for runtime\n")
    assert "-:2:0: TL001" in result.stderr


def test_stdin_unchanged_is_echoed(fake_engine, cli):
    result = cli("-", input=PLAIN)
    assert result.exit_code == 0 and result.stdout == PLAIN


def test_stdin_with_write_still_prints(fake_engine, cli):
    result = cli("-w", "-", input=SCRIPT)
    assert result.exit_code == 0 and "# converted" in result.stdout


def test_stdin_check(fake_engine, cli):
    result = cli("--check", "-", input=SCRIPT)
    assert result.exit_code == 1 and result.stdout == ""
    assert cli("--check", "-", input=PLAIN).exit_code == 0


def test_stdin_to_output_file(fake_engine, cli, tmp_path):
    out = tmp_path / "lit.py"
    result = cli("-", "-o", out, input=SCRIPT)
    assert result.exit_code == 0 and result.stdout == ""
    assert "# converted" in out.read_text()


def test_directories_are_walked_recursively_in_order(fake_engine, cli, tmp_path):
    root = tmp_path / "src"
    for rel in ["b.py", "a.py", "z/c.py", "z/y/d.py", ".hidden/e.py", "__pycache__/f.py"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(SCRIPT)
    (root / "notes.txt").write_text(MARK)
    (root / "data.pyc").write_bytes(b"\x00\x01")
    result = cli("--check", root)
    assert result.exit_code == 1
    changed = [l.split(" ", 2)[2] for l in stderr_lines(result) if l.startswith("would change")]
    assert changed == [str(root / p) for p in ["a.py", "b.py", "z/c.py", "z/y/d.py"]]
    assert stderr_lines(result)[-1] == "4 files would be changed."


def test_many_files_in_parallel_keep_their_order(fake_engine, cli, tmp_path):
    root = tmp_path / "many"
    root.mkdir()
    for i in range(24):
        (root / f"m{i:02d}.py").write_text(SCRIPT if i % 3 else PLAIN)
    result = cli(root)
    headers = [l[6:] for l in result.stdout.splitlines() if l.startswith("--- a/")]
    assert headers == [str(root / f"m{i:02d}.py") for i in range(24) if i % 3]
    assert stderr_lines(result)[-1] == "16 files would be changed, 8 files would be left unchanged."


def test_a_file_given_twice_is_migrated_once(fake_engine, cli, script):
    result = cli("--check", script, script, script.parent)
    assert stderr_lines(result)[-1] == "1 file would be changed."


def test_empty_files_inside_a_directory_are_left_alone(fake_engine, cli, tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text(SCRIPT)
    out = tmp_path / "out"
    result = cli(pkg, "-o", out)
    assert result.exit_code == 0, result.stderr
    assert (out / "__init__.py").read_text() == ""
    assert stderr_lines(result)[-1] == "1 file changed, 1 file left unchanged."
    assert cli(pkg / "__init__.py").exit_code == 123  # named explicitly: an error


def test_a_named_file_reports_why_it_has_nothing_to_do(fake_engine, cli, tmp_path):
    path = tmp_path / "plain.py"
    path.write_text(PLAIN)
    expected = [
        f"{path}:1:0: TL002 no training loop found; file left unchanged",
        "1 file would be left unchanged.",
    ]
    assert stderr_lines(cli(path)) == expected
    assert stderr_lines(cli("-v", path)) == expected
    assert stderr_lines(cli("-q", path)) == []


def pid_engine(source, path="<string>", target="runtime"):
    import time

    from torchlift.migrator.result import Finding, MigrationResult

    time.sleep(0.05)  # long enough that one worker cannot take every file
    output = source + "# migrated\n"
    return MigrationResult(path, source, output, [Finding(path, 1, 0, "PID", str(os.getpid()))])


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two cores")
def test_several_files_are_spread_over_processes(monkeypatch, cli, tmp_path):
    import torchlift.migrator

    monkeypatch.setattr(torchlift.migrator, "migrate_source", pid_engine, raising=False)
    for i in range(12):
        (tmp_path / f"f{i:02d}.py").write_text(f"x = {i}\n")
    result = cli("--check", tmp_path)
    pids = {l.rsplit(" ", 1)[1] for l in stderr_lines(result) if ": PID " in l}
    assert str(os.getpid()) not in pids and len(pids) >= 2
