"""Bad input never raises: it becomes MigrationResult.error with the right line."""

from pathlib import Path

import pytest

from torchlift.migrator import migrate_source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

BAD = [
    ("x = (\n", 1, "syntax error"),
    ("import torch\n\ndef f(:\n    pass\n", 3, "syntax error"),
    ("", 1, "empty file"),
    ("\n  \n", 1, "empty file"),
    ("import os\nprint 'hello'\n", 2, "Python 2"),
    ("try:\n    pass\nexcept ValueError, e:\n    pass\n", 3, "Python 2"),
    ("x = 1\ny = 2\x00\n", 2, "null byte"),
    (b"x = 1\n# caf\xe9\n", 2, "cannot decode"),
    (b"# -*- coding: nonexistent -*-\nx = 1\n", 1, "cannot decode"),
]


@pytest.mark.parametrize("source, line, cause", BAD, ids=[b[2] + str(i) for i, b in enumerate(BAD)])
def test_bad_input_is_reported_with_its_line(source, line, cause):
    result = migrate_source(source, "bad.py")
    assert result.error is not None
    assert result.error.line == line
    assert cause in result.error.cause
    assert result.output == result.source
    assert str(result.error).startswith(f"bad.py:{line}: ")


def test_bytes_with_a_coding_cookie_are_decoded():
    source = "# -*- coding: latin-1 -*-\nname = 'café'\n".encode("latin-1")
    result = migrate_source(source, "ok.py")
    assert result.error is None and not result.changed
    assert "café" in result.output


def test_utf8_bom_is_accepted():
    result = migrate_source(b"\xef\xbb\xbfx = 1\n", "bom.py")
    assert result.error is None and result.output == "x = 1\n"


def test_text_read_with_its_bom_converts_and_keeps_it():
    # open(path, encoding="utf-8").read() keeps the BOM: it was a "Python 2 (backtick)" error
    text = (FIXTURES / "seed_simple_model_validation" / "input.py").read_text(encoding="utf-8")
    expected = migrate_source(text, "train.py")
    result = migrate_source("\ufeff" + text, "train.py")
    assert result.error is None and result.changed
    assert result.source == "\ufeff" + text
    assert result.output == "\ufeff" + expected.output


def test_unknown_target_is_a_usage_error():
    with pytest.raises(ValueError, match="runtime"):
        migrate_source("import torch\nx.backward()\nfor a in b: pass\n", target="tensorflow")


@pytest.mark.parametrize(
    "source",
    [
        "import torch\n",
        "async def f():\n    await g()\n",
        "for x in y:\n    x.backward()\n",  # backward but no epoch loop / optimizer
        "while True:\n    loss.backward()\n    break\n",
        "def f(loader):\n    for x in loader:\n        f(x).backward()\n",
        "class A:\n    def backward(self): pass\nfor i in range(3):\n    A().backward()\n",
    ],
)
def test_odd_but_valid_input_never_raises_and_is_unchanged(source):
    result = migrate_source(source, "odd.py")
    assert result.error is None
    assert result.output == source


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_cr_and_crlf_files_convert_like_lf_files(newline):
    """Line numbers count a lone CR as CPython does: a CR-only file is found, converted and
    ends with its line break, exactly as the LF version (its line endings kept)."""
    from pathlib import Path

    case = Path(__file__).resolve().parents[2] / "fixtures/tutorial_quickstart_module_level"
    text = (case / "input.py").read_text()
    expected = migrate_source(text, "train.py")
    converted = migrate_source(text.replace("\n", newline), "train.py")
    assert expected.changed and converted.changed
    assert converted.output == expected.output.replace("\n", newline)
    assert [(f.code, f.line) for f in converted.findings] == [
        (f.code, f.line) for f in expected.findings
    ]
