"""Bad inputs, usage errors, --report and --verify.

Every bad input gives exactly one line `migrate: FILE:LINE: cause; nothing written`, exit 123,
no traceback, and the other inputs are still processed.
"""

from __future__ import annotations

import json

import pytest
from conftest import MARK, stderr_lines

GOOD = "import torch\n" + MARK + "x = 1\n"


def check_one_line_error(result, path, line, *words):
    errors = [l for l in stderr_lines(result) if l.startswith("migrate: ")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith(f"migrate: {path}:{line}: "), errors[0]
    assert errors[0].endswith("; nothing written"), errors[0]
    for word in words:
        assert word in errors[0], errors[0]
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout


# Inputs the CLI itself rejects before the migrator sees them.
CLI_BAD = {
    "undecodable": (b"x = 1\ny = '\xff\xfe'\n", 2, "decode"),
    "empty": (b"", 1, "empty"),
    "blank": (b"\n   \n", 1, "empty"),
    "unknown_codec": (b"# -*- coding: klingon -*-\nx = 1\n", 1, "klingon"),
}

# Inputs the migrator rejects (its InputError), with a line and a cause.
ENGINE_BAD = {
    "syntax": (b"import torch\n\ndef f(:\n    pass\n", 3, "syntax error"),
    "python2": (b"import torch\nprint 'hello'\n", 2, "Python 2"),
}


@pytest.mark.parametrize("name", sorted(CLI_BAD))
def test_bad_file_is_reported_on_one_line_and_the_rest_still_written(
    name, fake_engine, cli, tmp_path
):
    data, line, word = CLI_BAD[name]
    bad = tmp_path / f"{name}.py"
    bad.write_bytes(data)
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    result = cli("-w", bad, good)
    assert result.exit_code == 123
    check_one_line_error(result, bad, line, word)
    assert bad.read_bytes() == data
    assert "# converted" in good.read_text()
    assert stderr_lines(result)[-1] == "1 file changed, 1 file failed to migrate."


@pytest.mark.parametrize("name", sorted(ENGINE_BAD))
def test_input_the_migrator_rejects(name, cli, tmp_path):
    data, line, word = ENGINE_BAD[name]
    bad = tmp_path / f"{name}.py"
    bad.write_bytes(data)
    plain = tmp_path / "plain.py"
    plain.write_text("import os\n")
    result = cli("-w", bad, plain)
    assert result.exit_code == 123
    check_one_line_error(result, bad, line, word)
    assert bad.read_bytes() == data
    assert stderr_lines(result)[-1] == "1 file left unchanged, 1 file failed to migrate."


def test_missing_path(fake_engine, cli, tmp_path):
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    result = cli("--check", tmp_path / "nope.py", good)
    assert result.exit_code == 123  # a failure outranks "would change"
    check_one_line_error(result, tmp_path / "nope.py", 1, "no such file")
    assert f"would change {good}" in result.stderr


def test_directory_without_python_files(fake_engine, cli, tmp_path):
    empty = tmp_path / "docs"
    empty.mkdir()
    (empty / "index.md").write_text("# docs\n")
    result = cli(empty)
    assert result.exit_code == 123
    check_one_line_error(result, empty, 1, "no Python files")


def test_unwritable_output_path(fake_engine, cli, tmp_path):
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a directory\n")
    out = blocker / "out.py"
    result = cli(good, "-o", out)
    assert result.exit_code == 123
    check_one_line_error(result, out, 1, "cannot write")
    assert blocker.read_text() == "a file, not a directory\n"


def test_migrator_crash_is_one_line_not_a_traceback(fake_engine, cli, tmp_path):
    bad = tmp_path / "boom.py"
    bad.write_text("BOOM = 1\n")
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    result = cli("-w", bad, good)
    assert result.exit_code == 123
    check_one_line_error(result, bad, 1, "internal error", "RuntimeError")
    assert "# converted" in good.read_text()


def test_output_that_does_not_compile_is_never_written(fake_engine, cli, tmp_path):
    bad = tmp_path / "badout.py"
    bad.write_text("BADOUT = 1\n")
    result = cli("-w", bad)
    assert result.exit_code == 123
    check_one_line_error(result, bad, 2, "does not compile")
    assert bad.read_text() == "BADOUT = 1\n"


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "no PATH given"),
        (["-w", "-o", "x.py", "a.py"], "exclusive"),
        (["--check", "-w", "a.py"], "--check"),
        (["-o", "out", "a.py", "b.py"], "single PATH"),
        (["--target", "keras", "a.py"], "keras"),
        (["--steps", "5", "a.py"], "--steps only applies with --verify"),
        (["--verify", "a.py", "-w"], "--verify cannot be combined"),
        (["--frobnicate", "a.py"], "No such option"),
    ],
)
def test_usage_errors_exit_2(args, message, cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    result = cli(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_report_json(fake_engine, cli, tmp_path):
    changed = tmp_path / "a.py"
    changed.write_text(GOOD)
    plain = tmp_path / "b.py"
    plain.write_text("import os\n")
    empty = tmp_path / "c.py"
    empty.write_text("")
    report = tmp_path / "report.json"
    result = cli("--check", "--target", "lightning", "--report", report, changed, plain, empty)
    assert result.exit_code == 123
    document = json.loads(report.read_text())
    assert document["version"] == 2 and document["target"] == "lightning"
    assert document["summary"] == {"changed": 1, "unchanged": 1, "failed": 1}
    by_path = {entry["path"]: entry for entry in document["files"]}
    assert by_path[str(changed)] == {
        "path": str(changed),
        "status": "changed",
        "error": None,
        "findings": [
            {
                "line": 2,
                "column": 0,
                "code": "TL001",
                "message": "converted the training loop",
                "severity": "info",
            }
        ],
        "changes": [
            {
                "code": "TL001",
                "source_lines": [2, 2],
                "output_lines": [2, 2],
                "message": "marker comment -> converted comment",
            }
        ],
    }
    assert by_path[str(plain)]["status"] == "unchanged"
    assert by_path[str(empty)]["status"] == "failed"
    assert by_path[str(empty)]["error"] == {"line": 1, "message": "empty file"}
    assert [e["path"] for e in document["files"]] == [str(changed), str(plain), str(empty)]


def test_report_to_an_unwritable_place(fake_engine, cli, tmp_path):
    plain = tmp_path / "b.py"
    plain.write_text("import os\n")
    (tmp_path / "f").write_text("")
    result = cli("--report", tmp_path / "f" / "r.json", plain)
    assert result.exit_code == 123
    assert "cannot write the report" in result.stderr


def test_verify_not_built_yet_is_a_clear_usage_error(cli, tmp_path, monkeypatch):
    import torchlift.verify

    def not_yet(*args, **kwargs):
        raise NotImplementedError("coming soon")

    monkeypatch.setattr(torchlift.verify, "run_verify", not_yet)
    script = tmp_path / "train.py"
    script.write_text("x = 1\n")
    result = cli("--verify", script)
    assert result.exit_code == 2
    assert stderr_lines(result) == [
        "migrate: --verify is not available in this build (coming soon)"
    ]


def test_verify_passes_options_and_script_args(cli, tmp_path, monkeypatch):
    import torchlift.verify

    calls = []

    def fake_verify(script, script_args, **options):
        calls.append((script, script_args, options))
        return 1

    monkeypatch.setattr(torchlift.verify, "run_verify", fake_verify)
    script = tmp_path / "train.py"
    script.write_text("x = 1\n")
    result = cli(
        "--verify",
        script,
        "--steps",
        "7",
        "--rtol",
        "1e-4",
        "--target",
        "lightning",
        "--timeout",
        "30",
        "--",
        "--lr",
        "0.1",
        "--epochs",
        "3",
    )
    assert result.exit_code == 1
    ((got_script, got_args, options),) = calls
    assert got_script == str(script) and got_args == ["--lr", "0.1", "--epochs", "3"]
    assert options["steps"] == 7 and options["rtol"] == 1e-4 and options["target"] == "lightning"
    assert options["timeout"] == 30.0 and options["device"] == "cpu"


def test_verify_of_a_missing_script_is_a_usage_error(cli, tmp_path):
    result = cli("--verify", tmp_path / "nope.py")
    assert result.exit_code == 2 and "does not exist" in result.stderr
