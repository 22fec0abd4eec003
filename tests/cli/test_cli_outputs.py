"""Where `-o` and `--report` write: `-` is stdout, a trailing slash names a directory, an
output folder inside the input tree is not walked again, a missing report folder is a usage
error (nothing is created silently)."""

from __future__ import annotations

from conftest import CONVERTED, MARK, stderr_lines

SCRIPT = "import torch\n" + MARK + "x = 1\n"
CONVERTED_SCRIPT = SCRIPT.replace(MARK, CONVERTED.rstrip() + " for runtime\n")


def test_output_dash_prints_to_stdout_and_writes_no_file(fake_engine, cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(SCRIPT)
    result = cli("train.py", "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == CONVERTED_SCRIPT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


def test_output_dash_with_a_directory_is_a_usage_error(fake_engine, cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(SCRIPT)
    result = cli("src", "-o", "-")
    assert result.exit_code == 2
    assert "-o - prints one converted file" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_output_with_a_trailing_slash_is_a_directory(fake_engine, cli, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    result = cli(script, "-o", f"{tmp_path / 'newdir'}/")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "newdir" / "train.py").read_text() == CONVERTED_SCRIPT


def test_output_inside_the_input_tree_does_not_nest_deeper(fake_engine, cli, tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    out = tmp_path / "converted"
    for _ in range(3):
        result = cli(tmp_path, "-o", out)
        assert result.exit_code == 0, result.stderr
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.py"))
    assert written == ["converted/train.py", "train.py"]


def test_report_into_a_missing_folder_is_a_usage_error(fake_engine, cli, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    report = tmp_path / "a" / "b" / "r.json"
    result = cli("-w", "--report", report, script)
    assert result.exit_code == 2
    assert f"--report {report}: no such directory" in result.stderr
    assert not (tmp_path / "a").exists()
    assert script.read_text() == SCRIPT  # a usage error runs nothing


def test_verify_usage_errors_go_to_stderr(cli, tmp_path):
    script = tmp_path / "train.py"
    script.write_text("x = 1\n")
    result = cli("--verify", script, "--device", "tpu")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert stderr_lines(result) == [
        "migrate --verify: --device must be cpu, cuda or cuda:N, got 'tpu'"
    ]
