"""Hyper-parameters a conversion saves (`self.save_hyperparameters(ignore=[...])`, issue 10) are
in the checkpoint's `hyper_parameters`, which loads with `torch.load(weights_only=True)`, and
`load_from_checkpoint` rebuilds the module from them (the ignored modules passed again), on the
runtime and on real Lightning.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from torchlift.migrator import migrate_source

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"

# fixture -> (the generated class, its ignored arguments as code, the saved hyper-parameters)
SAVED = {
    "dry_run_limit_batches": ("LitModel", "model=model, criterion=criterion", ["config"]),
    "tutorial_epoch_step_counts": (
        "LitNeuralNet",
        "model=model, criterion=criterion",
        ["learning_rate"],
    ),
}

_CHECK = """
trainer.save_checkpoint("final.ckpt")
import torch as _torch
_saved = _torch.load("final.ckpt", weights_only=True)["hyper_parameters"]
print("SAVED", sorted(_saved))
_again = {cls}.load_from_checkpoint("final.ckpt", {ignored})
assert dict(_again.hparams) == dict(lit_model.hparams), (_again.hparams, lit_model.hparams)
print("RELOADED", sorted(_again.hparams))
"""


@pytest.mark.parametrize("target", ["runtime", "lightning"])
@pytest.mark.parametrize("case", sorted(SAVED))
def test_saved_hyperparameters_load_with_weights_only(case, target, tmp_path, python_runs):
    cls, ignored, names = SAVED[case]
    source = (FIXTURES / case / "input.py").read_text()
    result = migrate_source(source, path=f"{case}.py", target=target)
    assert result.changed, [str(f) for f in result.findings]
    assert "self.save_hyperparameters(ignore=[" in result.output
    (tmp_path / "train.py").write_text(result.output + _CHECK.format(cls=cls, ignored=ignored))
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    # forked as the fixture runs are (tests/fixture_runs.py)
    run = python_runs.run_python(tmp_path / "train.py", env, lightning=target == "lightning")
    assert run.returncode == 0, run.stderr[-3000:]
    assert f"SAVED {names}" in run.stdout
    assert f"RELOADED {names}" in run.stdout
