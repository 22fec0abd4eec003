"""strip_device_moves: before/after pairs and a noop table (pyupgrade style)."""

import libcst as cst
import pytest

from torchlift.migrator.patterns.device_moves import is_trivial_statement, strip_device_moves

DEVICES = {"device", "dev"}

CASES = [
    ("x = x.to(device)\n", "x = x\n"),
    ("x, y = x.to(device), y.to(device)\n", "x, y = x, y\n"),
    ("x = batch['x'].to(device, non_blocking=True)\n", "x = batch['x']\n"),
    ("x = x.cuda()\n", "x = x\n"),
    ("x = x.to('cuda:0')\n", "x = x\n"),
    ("x = x.to(torch.device('cuda'))\n", "x = x\n"),
    ("x = x.to(device=dev)\n", "x = x\n"),
    ("m = Net().to(device)\n", "m = Net()\n"),
    ("y = f(x.to(device)).sum()\n", "y = f(x).sum()\n"),
    ("b = {k: v.to(device) for k, v in b.items()}\n", "b = {k: v for k, v in b.items()}\n"),
]

NOOP = [
    "x = x.to(torch.float16)\n",
    "x = x.to(other)\n",  # not a device binding: could be a dtype or a tensor
    "x = x.to(device, torch.float16)\n",
    "y = x.cpu().numpy()\n",
    "z = torch.zeros(3, device=device)\n",  # renamed to self.device by the caller instead
    "x = x.to(dtype=torch.float16)\n",
]


@pytest.mark.parametrize("before, after", CASES)
def test_device_moves_are_removed(before, after):
    assert cst.Module(body=[strip_device_moves(cst.parse_statement(before), DEVICES)]).code == after


@pytest.mark.parametrize("source", NOOP)
def test_other_calls_are_left_alone(source):
    assert (
        cst.Module(body=[strip_device_moves(cst.parse_statement(source), DEVICES)]).code == source
    )


@pytest.mark.parametrize(
    "source, trivial",
    [
        ("x = x\n", True),
        ("x, y = x, y\n", True),
        ("(x, y) = x, y\n", True),
        ("model\n", True),
        ("b = {k: v for k, v in b.items()}\n", True),
        ("b = [t for t in b]\n", True),
        ("x = y\n", False),
        ("x, y = y, x\n", False),
        ("b = {k: v for k, v in other.items()}\n", False),
        ("f(x)\n", False),
    ],
)
def test_statements_left_doing_nothing_are_recognised(source, trivial):
    assert is_trivial_statement(cst.parse_statement(source)) is trivial
