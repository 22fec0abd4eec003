"""`Trainer(sync_batchnorm=True)` does on the runtime what it does on Lightning 2.x: the layers
become SyncBatchNorm in a DDP strategy while fitting, also with one process (so DDP refuses
them on CPU, as it refuses the script's own `convert_sync_batchnorm` there), and are turned
back into plain batch norms when the fit ends; a one-device strategy and validate leave them
alone. Each run is a process of its own (DDP starts a process group)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("sync_batchnorm_script.py")
sys.path.insert(0, str(Path(__file__).parent / "distributed"))
from test_ddp_processes import clean_env  # noqa: E402


def _outcome(engine: str, strategy: str, fn: str) -> dict:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), engine, strategy, fn],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.lightning
@pytest.mark.parametrize(
    "strategy, fn, error",
    [
        ("ddp", "fit", "SyncBatchNorm layers only work with GPU modules"),
        ("ddp", "validate", None),
        ("auto", "fit", None),
    ],
)
def test_sync_batchnorm_as_lightning_applies_it(strategy, fn, error):
    pytest.importorskip("lightning.pytorch")
    ours = _outcome("ours", strategy, fn)
    assert ours == _outcome("lightning", strategy, fn)
    assert (ours["error"] or [None, None])[1] == error
    assert ours["norms"] == ["_BatchNormXd" if fn == "fit" and strategy == "ddp" else "BatchNorm1d"]
