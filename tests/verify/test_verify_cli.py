"""`migrate --verify` for real: the console script, the real migrator, both runs, the verdict."""

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "fuzz"))
from script_variants import ScriptSpec, render_script  # noqa: E402

MIGRATE = str(Path(sys.executable).with_name("migrate"))


def migrate(*args, cwd):
    return subprocess.run(
        [MIGRATE, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize(
    "target", ["runtime", pytest.param("lightning", marks=pytest.mark.lightning)]
)
def test_migrate_verify_proves_a_converted_script_trains_identically(tmp_path, target):
    spec = ScriptSpec(validation=True, dropout=True, shuffle=True, running_loss=True, epochs=2)
    (tmp_path / "train.py").write_text(render_script(spec))
    result = migrate("--verify", "train.py", "--steps", "4", "--target", target, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "TL001" in result.stdout  # the conversion's findings come first
    assert "verdict: identical - all 4 losses match bit for bit" in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]  # nothing written here


def test_migrate_verify_of_a_file_without_training_loop_says_so(tmp_path):
    (tmp_path / "util.py").write_text("import torch\n\n\ndef double(x):\n    return 2 * x\n")
    result = migrate("--verify", "util.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "verdict: nothing to verify - migrate found no training loop to convert" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
