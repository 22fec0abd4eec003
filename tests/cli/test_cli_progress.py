"""A directory run shows a progress bar on a terminal, and nothing of it on a pipe."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

import pytest


def _tree(tmp_path):
    for i in range(6):
        (tmp_path / f"m{i}.py").write_text(f"x = {i}\n")
    return tmp_path


def _run(args, stderr_tty: bool):
    command = [sys.executable, "-m", "torchlift", "migrate", *map(str, args)]
    env = {**os.environ, "COLUMNS": "100"}
    if not stderr_tty:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
        return done.returncode, done.stderr
    controller, terminal = pty.openpty()
    # a real terminal has a size; a new pseudo-terminal is 0x0, where tqdm draws nothing
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        done = subprocess.run(
            command, stdout=subprocess.PIPE, stderr=terminal, timeout=120, env=env
        )
        os.close(terminal)
        terminal = None
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal side is closed: all was read
                break
            if not chunk:
                break
            chunks.append(chunk)
        return done.returncode, b"".join(chunks).decode("utf-8", "replace")
    finally:
        if terminal is not None:
            os.close(terminal)
        os.close(controller)


@pytest.mark.skipif(not hasattr(pty, "openpty"), reason="needs a pseudo-terminal")
def test_progress_bar_on_a_terminal_only(tmp_path):
    tree = _tree(tmp_path)
    code, on_terminal = _run([tree], stderr_tty=True)
    assert code == 0
    assert "0/6 [" in on_terminal and "file/s" in on_terminal  # drawn, then cleared
    code, on_pipe = _run([tree], stderr_tty=False)
    assert code == 0 and "/6 [" not in on_pipe
    assert on_pipe.strip().endswith("6 files would be left unchanged.")


def test_quiet_shows_no_bar_even_on_a_terminal(tmp_path):
    code, on_terminal = _run(["-q", _tree(tmp_path)], stderr_tty=True)
    assert code == 0 and "/6 [" not in on_terminal
