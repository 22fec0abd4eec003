"""The Lightning import alias never shadows a name of the script: `L`, or `pl` when the
script has an `L` of its own (a sequence length, as the time-series examples call it)."""

from __future__ import annotations

import textwrap

from torchlift.migrator import migrate_source
from torchlift.migrator.rule import EXAMPLE_HEADER

_LOOP = """
{n} = 6  # the sequence length
x, y = torch.randn(8, {n}), torch.randint(0, 2, (8,))
model = nn.Linear({n}, 2)
loader = DataLoader(TensorDataset(x, y), batch_size=4)
for epoch in range(2):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
"""


def test_a_script_name_l_keeps_its_meaning_and_lightning_is_pl():
    source = EXAMPLE_HEADER + textwrap.dedent(_LOOP.format(n="L"))
    result = migrate_source(source, "train.py")
    assert result.changed, [f.message for f in result.findings]
    out = result.output
    assert "import torchlift.runtime as pl\n" in out
    assert "(pl.LightningModule):" in out and "trainer = pl.Trainer(" in out
    assert "L = 6  # the sequence length" in out and "nn.Linear(L, 2)" in out
    assert "L.Trainer" not in out and "L.LightningModule" not in out.replace("pl.Lightning", "")
    compile(out, "train.py", "exec")


def test_without_a_script_l_the_alias_is_l():
    source = EXAMPLE_HEADER + textwrap.dedent(_LOOP.format(n="SEQ"))
    out = migrate_source(source, "train.py").output
    assert "import torchlift.runtime as L\n" in out and "trainer = L.Trainer(" in out
