"""A model bound in both branches of an `if` decided only at run time (kuangliu's CIFAR
`--resume`) is refused TL106 with a reason that says plainly what differs: the bindings of each
branch, and where the test's value comes from."""

from __future__ import annotations

from torchlift.migrator import migrate_source

_RESUME = """\
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--resume", action="store_true")
args = parser.parse_args()
loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=4)
if args.resume:
    checkpoint = torch.load("ckpt.pt")
    net = checkpoint["net"]
else:
    net = nn.Linear(4, 2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        optimizer.step()
"""


def test_model_bound_per_branch_names_both_bindings_and_the_test_origin():
    result = migrate_source(_RESUME, "resume.py")
    assert not result.changed
    [finding] = [f for f in result.findings if f.code == "TL106"]
    assert finding.line == 11
    message = finding.message
    assert "`net = checkpoint[\"net\"]` or `net = nn.Linear(4, 2)`" in message, message
    assert "`args = parser.parse_args()`" in message, message
    assert "known only when the script runs" in message, message
