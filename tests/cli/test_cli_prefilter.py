"""The cheap text check runs before any parse (a huge module with no training loop costs
milliseconds, not a minute and gigabytes), and it reads every line ending Python accepts.
(Unit tests of torchlift/migrator/prefilter.py, kept here with the CLI behaviour they protect.)"""

from __future__ import annotations

from torchlift.migrator import engine
from torchlift.migrator.prefilter import SYNTAX_CHECK_CHARS, may_contain_training_loop

LOOP = "import torch\nfor epoch in range(3):\n    for x in loader:\n        loss.backward()\n"


def test_a_large_file_without_a_loop_is_never_parsed(cli, tmp_path, monkeypatch):
    def no_parse(text, path):
        raise AssertionError("parsed a file the text check rules out")

    monkeypatch.setattr(engine, "parse_text", no_parse)
    big = tmp_path / "constants.py"
    line = "VALUE = {'name': 'item', 'weights': [0.5, 1.5, 2.5]}\n"
    big.write_text(line * (SYNTAX_CHECK_CHARS // len(line) + 10))
    result = cli("--check", big)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.strip().splitlines()[-1] == "1 file would be left unchanged."
    assert "TL002 no training loop found (nothing calls `.backward()`)" in result.stderr


def test_a_small_file_without_a_loop_still_reports_a_syntax_error(cli, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import os\n\ndef f(:\n    pass\n")
    result = cli("--check", broken)
    assert result.exit_code == 123
    assert f"migrate: {broken}:3: syntax error" in result.stderr


def test_every_line_ending_is_a_line_ending():
    for newline in ("\n", "\r\n", "\r"):
        assert may_contain_training_loop(LOOP.replace("\n", newline)), repr(newline)
    assert not may_contain_training_loop("x = 'for y in z: loss.backward()'\r")
    assert not may_contain_training_loop("import torch\rloss.backward()\r")
