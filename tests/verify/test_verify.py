"""`run_verify` end to end, with the conversion replaced by hand-written "converted" code.

Each case pairs an original script with the code a (possibly wrong) migration produced, so
every verdict — identical, within rtol, diverged, a failing run, no backward, a download, a
timeout — is exercised on real subprocess runs without depending on what the migrator
converts today. Both scripts are plain torch so that each case costs one torch import.
"""

import io
import re
import textwrap

import pytest

import torchlift.verify as verify
from torchlift.migrator.result import Finding, MigrationResult

TRAIN = """
import sys
import torch
torch.manual_seed(0)
EPOCHS = int(sys.argv[1]) if len(sys.argv) > 1 else 2
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Dropout(0.1), torch.nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
data = torch.utils.data.TensorDataset(torch.randn(12, 4), torch.randn(12, 1))
loader = torch.utils.data.DataLoader(data, batch_size=4, shuffle=True)
for epoch in range(EPOCHS):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y) * SCALE
        loss.backward()
        optimizer.step()
AFTER
"""


def train(lr="0.1", scale="1", after=""):
    return textwrap.dedent(TRAIN).replace("LR", lr).replace("SCALE", scale).replace("AFTER", after)


def verify_pair(tmp_path, monkeypatch, original, converted, *args, findings=(), **options):
    """Run verify on `original`, pretending the migrator produced `converted`."""
    script = tmp_path / "train.py"
    script.write_text(original)

    def fake_convert(text, path, target):
        assert text == original and target == options.get("target", "runtime")
        return MigrationResult(path, text, converted, list(findings))

    monkeypatch.setattr(verify, "convert", fake_convert)
    out = io.StringIO()
    code = verify.run_verify(str(script), list(args), out=out, **options)
    return code, out.getvalue()


def table_rows(output):
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("step"))
    rows = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


def test_same_training_is_identical_and_reads_local_files_without_writing_next_to_them(
    tmp_path, monkeypatch
):
    # Relative data paths and sibling imports resolve as in the script's folder; files the
    # runs create stay in the temporary copies.
    (tmp_path / "helpers.py").write_text("LR = 0.1\n")
    (tmp_path / "epochs.txt").write_text("2\n")
    original = (
        train(lr="helpers.LR")
        .replace("import sys", "import sys\nimport helpers\nopen('written.txt', 'w').write('x')")
        .replace("else 2", "else int(open('epochs.txt').read())")
    )
    converted = original.replace(
        "for x, y in loader:", "for batch in loader:\n        x, y = batch"
    )
    code, out = verify_pair(tmp_path, monkeypatch, original, converted)
    assert code == 0, out
    assert "verdict: identical - all 6 losses match bit for bit" in out
    assert "final parameters: 4 tensors, 49 values, identical" in out
    rows = table_rows(out)
    assert [row[0] for row in rows] == [str(i) for i in range(1, 7)]
    assert all(row[1] == row[2] and row[3] == "0" for row in rows)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["epochs.txt", "helpers.py", "train.py"]


def test_tiny_differences_are_equal_within_rtol(tmp_path, monkeypatch):
    converted = train(scale="(1 + 1e-7)")
    code, out = verify_pair(tmp_path, monkeypatch, train(), converted, steps=3)
    assert code == 0, out
    match = re.search(
        r"verdict: equal within rtol 1e-05 - 3 losses, max relative difference (\S+);", out
    )
    assert match and 0 < float(match.group(1)) < 1e-5, out


def test_a_different_learning_rate_diverges_at_step_two(tmp_path, monkeypatch):
    code, out = verify_pair(tmp_path, monkeypatch, train(), train(lr="0.2"))
    assert code == 1
    assert "verdict: diverged at step 2 - original" in out
    rows = table_rows(out)
    assert rows[0][3] == "0" and rows[1][-1] == "<-"


def test_same_losses_but_different_final_parameters_diverge(tmp_path, monkeypatch):
    after = "with torch.no_grad():\n    model[0].weight.add_(1.0)\n"
    code, out = verify_pair(tmp_path, monkeypatch, train(), train(after=after))
    assert code == 1
    assert "verdict: diverged - all 6 losses match but final parameters differ (tensor" in out


