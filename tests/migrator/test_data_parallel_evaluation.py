"""A DataParallel script's evaluation under DDP: every process evaluates the whole validation
loader (patterns/whole_eval_loaders.py) and what the script prints and saves is written once
(patterns/rank_zero_effects.py). Two CPU processes (gloo) stand in for two GPUs, as in
test_data_parallel_ddp.py, on the runtime and on real Lightning.

The script trains full-batch (the converted one on half the batch per process, the global
batch kept), so both train alike whatever order each process gets its share in (Lightning's
training sampler shuffles); the validation set (101 samples) does not split evenly, so a
sharded pass would show other counts. The printed lines must equal the one-process original's,
each printed once, and the checkpoint must hold the same accuracy, epoch and weights (up to the
rounding of averaging two half-batch gradients).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from exit_abort import aborted_at_exit

from torchlift.migrator import migrate_source

ORIGINAL = """\
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, default=64)
args = parser.parse_args()
use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")

torch.manual_seed(0)
x_train = torch.randn(64, 6)
y_train = (x_train[:, 0] + 0.5 * x_train[:, 1] > 0).long()
x_val = torch.randn(101, 6)
y_val = (x_val[:, 0] + 0.5 * x_val[:, 1] > 0).long()
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=args.batch_size)
val_set = TensorDataset(x_val, y_val)
val_loader = DataLoader(val_set, batch_size=16, shuffle=False)

model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
criterion = nn.CrossEntropyLoss()

best_acc = 0.0
for epoch in range(4):
    model.train()
    for inputs, targets in train_loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
    model.eval()
    correct = 0
    total = 0
    with torch.no_grad():
        for inputs, targets in val_loader:
            inputs, targets = inputs.to(device), targets.to(device)
            correct += (model(inputs).argmax(1) == targets).sum().item()
            total += targets.size(0)
    acc = 100.0 * correct / total
    print(f"epoch {epoch} val acc {acc:.2f} ({correct}/{total})")
    if acc > best_acc:
        print("Saving..")
        torch.save({"model": model.state_dict(), "acc": acc, "epoch": epoch}, "best.pth")
        best_acc = acc

print(f"best acc {best_acc:.2f}")
"""

_PRINTED = re.compile(r"epoch \d+ val acc [\d.]+ \(\d+/\d+\)|Saving\.\.|best acc [\d.]+")


def _run(script: Path, batch_size: int) -> tuple[list[str], dict]:
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE")},
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "OMP_NUM_THREADS": "1",
        "CUDA_VISIBLE_DEVICES": "",
    }
    for _ in range(3):
        (script.parent / "best.pth").unlink(missing_ok=True)
        done = subprocess.run(
            [sys.executable, str(script), "--batch-size", str(batch_size)],
            env=env,
            cwd=script.parent,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if not aborted_at_exit(done.returncode, done.stderr):
            break
    assert done.returncode == 0, done.stderr[-3000:]
    return _PRINTED.findall(done.stdout), torch.load(script.parent / "best.pth")


def _two_processes(converted: str) -> str:
    """The converted script as a machine with two GPUs runs it, on two CPU processes."""
    devices = "devices=torch.cuda.device_count() if use_cuda else 1"
    strategy = 'strategy="ddp" if use_cuda and torch.cuda.device_count() > 1 else "auto"'
    accelerator = 'accelerator="cuda" if use_cuda else "cpu"'
    for code in (devices, strategy, accelerator):
        assert code in converted, converted
    two = converted.replace(devices, "devices=2").replace(strategy, 'strategy="ddp"')
    return two.replace(accelerator, 'accelerator="cpu"')


@pytest.mark.slow
@pytest.mark.parametrize("target", ["runtime", "lightning"])
def test_two_processes_evaluate_and_save_like_the_one_data_parallel_process(tmp_path, target):
    if target == "lightning":
        pytest.importorskip("lightning")
    converted = migrate_source(ORIGINAL, "train.py", target=target).output
    assert "val_set, num_replicas=1, rank=0, shuffle=False" in " ".join(converted.split())
    assert "if self.trainer.is_global_zero:" in converted
    (tmp_path / "original").mkdir()
    (tmp_path / "converted").mkdir()
    (tmp_path / "original" / "train.py").write_text(ORIGINAL)
    (tmp_path / "converted" / "train.py").write_text(_two_processes(converted))

    lines, saved = _run(tmp_path / "original" / "train.py", batch_size=64)
    two_lines, two_saved = _run(tmp_path / "converted" / "train.py", batch_size=32)

    assert len(lines) >= 7 and lines.count("Saving..") >= 2, lines  # the feature acts
    assert "(101/101)" not in " ".join(lines)  # an accuracy below 100% can still improve
    assert two_lines == lines  # the whole data's values, each line once
    assert (two_saved["acc"], two_saved["epoch"]) == (saved["acc"], saved["epoch"])
    assert two_saved["model"].keys() == saved["model"].keys()
    for key, tensor in saved["model"].items():
        torch.testing.assert_close(two_saved["model"][key], tensor, rtol=1e-5, atol=1e-6)
