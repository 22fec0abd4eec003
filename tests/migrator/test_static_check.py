"""The static check: a conversion that would fail on a name at its first step is caught."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchlift.migrator.lightning_module_api import LIGHTNING_MODULE_ATTRIBUTES
from torchlift.migrator.static_check import (
    UNASSIGNED_SELF_ATTRIBUTE,
    UNDEFINED_NAME,
    check_conversion,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

_ORIGINAL = """
import torch
from torch import nn

model = nn.Linear(2, 1)
loss_fn = nn.MSELoss()

def evaluate(loader):
    return sum(loss_fn(model(xb), yb) for xb, yb in loader)

for epoch in range(3):
    for xb, yb in loader:
        loss = loss_fn(model(xb), yb)
"""

# (name, converted text, expected (code, line) pairs). The original is _ORIGINAL.
PROBLEMS = [
    (
        "removed helper still called",
        """
        import torch
        from torch import nn

        model = nn.Linear(2, 1)
        loss_fn = nn.MSELoss()
        print(evaluate(loader))
        """,
        [(UNDEFINED_NAME, 7)],
    ),
    (
        "loop variable read in a hook",
        """
        import torch
        from torch import nn
        import torchlift.runtime as L

        class LitModel(L.LightningModule):
            def on_train_epoch_end(self):
                print(epoch)

        model = nn.Linear(2, 1)
        loss_fn = nn.MSELoss()
        """,
        [(UNDEFINED_NAME, 8)],
    ),
    (
        "generator variable turned into an attribute",
        """
        import torchlift.runtime as L

        class LitModel(L.LightningModule):
            def __init__(self, model):
                super().__init__()
                self.model = model

            def training_step(self, batch, batch_idx):
                xb, yb = batch
                return self.model(self.xb).sum()
        """,
        [(UNASSIGNED_SELF_ATTRIBUTE, 11)],
    ),
    (
        "attribute read before the only assignment is still assigned somewhere (allowed), "
        "another never assigned",
        """
        import lightning.pytorch as L

        class LitModel(L.LightningModule):
            def training_step(self, batch, batch_idx):
                self.total = self.total + self.count
                return batch.sum()

            def on_train_epoch_start(self):
                self.total = 0
        """,
        [(UNASSIGNED_SELF_ATTRIBUTE, 6)],
    ),
]

# Conversions that must pass: every name they read is bound somewhere Python looks.
SAFE = [
    (
        "comprehension, lambda and nested function scopes",
        """
        import torchlift.runtime as L

        def evaluate(loader, model):
            scale = 2
            def weighted(x):
                return x * scale
            return sum(weighted(model(xb)) for xb, _ in loader), [lambda v: v + scale]

        class LitModel(L.LightningModule):
            def __init__(self, net):
                super().__init__()
                self.net = net

            def training_step(self, batch, batch_idx):
                x, y = batch
                self.log("train_loss", self.net(x).sum(), prog_bar=True)
                return self.net(x).sum() * self.current_epoch + self.global_step
        """,
    ),
    (
        "global assigned inside a function, class body reading an enclosing function's local",
        """
        def setup():
            global best
            best = 0.0

        def make():
            width = 4
            class Config:
                size = width
            return Config

        setup()
        print(best)
        """,
    ),
    (
        "setattr on self makes attributes unknowable: no attribute check",
        """
        import torchlift.runtime as L

        class LitModel(L.LightningModule):
            def __init__(self, **options):
                super().__init__()
                for key, value in options.items():
                    setattr(self, key, value)

            def training_step(self, batch, batch_idx):
                return batch.sum() * self.scale
        """,
    ),
]


@pytest.mark.parametrize("name,converted,expected", PROBLEMS, ids=[p[0] for p in PROBLEMS])
def test_problem_is_reported_at_its_line(name, converted, expected):
    problems = check_conversion(textwrap.dedent(_ORIGINAL), textwrap.dedent(converted))
    assert [(p.code, p.line) for p in problems] == expected


@pytest.mark.parametrize("name,converted", SAFE, ids=[s[0] for s in SAFE])
def test_safe_conversion_passes(name, converted):
    assert check_conversion(textwrap.dedent(_ORIGINAL), textwrap.dedent(converted)) == []


# without the sanity check, fit validates first after the first epoch's training batches
_TRAINED_THEN_VALIDATED = """
import torchlift.runtime as L

class LitModel(L.LightningModule):
    def on_train_epoch_start(self):
        self.total = 0.0

    def training_step(self, batch, batch_idx):
        return batch.sum()

    def on_validation_epoch_start(self):
        print(self.total)

    def validation_step(self, batch, batch_idx):
        print(batch.sum())

loader = val_loader = []
trainer = L.Trainer(max_epochs=2{sanity})
trainer.fit(LitModel(), loader, val_loader)
{validate}
"""


def test_validation_hooks_follow_training_without_the_sanity_check():
    converted = _TRAINED_THEN_VALIDATED.format(sanity=", num_sanity_val_steps=0", validate="")
    assert check_conversion(textwrap.dedent(_ORIGINAL), converted) == []


@pytest.mark.parametrize(
    "sanity, validate",
    [("", ""), (", num_sanity_val_steps=0", "trainer.validate(LitModel(), val_loader)")],
    ids=["sanity_check_on", "validate_called"],
)
def test_validation_hooks_may_run_before_training(sanity, validate):
    converted = _TRAINED_THEN_VALIDATED.format(sanity=sanity, validate=validate)
    problems = check_conversion(textwrap.dedent(_ORIGINAL), converted)
    assert [p.code for p in problems] == [UNASSIGNED_SELF_ATTRIBUTE]


def test_undefined_names_of_the_original_are_not_blamed_on_the_conversion():
    original = "print(mystery)\nfor epoch in range(2):\n    pass\n"
    converted = "print(mystery)\n"
    assert check_conversion(original, converted) == []
    assert [p.code for p in check_conversion("x = 1\n", "print(mystery)\n")] == [UNDEFINED_NAME]


def test_star_import_disables_the_name_check():
    assert check_conversion("", "from torch import *\nprint(nn)\n") == []


def test_a_users_own_lightning_module_is_not_judged():
    """Classes present unchanged in the input are the user's code, not the conversion's."""
    user_class = textwrap.dedent("""
        import lightning.pytorch as L

        class Mine(L.LightningModule):
            def training_step(self, batch, batch_idx):
                return self.whatever
        """)
    assert check_conversion(user_class, user_class + "\nx = 1\n") == []


@pytest.mark.parametrize(
    "case", sorted(p.parent.name for p in FIXTURES.glob("*/expected.py")), ids=str
)
def test_every_fixture_conversion_passes(case):
    folder = FIXTURES / case
    original = (folder / "input.py").read_text()
    converted = (folder / "expected.py").read_text()
    assert check_conversion(original, converted, f"{case}/expected.py") == []


def test_attribute_table_matches_both_targets():
    """The allowed inherited attributes: exactly the runtime's, and all present in Lightning."""
    import torchlift.runtime as runtime

    ours = {n for n in dir(runtime.LightningModule()) if not n.startswith("_")}
    assert LIGHTNING_MODULE_ATTRIBUTES == ours
    lightning = pytest.importorskip("lightning.pytorch")
    theirs = {n for n in dir(lightning.LightningModule()) if not n.startswith("_")}
    assert LIGHTNING_MODULE_ATTRIBUTES <= theirs
