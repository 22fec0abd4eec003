"""A learning rate set by hand and converted (patterns/lr_decay.py) resumes as it ran: the
converted fixture fits uninterrupted, and again stopped after 1 and after 2 epochs, saved with
`trainer.save_checkpoint` and resumed in a fresh module with `fit(ckpt_path=...)`; every
optimizer step of the resumed runs has the learning rate of the uninterrupted run, on the
runtime and on real Lightning (resume/lr_resume_runner.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from torchlift.migrator import migrate_source
from torchlift.migrator.engine import TARGET_MODULES

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("resume") / "lr_resume_runner.py"
CASES = (
    "imagenet_adjust_learning_rate",  # LambdaLR per epoch
    "milestone_lr_drops",  # MultiStepLR
    "epoch_lr_decay_variable",  # ExponentialLR
    "warmup_lr_per_step",  # LambdaLR per step
    "tutorial_update_lr_divide",  # kept in the hook, its carried rate checkpointed
)


@pytest.mark.slow
@pytest.mark.lightning
@pytest.mark.parametrize("target", ("runtime", "lightning"))
@pytest.mark.parametrize("case", CASES)
def test_resumed_run_uses_the_same_learning_rates(case, target, tmp_path, python_runs):
    source = (ROOT / "fixtures" / case / "input.py").read_text()
    result = migrate_source(source, f"{case}.py", target=target)
    assert result.changed, "\n".join(map(str, result.findings))
    script = tmp_path / "train.py"
    script.write_text(result.output)
    out = tmp_path / "lrs.json"
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore", CUDA_VISIBLE_DEVICES="")
    # forked as the fixture runs are (tests/fixture_runs.py)
    proc = python_runs.run_python(
        RUNNER,
        env,
        lightning=target == "lightning",
        args=(script, TARGET_MODULES[target], out),
        cwd=tmp_path,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    runs = json.loads(out.read_text())
    full = runs.pop("full")
    assert len({str(lrs) for _, lrs in full}) > 1, "the schedule never changed the rate"
    for name, lrs in runs.items():
        assert (
            lrs == full
        ), f"{name}: resumed learning rates differ\nfull:    {full}\nresumed: {lrs}"
