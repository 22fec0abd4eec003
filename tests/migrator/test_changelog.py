"""The change log explains every line a conversion writes, from the migrator itself."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from fixture_runs import migrate

from torchlift.migrator import migrate_source
from torchlift.migrator.rules import RULES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CONVERTED_CASES = sorted(p.parent.name for p in FIXTURES.glob("*/expected.py"))


def _written_lines(before: str, after: str) -> set[int]:
    """1-based output lines that are not a copy of an input line at that place. The diff may
    align a kept line with a line written further on (a model put back after `fit` matching
    its placement): the lines an insertion copies from input lines deleted beside it (at
    most one matched block away; also the input side of a replacement there, where the diff
    matched a blank line before a kept one) are kept lines, not written ones."""
    old, new = before.splitlines(), after.splitlines()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    opcodes = matcher.get_opcodes()
    written = set()
    for k, (tag, _, _, j1, j2) in enumerate(opcodes):
        if tag not in ("replace", "insert"):
            continue
        beside = [op for op in opcodes[max(k - 2, 0) : k + 3] if op[0] in ("delete", "replace")]
        deleted = [line for op in beside for line in old[op[1] : op[2]]]
        for j in range(j1, j2):
            if new[j] in deleted:
                deleted.remove(new[j])
            else:
                written.add(j + 1)
    return written


@pytest.mark.parametrize("case", CONVERTED_CASES)
def test_every_written_line_is_explained(case):
    source = (FIXTURES / case / "input.py").read_text()
    result = migrate(FIXTURES / case / "input.py")  # shared with tests/test_fixtures.py
    assert result.changed
    covered = {
        line
        for change in result.changes
        if change.output_lines
        for line in range(change.output_lines[0], change.output_lines[1] + 1)
    }
    blank = {n for n, text in enumerate(result.output.splitlines(), 1) if not text.strip()}
    missing = sorted(_written_lines(source, result.output) - covered - blank)
    assert missing == [], [result.output.splitlines()[n - 1] for n in missing]


@pytest.mark.parametrize("case", CONVERTED_CASES)
def test_changes_point_inside_both_files_with_known_codes(case):
    source = (FIXTURES / case / "input.py").read_text()
    result = migrate(FIXTURES / case / "input.py")
    n_in, n_out = len(source.splitlines()), len(result.output.splitlines())
    assert result.changes
    for change in result.changes:
        assert change.code in RULES and change.message
        assert change.source_lines or change.output_lines
        for span, size in ((change.source_lines, n_in), (change.output_lines, n_out)):
            if span is not None:
                assert 1 <= span[0] <= span[1] <= size, change


def test_the_returned_loss_comes_from_the_step_sequence():
    source = (FIXTURES / "seed_simple_model_validation" / "input.py").read_text()
    result = migrate_source(source, path="input.py")
    out_lines = result.output.splitlines()
    src_lines = source.splitlines()
    step = next(c for c in result.changes if "zero_grad" in c.message)
    assert out_lines[step.output_lines[0] - 1].strip() == "return loss"
    first, last = step.source_lines
    assert any("loss.backward()" in src_lines[n - 1] for n in range(first, last + 1))


def test_unchanged_files_have_no_change_log():
    result = migrate_source("import os\nprint(os.sep)\n", path="plain.py")
    assert not result.changed and result.changes == []


@pytest.mark.parametrize(
    "case", ["csv_log_with_block_in_main", "interrupt_guard_enumerate", "tempdir_best_model_params"]
)
def test_trainer_statements_inside_a_block_map_to_themselves(case):
    """A `with` / `try` kept around the Trainer statements is not part of them: the epoch
    loop maps to the generated lines only, and no early Trainer is reported (no process group
    was started)."""
    source = (FIXTURES / case / "input.py").read_text()
    result = migrate_source(source, path="input.py")
    out_lines = result.output.splitlines()
    assert not any("process group" in c.message for c in result.changes)
    epoch = next(c for c in result.changes if c.message.startswith("epoch loop ->"))
    first, last = epoch.output_lines
    written = [line.strip() for line in out_lines[first - 1 : last]]
    assert not any(line.startswith(("with ", "try:")) for line in written), written
    assert any(".fit(" in line for line in written)


@pytest.mark.parametrize("binding, moved", [("Net()", False), ("Net().to(device)", True)])
def test_a_model_binding_says_device_move_only_when_it_had_one(binding, moved):
    source = f"""import torch
from torch import nn
device = "cuda" if torch.cuda.is_available() else "cpu"
Net = nn.Linear
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(2, 4), torch.randn(2, 4)))
model = {binding}
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
"""
    result = migrate_source(source, path="train.py")
    (entry,) = [c for c in result.changes if c.source_lines and c.source_lines[0] == 6]
    assert ("device move removed" in entry.message) is moved, entry.message


def test_a_kept_mode_switch_is_not_said_removed():
    """`model.train()` at the epoch start stays when code before the loop left the model in
    eval mode (mode_calls.py): the change log must not say it was removed."""
    source = (FIXTURES / "epoch_end_eval_on_whole_tensors" / "input.py").read_text()
    result = migrate_source(source, path="input.py")
    assert "    def on_train_epoch_start(self):\n        self.model.train()" in result.output
    line = source.splitlines().index("    model.train()") + 1
    said = [c.message for c in result.changes if c.source_lines and c.source_lines[0] == line]
    assert not any("removed" in message for message in said), said


def _changes_at(result, line: int) -> list[str]:
    return [
        change.message
        for change in result.changes
        if change.source_lines and change.source_lines[0] <= line <= change.source_lines[1]
    ]


def _line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


def test_an_inlined_helpers_code_around_its_batch_loop_maps_to_the_epoch_hooks():
    source = (FIXTURES / "epoch_helper_returns_meter_summary" / "input.py").read_text()
    result = migrate_source(source, path="input.py")
    done = _changes_at(result, _line_of(source, 'print(f"epoch {epoch} done")'))
    assert any("`on_train_epoch_end`" in message for message in done), done
    header = _changes_at(result, _line_of(source, "def train_one_epoch("))
    assert any("`train_one_epoch()` inlined" in m and "`def` removed" in m for m in header)


def test_an_inlined_closures_loops_are_mapped_like_a_module_helpers():
    source = (FIXTURES / "closure_train_test_in_main" / "input.py").read_text()
    result = migrate_source(source, path="input.py")
    batch = _changes_at(result, _line_of(source, "for step, (x, y) in enumerate(train_loader)"))
    assert any("-> `training_step`" in message for message in batch), batch
    started = _changes_at(result, _line_of(source, "running = 0.0"))
    assert any("`on_train_epoch_start`" in message for message in started), started
    header = _changes_at(result, _line_of(source, "def evaluate():"))
    assert any("`evaluate()` inlined" in message for message in header), header
