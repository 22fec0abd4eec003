"""The rule table: built from the registry, each code once, each example reported with its
own code, the README's table in agreement, every blocker of a loop reported."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from torchlift.migrator import RULES, migrate_source
from torchlift.migrator.registry import rule_owners
from torchlift.migrator.rule import EXAMPLE_HEADER
from torchlift.migrator.rules import RULE_DETAILS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_table_is_the_union_of_the_registered_owners():
    owned = [rule.code for module in rule_owners() for rule in module.RULES]
    assert len(owned) == len(set(owned)), "a code is defined by two modules"
    assert sorted(owned) == list(RULES)
    assert all(re.fullmatch(r"TL\d{3}", code) for code in RULES)
    assert all("\n" not in title for title in RULES.values())


@pytest.mark.parametrize(
    "code", [c for c, r in sorted(RULE_DETAILS.items()) if r.example is not None]
)
def test_example_is_reported_with_its_own_code(code):
    rule = RULE_DETAILS[code]
    source = rule.example_source()
    result = migrate_source(source, "example.py")
    assert result.error is None
    codes = [f.code for f in result.findings]
    assert code in codes, [str(f) for f in result.findings]
    assert result.changed == rule.converts
    if not rule.converts:
        assert result.output == source


def test_readme_table_agrees_with_the_rules():
    rows = re.findall(r"^\| (TL\d{3}) \| (.+?) \|$", README.read_text(), re.M)
    assert dict(rows) == {code: title.replace("|", "\\|") for code, title in RULES.items()}


def _migrate(body: str):
    source = EXAMPLE_HEADER + textwrap.dedent(body)
    result = migrate_source(source, "train.py")
    assert result.output == source
    return [(f.code, f.line) for f in result.findings if f.severity == "warning"]


def test_a_refused_loop_reports_every_blocker_once_in_source_order():
    found = _migrate("""
        for epoch in range(2):
            for x, y in loader:
                if x.sum() > 0:
                    break
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        print("stopped at", epoch)
        """)
    codes = [code for code, _ in found]
    assert sorted(codes) == ["TL105", "TL107", "TL112"], found
    assert [line for _, line in found] == sorted(line for _, line in found)


def test_a_consequence_of_a_blocker_is_not_reported_again():
    # the backward() under `if` is the one reason: no "no backward() statement" on top of it
    found = _migrate("""
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                if loss.item() > 0:
                    loss.backward()
                    optimizer.step()
        """)
    assert [code for code, _ in found] == ["TL114"]


def test_a_lightning_file_without_backward_is_tl003_not_tl002():
    source = "import lightning.pytorch as L\n\n\nclass Net(\n    L.LightningModule\n):\n    pass\n"
    assert [f.code for f in migrate_source(source, "lit.py").findings] == ["TL003"]


def test_a_loader_through_a_wrapper_is_named():
    source = (
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader(torch.randn(8, 4), batch_size=4)\n"
        "for epoch in range(2):\n    for x in log.log_every(loader, 10):\n"
        "        optimizer.zero_grad()\n        loss = model(x).sum()\n"
        "        loss.backward()\n        optimizer.step()\n"
    )
    messages = [f.message for f in migrate_source(source, "refs.py").findings]
    assert any("iterates the loader `loader` through `log.log_every(...)`" in m for m in messages)


@pytest.mark.parametrize(
    "source, why",
    [
        ("import torch\nprint(torch.ones(2))\n", "nothing calls `.backward()`"),
        ("loss.backward()\n", "no `for`/`while` loop"),
        ("for i in range(2):\n    pass\nloss.backward()\n", "no `for`/`while` loop calls"),
    ],
)
def test_no_training_loop_says_why(source, why):
    (finding,) = migrate_source(source, "plain.py").findings
    assert finding.code == "TL002"
    assert why in finding.message


def test_step_method_loop_goes_to_the_trainer_class():
    """The backward() of a per-batch step method (research code's `_run_batch`): the class
    holding the loop that calls it is inlined first (here refused: it has no `__init__`), then
    the method, a function by then (shapes/step_inline.py)."""
    source = (
        "class T:\n    def _run_batch(self, x):\n        self.model(x).sum().backward()\n\n"
        "    def _run_epoch(self):\n        for x in self.loader:\n            self._run_batch(x)\n"
    )
    (finding,) = migrate_source(source, "plain.py").findings
    assert (finding.code, finding.message) == ("TL133", "class `T` has no `__init__`")
