"""No leftovers of removed code in a conversion: imports it left unused, comments describing
statements it removed (issue 10, item 7)."""

from __future__ import annotations

from torchlift.migrator import migrate_source

SETUP = """\
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
{imports}
{device}
model = nn.Linear(4, 2){to_device}
loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()

for epoch in range(2):
    for x, y in {loader}:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
{after}"""


def _convert(**parts) -> str:
    values = {
        "imports": "",
        "device": '\n# Device configuration\ndevice = torch.device("cpu")\n',
        "to_device": "",
        "loader": "loader",
        "after": "",
    }
    values.update(parts)
    result = migrate_source(SETUP.format(**values), "train.py")
    assert result.changed, [str(f) for f in result.findings]
    return result.output


def test_an_import_only_the_removed_loop_read_goes():
    out = _convert(imports="from tqdm import tqdm", loader="tqdm(loader)")
    assert "tqdm" not in out


def test_an_import_other_code_still_reads_stays():
    out = _convert(imports="from tqdm import tqdm", loader="tqdm(loader)", after="print(tqdm)\n")
    assert "from tqdm import tqdm" in out


def test_an_import_the_script_never_read_stays_it_may_have_side_effects():
    out = _convert(imports="import torch.backends.cudnn\nimport numpy")
    assert "import numpy\n" in out and "import torch.backends.cudnn\n" in out


def test_one_name_of_an_import_line_goes_the_others_stay():
    out = _convert(imports="from tqdm import tqdm, trange", loader="tqdm(loader)", after="trange\n")
    assert "from tqdm import trange\n" in out


def test_a_comment_heading_a_removed_statement_goes_with_it():
    out = _convert()
    assert "Device configuration" not in out and "torch.device" not in out


def test_a_section_comment_over_statements_that_stay_stays():
    device = '\n# Setup: device and model\ndevice = torch.device("cpu")'
    out = _convert(device=device)
    assert "# Setup: device and model\nmodel = nn.Linear(4, 2)" in out


def test_a_comment_on_a_removed_statement_inside_a_block_goes():
    device = '\n# Setup\ndevice = torch.device("cpu")\ntorch.manual_seed(0)'
    out = _convert(device=device, to_device="\n# move it to the device\nmodel.to(device)")
    assert "move it" not in out
    assert "# Setup\ntorch.manual_seed(0)\nmodel = nn.Linear(4, 2)\nloader =" in out
