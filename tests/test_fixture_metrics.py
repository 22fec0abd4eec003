"""What an evaluation pass computed is logged under the script's own name (issue 10, item 5):
a `ModelCheckpoint(monitor=<that name>)` added to a converted fixture finds its metric and
keeps a best checkpoint, on the runtime and on real Lightning.

The checkpoint callback is added to the Trainer call of the converted script as a user would
(`callbacks=[L.callbacks.ModelCheckpoint(monitor=...)]`); the script then prints the best
score it kept, which must be the value the script printed for its best epoch.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from torchlift.migrator import migrate_source

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"

# fixture -> (the logged validation metric, mode, the printed value's pattern)
MONITORED = {
    "dropout_eval_without_eval_mode": ("val_loss", "min", r"val_loss ([0-9.]+)"),
    "validation_writes_predictions_file": ("val_acc", "max", r"val_acc=([0-9.]+)"),
}


@pytest.mark.parametrize("target", ["runtime", "lightning"])
@pytest.mark.parametrize("case", sorted(MONITORED))
def test_model_checkpoint_finds_the_logged_validation_metric(case, target, tmp_path):
    metric, mode, printed = MONITORED[case]
    source = (FIXTURES / case / "input.py").read_text()
    result = migrate_source(source, path=f"{case}.py", target=target)
    assert result.changed, [str(f) for f in result.findings]
    callback = (
        f'callbacks=[L.callbacks.ModelCheckpoint(monitor="{metric}", mode="{mode}", '
        'dirpath="best")], '
    )
    script = result.output.replace("L.Trainer(", "L.Trainer(" + callback, 1)
    assert callback in script
    script += "\nprint('BEST', trainer.checkpoint_callback.best_model_score.item())\n"
    (tmp_path / "train.py").write_text(script)
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    run = subprocess.run(
        [sys.executable, "train.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    values = [float(v) for v in re.findall(printed, run.stdout)]
    best = float(re.search(r"BEST ([-0-9.e]+)", run.stdout).group(1))
    expected = min(values) if mode == "min" else max(values)
    assert values and best == pytest.approx(expected, abs=1e-3)
    assert list((tmp_path / "best").glob("*.ckpt")), "no best checkpoint written"
