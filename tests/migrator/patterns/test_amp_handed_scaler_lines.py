"""A scaler used before the loop that the Trainer cannot train with is refused at the statement
using it: inside the script's helper (a module function, a trainer class's method) when the
code before the loop calls one, not at the call."""

from __future__ import annotations

import textwrap

from torchlift.migrator import migrate_source

_HELPER = '''
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Linear(4, 2).cuda()
loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler()


def resume(path):
    state = torch.load(path)
    scaler.load_state_dict(state["scaler"])  # the cause


resume("last.pt")
for epoch in range(2):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
'''

_METHOD = '''
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Trainer:
    def __init__(self):
        self.model = nn.Linear(4, 2).cuda()
        self.loader = DataLoader(
            TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=4
        )
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.scaler = torch.amp.GradScaler()

    def resume(self, path):
        state = torch.load(path)
        self.scaler.load_state_dict(state["scaler"])  # the cause

    def train(self):
        self.resume("last.pt")
        for epoch in range(2):
            for x, y in self.loader:
                x, y = x.cuda(), y.cuda()
                self.optimizer.zero_grad()
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = nn.functional.cross_entropy(self.model(x), y)
                self.scaler.scale(loss).backward()
                self.scaler.step(self.optimizer)
                self.scaler.update()


Trainer().train()
'''


def _refusal(source: str):
    source = textwrap.dedent(source).lstrip("\n")
    result = migrate_source(source, "script.py")
    assert result.output == source
    found = [f for f in result.findings if f.code == "TL113"]
    assert found, "\n".join(map(str, result.findings))
    cause = 1 + next(k for k, line in enumerate(source.splitlines()) if "# the cause" in line)
    return found[0], cause


def test_refused_at_the_helpers_statement_loading_the_scaler():
    finding, cause = _refusal(_HELPER)
    assert finding.line == cause, finding
    assert "in `resume`, called before the loop" in finding.message
    assert "bf16" in finding.message


def test_refused_at_the_trainer_methods_statement_loading_the_scaler():
    finding, cause = _refusal(_METHOD)
    assert finding.line == cause, finding
