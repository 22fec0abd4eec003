"""Generated code follows the black settings of the script's project (issue 10, item 7)."""

from __future__ import annotations

from torchlift.migrator import migrate_source
from torchlift.migrator.rule import EXAMPLE_HEADER

SCRIPT = EXAMPLE_HEADER.replace(
    "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
    "optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)",
) + (
    "for epoch in range(2):\n"
    "    for x, y in loader:\n"
    "        optimizer.zero_grad()\n"
    "        loss = criterion(model(x), y)\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
)
LONG_LINE = "torch.optim.SGD(self.model.parameters(), lr=0.1, momentum=0.9)"


def _convert(tmp_path, pyproject: str | None) -> str:
    if pyproject is not None:
        (tmp_path / "pyproject.toml").write_text(pyproject)
    script = tmp_path / "src" / "train.py"
    script.parent.mkdir()
    script.write_text(SCRIPT)
    result = migrate_source(SCRIPT, str(script))
    assert result.changed
    return result.output


def test_the_projects_line_length_is_used_for_generated_code(tmp_path):
    out = _convert(tmp_path, "[tool.black]\nline-length = 60\n")
    assert LONG_LINE not in out
    generated = out[out.index("class LitModel") : out.index("\nmodel = ")]
    assert max(len(line) for line in generated.splitlines()) <= 60


def test_black_defaults_without_a_black_table(tmp_path):
    out = _convert(tmp_path, "[tool.ruff]\nline-length = 60\n")
    assert LONG_LINE in out


def test_the_rest_of_the_file_is_not_reformatted(tmp_path):
    out = _convert(tmp_path, "[tool.black]\nline-length = 40\n")
    assert "loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))" in out
