"""A generator of the script the Trainer cannot read ahead is refused (TL104) at the statement
that prevents it: the generator's own, or the epoch's that changes what it reads."""

from __future__ import annotations

import textwrap

import pytest

from torchlift.migrator import migrate_source
from torchlift.migrator.rule import EXAMPLE_HEADER

_GENERATOR = """
def batches(X, Y, bs):
    idx = torch.arange(len(X))
    for i in range(0, len(X), bs):
        {line}
        yield X[idx[i : i + bs]], Y[idx[i : i + bs]]


X, Y = torch.randn(10, 4), torch.randint(0, 2, (10,))
scale = 1.0
for epoch in range(2):
    for x, y in batches(X, Y, 4):
        optimizer.zero_grad()
        loss = criterion(model(x * scale), y)
        loss.backward()
        optimizer.step()
        {step_line}
"""

CASES = {
    # (generator line, step line, the refused line's code, words of the reason)
    "torch_draw": (
        "idx = torch.randperm(len(X))",
        "pass",
        "idx = torch.randperm(len(X))",
        "draws from torch's global generator",
    ),
    "print": ("print(i)", "pass", "print(i)", "calls `print(...)`"),
    "changes_its_argument": ("X[i] = 0", "pass", "X[i] = 0", "changes `X` in place"),
    "reads_what_the_step_rebinds": (
        "idx = idx * int(scale)",
        "scale = scale * 0.5",
        "idx = idx * int(scale)",
        "`scale = scale * 0.5`",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_at_the_statement_in_the_way(case):
    line, step_line, refused, words = CASES[case]
    source = EXAMPLE_HEADER + textwrap.dedent(_GENERATOR).lstrip("\n").format(
        line=line, step_line=step_line
    )
    result = migrate_source(source, f"{case}.py")
    assert not result.changed
    [finding] = [f for f in result.findings if f.code == "TL104"]
    assert source.splitlines()[finding.line - 1].strip() == refused
    assert words in finding.message


# torch.Tensor's out-of-place methods (`.t()`, `.narrow(...)`, `.masked_fill(...)`) make a view
# or a new tensor; the 2018 LSTM classifier's `sents[b].t().contiguous()` was refused as
# changing `sents` (TL104). An in-place one (`.t_()`, `.masked_fill_(...)`) still is.
@pytest.mark.parametrize(
    "line", ["x = X.t().t()", "x = X.narrow(0, 0, 2)", "x = X.masked_fill(X > 0, 0.0)"]
)
def test_tensor_methods_that_make_new_tensors_convert(line):
    source = EXAMPLE_HEADER + textwrap.dedent(_GENERATOR).lstrip("\n").format(
        line=line, step_line="pass"
    )
    result = migrate_source(source, "reads.py")
    assert result.changed, [str(f) for f in result.findings]


def test_an_in_place_tensor_method_is_still_refused():
    source = EXAMPLE_HEADER + textwrap.dedent(_GENERATOR).lstrip("\n").format(
        line="X.t_()", step_line="pass"
    )
    result = migrate_source(source, "in_place.py")
    assert not result.changed
    assert any(f.code == "TL104" and "`X`" in f.message for f in result.findings)
