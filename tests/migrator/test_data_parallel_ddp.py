"""Issue 10's acceptance for DataParallel scripts: the conversion becomes DDP over the GPUs
DataParallel used, and DDP with the loader's batch size divided by the device count trains like
the original with its global batch. Two CPU processes (gloo) stand in for two GPUs: the
converted Trainer's GPU count is replaced by 2, as a two-GPU machine would evaluate it.

Per step, the mean of the two ranks' losses (each the mean over its half of the batch) equals
the original's loss over the whole batch, up to float rounding (the sums run in another order).
Under DDP a training loader is dealt by `DistributedSampler(shuffle=True, seed=0)` whatever the
script's loader did (Lightning's rule, the runtime's too): the reference is the original drawing
its batches in that order, each epoch's permutation split into the ranks' halves.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from exit_abort import aborted_at_exit

from torchlift.migrator import migrate_source

ORIGINAL = """\
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--no-cuda", action="store_true", default=False)
args = parser.parse_args()
use_cuda = not args.no_cuda and torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")

torch.manual_seed(0)
x = torch.randn(64, 6)
y = x @ torch.randn(6, 1) + 0.1 * torch.randn(64, 1)
loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size)

model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.MSELoss()

for epoch in range(2):
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
"""

_LOADER = "loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size)\n"
assert _LOADER in ORIGINAL
# the original, its batches in the order the injected DistributedSampler deals them over two
# ranks: batch k of the two ranks together is positions [k*B, (k+1)*B) of the epoch's
# permutation (torch.randperm seeded with seed + epoch, seed 0 without seed_everything)
REFERENCE = ORIGINAL.replace(
    _LOADER,
    """\
class EpochPermutation(torch.utils.data.Sampler):
    def __init__(self, n):
        self.n, self.epoch = n, 0

    def __iter__(self):
        generator = torch.Generator()
        generator.manual_seed(self.epoch)
        self.epoch += 1
        return iter(torch.randperm(self.n, generator=generator).tolist())

    def __len__(self):
        return self.n


loader = DataLoader(
    TensorDataset(x, y), batch_size=args.batch_size, sampler=EpochPermutation(len(x))
)
""",
)

# records the value passed to every backward(), per process
PROBE = """\
import os
import torch

_backward = torch.Tensor.backward


def _recorded(self, *args, **kwargs):
    rank = os.environ.get("RANK", os.environ.get("LOCAL_RANK", "0"))
    with open(os.path.join(os.environ["LOSS_DIR"], f"rank{rank}.txt"), "a") as out:
        out.write(repr(self.item()) + "\\n")
    return _backward(self, *args, **kwargs)


torch.Tensor.backward = _recorded
"""


def _run(script: Path, losses: Path, batch_size: int) -> dict[str, list[float]]:
    losses.mkdir()
    probe = losses.parent / f"probe_{losses.name}"
    probe.mkdir()
    (probe / "sitecustomize.py").write_text(PROBE)
    root = Path(__file__).resolve().parents[2]
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE")},
        "PYTHONPATH": os.pathsep.join([str(probe), str(root)]),
        "LOSS_DIR": str(losses),
        "OMP_NUM_THREADS": "1",
        "CUDA_VISIBLE_DEVICES": "",
    }
    for _ in range(3):
        for written in losses.glob("rank*.txt"):  # the probe appends
            written.unlink()
        done = subprocess.run(
            [sys.executable, str(script), "--batch-size", str(batch_size)],
            env=env,
            cwd=script.parent,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if not aborted_at_exit(done.returncode, done.stderr):
            break
    assert done.returncode == 0, done.stderr[-3000:]
    return {
        path.stem: [float(line) for line in path.read_text().split()]
        for path in sorted(losses.glob("rank*.txt"))
    }


@pytest.mark.slow
def test_ddp_on_two_processes_trains_like_data_parallel_with_the_same_global_batch(tmp_path):
    result = migrate_source(ORIGINAL, "train.py")
    converted = result.output
    devices = "devices=torch.cuda.device_count() if use_cuda else 1"
    strategy = 'strategy="ddp" if use_cuda and torch.cuda.device_count() > 1 else "auto"'
    assert devices in converted and strategy in converted, converted
    assert any("divide the loader's batch_size" in f.message for f in result.findings)
    # a machine with two devices: two CPU processes under gloo
    two = converted.replace(devices, "devices=2").replace(strategy, 'strategy="ddp"')
    two = two.replace('accelerator="cuda" if use_cuda else "cpu"', 'accelerator="cpu"')
    assert "seed_everything" not in converted  # the sampler's seed is 0
    (tmp_path / "original.py").write_text(REFERENCE)
    (tmp_path / "converted.py").write_text(two)

    original = _run(tmp_path / "original.py", tmp_path / "original", batch_size=16)["rank0"]
    ranks = _run(tmp_path / "converted.py", tmp_path / "converted", batch_size=8)
    assert sorted(ranks) == ["rank0", "rank1"], ranks
    assert len(original) == 8 and len(ranks["rank0"]) == len(ranks["rank1"]) == 8
    for step, (whole, a, b) in enumerate(zip(original, ranks["rank0"], ranks["rank1"])):
        assert (a + b) / 2 == pytest.approx(whole, rel=1e-5, abs=1e-7), textwrap.dedent(
            f"step {step}: original {whole!r}, ranks {a!r} {b!r}"
        )
