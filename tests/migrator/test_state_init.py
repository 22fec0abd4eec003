"""State the LightningModule carries between hooks: which values from before the loop it is
given (resolve_names.py). A value each pass binds first thing is never read: no argument."""

import textwrap

from torchlift.migrator import migrate_source

_HEAD = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=4)
model = nn.Linear(4, 2)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
"""


def _convert(body: str) -> str:
    result = migrate_source(_HEAD + textwrap.dedent(body), path="train.py")
    assert result.changed, [str(f) for f in result.findings]
    return result.output


def _module_arguments(output: str) -> str:
    return next(line for line in output.splitlines() if "lit_model = LitModel(" in line)


def test_an_accumulator_reset_at_each_epoch_start_is_not_given_its_value_from_before():
    output = _convert(
        """
        running_loss = 0.0
        for epoch in range(2):
            running_loss = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                running_loss += loss.item()
            print(epoch, running_loss)
        """
    )
    assert "running_loss" not in _module_arguments(output)
    assert "self.running_loss = 0.0" in output


def test_an_accumulator_read_before_the_epoch_binds_it_is_given_its_value():
    output = _convert(
        """
        running_loss = 0.0
        for epoch in range(2):
            print("carried", running_loss)
            running_loss = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                running_loss += loss.item()
        """
    )
    assert "running_loss" in _module_arguments(output)


def test_an_accumulator_read_after_the_loop_keeps_its_value_from_before():
    # with no epoch at all, the code after the loop reads the value from before it
    output = _convert(
        """
        running_loss = 0.0
        for epoch in range(2):
            running_loss = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                running_loss += loss.item()
        print("last", running_loss)
        """
    )
    assert "running_loss" in _module_arguments(output)
    assert "running_loss = lit_model.running_loss" in output
