"""The migrator gives the same output and the same findings whatever PYTHONHASHSEED is.

Refusals name a line found through maps keyed by node ids (helpers.py's `inlined_at`): a key
left on a freed node's id is met again by whatever node reuses the address, so the line then
depends on memory layout, which the hash seed shifts (the bearpaw CIFAR script's TL185 named
the epoch loop or the helper's `if epoch in args.schedule:` depending on the seed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "benchmarks" / "corpus"

_RUN = """
import json, sys
from torchlift.migrator import migrate_source
path = sys.argv[1]
result = migrate_source(open(path, encoding="utf-8").read(), path)
print(json.dumps({"output": result.output, "findings": [str(f) for f in result.findings]}))
"""


def _migrated(path: Path, seed: str) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _RUN, str(path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    return json.loads(done.stdout)


def test_same_result_under_two_hash_seeds():
    path = CORPUS / "heldout38_cifar_bearpaw_state_lr_save_checkpoint.py"
    first, second = _migrated(path, "0"), _migrated(path, "3")
    assert first["findings"] == second["findings"]
    assert first["output"] == second["output"]
    # an inlined helper's statement refused (TL185): the helper's line, not the loop's
    found = [f for f in first["findings"] if " TL185 " in f]
    assert found and f"{path.name}:346:" in found[0], found
