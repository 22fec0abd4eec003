"""ModelCheckpoint and EarlyStopping under real 2-process DDP (gloo, CPU).

callbacks_ddp_script.py logs the checkpoint's metric on rank 0 only and the early-stopping metric
with different values per rank. Both ranks must finish (no collective left waiting), agree on the
best checkpoint and stop at the same epoch; only rank 0 writes files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("callbacks_ddp_script.py")
_LAUNCH_VARS = (
    "RANK LOCAL_RANK WORLD_SIZE NODE_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT".split()
)


@pytest.mark.slow
def test_rank_zero_only_metric_and_per_rank_stop_decisions(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in _LAUNCH_VARS}
    env.update(OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,  # a deadlocked collective would hang here instead of finishing in seconds
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rank0 = json.loads((tmp_path / "rank0.json").read_text())
    rank1 = json.loads((tmp_path / "rank1.json").read_text())
    # rank 1 never logged `rank0_metric` but took rank 0's decisions
    for key in ("best", "best_k", "score", "epoch", "stopped_epoch"):
        assert rank0[key] == rank1[key], key
    assert rank0["best_k"] == ["epoch=1-rank0_metric=0.5.ckpt", "epoch=3-rank0_metric=0.4.ckpt"]
    assert rank0["files"] == rank0["best_k"]
    # rank 1's metric stopped improving at epoch 1: patience 2 stops both ranks after epoch 3
    assert rank0["stopped_epoch"] == 3
