"""File walks and in-place writes that behave like black's: they stay in the tree, never block
on special files, and never change what a file *is* (links, owner, permissions)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest
from conftest import BIN, CONVERTED, MARK, stderr_lines

SCRIPT = "import torch\n" + MARK + "x = 1\n"
CONVERTED_SCRIPT = SCRIPT.replace(MARK, CONVERTED.rstrip() + " for runtime\n")


def migrate_process(*args, timeout=60):
    """The real `migrate` in a subprocess, bounded: a FIFO that blocks must fail the test,
    not hang the suite."""
    exe = BIN / "migrate"
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "torchlift", "migrate"]
    return subprocess.run(
        command + [str(a) for a in args],
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    (root / "train.py").write_text(SCRIPT)
    return root


def test_a_fifo_in_the_tree_is_skipped(tree):
    os.mkfifo(tree / "pipe.py")
    result = migrate_process("--check", tree)
    assert result.returncode == 0, result.stderr
    assert "pipe.py" not in result.stderr


def test_a_fifo_given_explicitly_is_refused(tree):
    fifo = tree / "pipe.py"
    os.mkfifo(fifo)
    result = migrate_process("--check", fifo, tree / "train.py")
    assert result.returncode == 123
    assert f"migrate: {fifo}:1: not a regular file; nothing written" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_symlink_leaving_the_tree_is_not_rewritten(fake_engine, cli, tmp_path, tree):
    outside = tmp_path / "elsewhere.py"
    outside.write_text(SCRIPT)
    (tree / "link.py").symlink_to(outside)
    result = cli("-w", tree)
    assert result.exit_code == 0, result.stderr
    assert outside.read_text() == SCRIPT
    assert (tree / "train.py").read_text() == CONVERTED_SCRIPT


def test_virtualenvs_are_not_walked_whatever_their_name(fake_engine, cli, tree):
    env = tree / "env"
    package = env / "lib" / "python3.12" / "site-packages" / "pkg"
    package.mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (package / "mod.py").write_text(SCRIPT)
    bare = tree / "vendor" / "site-packages"  # a site-packages folder without pyvenv.cfg
    bare.mkdir(parents=True)
    (bare / "lib.py").write_text(SCRIPT)
    result = cli("-w", tree)
    assert result.exit_code == 0, result.stderr
    assert (package / "mod.py").read_text() == SCRIPT
    assert (bare / "lib.py").read_text() == SCRIPT
    assert stderr_lines(result)[-1] == "1 file changed."


def test_output_mirror_keeps_the_real_file_behind_a_symlink(fake_engine, cli, tmp_path, tree):
    # "a_link.py" sorts before "train.py", the file it points to: the real file is mirrored.
    (tree / "a_link.py").symlink_to(tree / "train.py")
    out = tmp_path / "out"
    result = cli(tree, "-o", out)
    assert result.exit_code == 0, result.stderr
    assert (out / "train.py").read_text() == CONVERTED_SCRIPT


def test_write_keeps_hard_links(fake_engine, cli, tmp_path, tree):
    other = tmp_path / "hardlink.py"
    os.link(tree / "train.py", other)
    result = cli("-w", tree / "train.py")
    assert result.exit_code == 0, result.stderr
    assert other.read_text() == CONVERTED_SCRIPT
    assert os.stat(other).st_ino == os.stat(tree / "train.py").st_ino


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_write_keeps_the_owner(fake_engine, cli, tree):
    script = tree / "train.py"
    os.chown(script, 12345, 23456)
    result = cli("-w", script)
    assert result.exit_code == 0, result.stderr
    assert script.read_text() == CONVERTED_SCRIPT
    info = os.stat(script)
    assert (info.st_uid, info.st_gid) == (12345, 23456)


def test_write_refuses_a_read_only_file(fake_engine, cli, tree):
    script = tree / "train.py"
    os.chmod(script, 0o444)
    result = cli("-w", script)
    assert result.exit_code == 123
    message = f"migrate: {script}:1: cannot write (read-only file); nothing written"
    assert message in stderr_lines(result)
    assert script.read_text() == SCRIPT
    assert stat.S_IMODE(os.stat(script).st_mode) == 0o444
