"""A refusal about an expression (a call's argument, a lambda) names the line of the statement
holding it, not the loop's or the file's first line (source/find_loops.py's LineIndex)."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import libcst.matchers as m

from torchlift.migrator import migrate_source
from torchlift.migrator.source.find_loops import LineIndex

SOURCE = textwrap.dedent(
    """
    import torch

    values = [1, 2,
              3]
    if values:
        total = sum(map(lambda v: v * 2, values))
    """
).lstrip()


def test_an_expression_is_placed_on_the_statement_holding_it():
    module = cst.parse_module(SOURCE)
    lines = LineIndex(module, ast.parse(SOURCE))
    lam = m.findall(module, m.Lambda())[0]
    three = [n for n in m.findall(module, m.Integer()) if n.value == "3"][0]
    assert lines.position(lam, (1, 0)) == (6, 4)
    assert lines.position(three, (1, 0)) == (3, 0)  # the statement's first line
    assert lines.position(cst.Name("elsewhere"), (9, 9)) == (9, 9)


def test_a_refusal_about_a_call_names_the_call():
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset


        def train(model, optimizer, loader):
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    optimizer.step()


        loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        train(model, optimizer, loader)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        train(model, optimizer, loader)
        """
    ).lstrip()
    result = migrate_source(source, path="train.py")
    assert not result.changed
    finding = next(f for f in result.findings if f.code == "TL132")
    assert finding.line in (18, 20), finding  # a call of train(), not the loop (line 7)


def test_a_refusal_about_an_inlined_helper_statement_names_the_helper_line():
    # evaluate() is inlined into the epoch loop; its range reads `steps`, which its own
    # statement `grow(steps)` may change: the refusal names that line, not the epoch loop's
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset

        loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        val_data = torch.randn(9, 4)
        steps = [2]


        def evaluate(model, data):
            model.eval()
            grow(steps)
            total = 0.0
            with torch.no_grad():
                for i in range(0, data.size(0) - 1, steps[0]):
                    total += model(data[i : i + 1]).sum().item()
            return total


        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = nn.functional.mse_loss(model(x), y)
                loss.backward()
                optimizer.step()
            val = evaluate(model, val_data)
            print(val)
        """
    ).lstrip()
    result = migrate_source(source, path="train.py")
    assert not result.changed
    finding = next(f for f in result.findings if f.code == "TL192")
    assert finding.line == 14, finding  # `grow(steps)` in evaluate(), not the loop (line 22)
    assert "`grow(steps)`" in finding.message, finding


def test_a_loop_over_a_name_bound_to_a_wrapper_names_the_call_and_its_binding():
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset
        from tqdm import tqdm

        loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(2):
            pbar = tqdm(zip(range(4), loader), total=2)
            for i, (x, y) in pbar:
                optimizer.zero_grad()
                loss = nn.functional.mse_loss(model(x), y)
                loss.backward()
                optimizer.step()
        """
    ).lstrip()
    result = migrate_source(source, path="train.py")
    assert not result.changed
    finding = next(f for f in result.findings if f.code == "TL104")
    assert finding.line == 10, finding  # the binding, not the loop (line 11)
    assert "iterates `pbar`, bound here to `tqdm(...)` over `zip(range(4), loader)`" in (
        finding.message
    ), finding


_HEADER = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
"""


def test_a_step_function_called_inside_an_expression_names_the_call():
    source = _HEADER + textwrap.dedent(
        """
        def train():
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1))
            loss.backward()
            optimizer.step()
            return loss.item()


        for epoch in range(3):
            print(epoch, train())
        """
    )
    result = migrate_source(source, path="train.py")
    finding = next(f for f in result.findings if f.code == "TL182")
    assert finding.line == 19, finding  # `print(epoch, train())`, not the `def` (line 10)


def test_a_trainer_class_created_in_a_loop_names_that_creation():
    source = _HEADER + textwrap.dedent(
        """
        class Experiment:
            def __init__(self, lr):
                self.lr = lr

            def train(self):
                for epoch in range(2):
                    for x, y in loader:
                        optimizer.zero_grad()
                        loss = nn.functional.mse_loss(model(x), y)
                        loss.backward()
                        optimizer.step()


        for run in range(2):
            experiment = Experiment(0.1)
            experiment.train()
        """
    )
    result = migrate_source(source, path="train.py")
    finding = next(f for f in result.findings if f.code == "TL171")
    assert finding.line == 24, finding  # `experiment = Experiment(0.1)`, not the class (line 10)