def test_steps_and_script_arguments_after_the_double_dash(tmp_path, monkeypatch):
    # `5` epochs of 3 batches is 15 steps; --steps 4 stops both runs after 4.
    converted = train() + "# converted\n"
    code, out = verify_pair(tmp_path, monkeypatch, train(), converted, "5", steps=4)
    assert code == 0, out
    assert len(table_rows(out)) == 4


def test_converted_script_that_crashes_reports_its_error(tmp_path, monkeypatch):
    converted = train().replace(
        "loss.backward()", "loss.backward()\n        raise RuntimeError('boom')"
    )
    code, out = verify_pair(tmp_path, monkeypatch, train(), converted)
    assert code == 1
    assert "verdict: the converted script failed (exit code 1) after 1 training steps: " in out
    assert "RuntimeError: boom" in out


def test_original_that_crashes_is_reported_before_comparing(tmp_path, monkeypatch):
    original = "import sys\nsys.exit('cannot find config.yaml')\n"
    code, out = verify_pair(tmp_path, monkeypatch, original, train())
    assert code == 1
    assert "verdict: the original script failed (exit code 1) after 0 training steps" in out
    assert "cannot find config.yaml" in out


def test_script_that_downloads_gets_offline_instructions(tmp_path, monkeypatch):
    # What urlopen raises without network (raised directly: CI may or may not have DNS).
    original = textwrap.dedent("""
        import urllib.error
        def download(url):
            raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")
        download("http://data.example.invalid/train.gz")
        """)
    code, out = verify_pair(tmp_path, monkeypatch, original, original + "\n")
    assert code == 1
    assert "verdict: the original script failed while downloading (urllib.error.URLError" in out
    assert "never substitutes data" in out and "python train.py" in out


def test_script_that_never_calls_backward(tmp_path, monkeypatch):
    original = "import torch\nprint(torch.zeros(2).sum())\n"
    code, out = verify_pair(tmp_path, monkeypatch, original, original + "\n")
    assert code == 1
    assert "ran to the end without calling backward()" in out


def test_timeout_is_reported(tmp_path, monkeypatch):
    original = "import time\ntime.sleep(30)\n"
    code, out = verify_pair(tmp_path, monkeypatch, original, original + "\n", timeout=1.5)
    assert code == 1
    assert (
        "verdict: the original script timed out - it recorded 0 of 20 training steps in 1.5 s"
        in out
    )


def test_unchanged_file_has_nothing_to_verify_and_says_why(tmp_path, monkeypatch):
    finding = Finding("train.py", 7, 0, "TL201", "loop left unconverted: two optimizers", "warning")
    original = "import torch\n"
    code, out = verify_pair(tmp_path, monkeypatch, original, original, findings=[finding])
    assert code == 1
    assert "verdict: nothing to verify - migrate leaves the script unchanged:" in out
    assert "train.py:7:0: TL201 loop left unconverted: two optimizers" in out


def test_bad_options_are_one_line_usage_errors(tmp_path):
    out = io.StringIO()
    assert verify.run_verify(str(tmp_path / "missing.py"), out=out) == 2
    assert (
        out.getvalue()
        == f"migrate --verify: {tmp_path / 'missing.py'}: no such file (expected the training script to verify)\n"
    )
    script = tmp_path / "train.py"
    script.write_text("x = 1\n")
    for options, message in [
        ({"steps": 0}, "--steps must be a positive integer"),
        ({"device": "tpu"}, "--device must be cpu, cuda or cuda:N"),
        ({"target": "keras"}, "--target must be one of runtime, lightning, pytorch_lightning"),
        ({"launch": "mpirun -np 2"}, "--launch: unknown launcher 'mpirun' (expected torchrun)"),
    ]:
        out = io.StringIO()
        assert verify.run_verify(str(script), out=out, **options) == 2
        assert message in out.getvalue()


@pytest.mark.parametrize("source", [b"def broken(:\n", b"\xff\xfe\x00bad"])
def test_unparsable_script_is_an_input_error(tmp_path, source, monkeypatch):
    script = tmp_path / "train.py"
    script.write_bytes(source)
    out = io.StringIO()
    code = verify.run_verify(str(script), out=out)
    assert code == 123
    # an input error, said as such: an internal error (TL900) would be a bug, not a pass
    assert "nothing to verify" in out.getvalue()
    assert "internal error" not in out.getvalue() and "TL900" not in out.getvalue()
    assert "Traceback" not in out.getvalue()
