"""analysis/loader_iteration.py: which statements iterate what may be a DataLoader (a draw
from torch's generator), followed by data flow rather than by spelling."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import libcst.matchers as m
import pytest

from torchlift.migrator.analysis.loader_iteration import loader_iterations
from torchlift.migrator.analysis.qualnames import Qualnames
from torchlift.migrator.inputs import import_table

HEADER = """\
import torch
import numpy as np
from torch.utils.data import DataLoader, TensorDataset

ds = TensorDataset(torch.randn(8, 4), torch.randn(8))
loader = DataLoader(ds, batch_size=4, shuffle=True)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
"""


class _Context:
    def __init__(self, source: str) -> None:
        self.module = cst.parse_module(source)
        self.names = Qualnames(import_table(ast.parse(source)))

    def call_qualnames(self, node):
        return self.names.of_call(node)


def _last_statement_draws(body: str) -> bool:
    ctx = _Context(HEADER + textwrap.dedent(body))
    last = ctx.module.body[-1]
    if isinstance(last, cst.FunctionDef):
        last = last.body.body[-1]
    return bool(loader_iterations(ctx, last))


DRAWS = {
    "peek": "images, labels = next(iter(loader))",
    "iterator_advanced": "it = iter(loader)\nbatch = next(it)",
    "batches_counted": "n = sum(1 for _ in loader)",
    "listed": "print(len(list(loader)))",
    "enumerated": "pairs = enumerate(loader)",
    "zipped": "pairs = zip(range(3), loader)",
    "sorted": "firsts = sorted(loader, key=len)",
    "membership": "found = None in loader",
    "starred": "print(*loader)",
    "unpacked": "first, second = loader",
    "for_loop": "for x, y in loader:\n    pass",
    "from_a_dict_of_loaders": 'loaders = {"train": loader}\nprint(list(loaders["train"]))',
    "loop_over_loaders": "for dl in [loader]:\n    n = len(list(dl))",
    "items_of_a_dict_of_loaders": 'for name, dl in {"t": loader}.items():\n    n = len(list(dl))',
    "appended_loader": "kept = []\nkept.append(loader)\nprint(list(kept[0]))",
    "parameter_given_a_loader": "show(loader)\n\n\ndef show(dl):\n    x, y = next(iter(dl))",
    "returned_by_a_function": (
        "def make():\n    return DataLoader(ds, shuffle=True)\n\n\nprint(list(make()))"
    ),
    "unknown_library_value": "import utils\nother = utils.get_loader()\nprint(list(other))",
    "handed_to_an_unknown_function": "import utils\nutils.show_batch(loader)",
    "wrapper_class_of_the_script": (
        "class OnDevice:\n    def __init__(self, dl):\n        self.dl = dl\n\n\n"
        "print(list(OnDevice(loader)))"
    ),
}

NO_DRAW = {
    "length": "print(len(loader))",
    "list_of_floats": "losses.append(1.0)\nprint(sum(losses) / len(losses), max(losses))",
    "joined_floats": 'print(", ".join(f"{v:.3f}" for v in losses))',
    "param_groups": 'for g in optimizer.param_groups:\n    g["lr"] = 0.1',
    "parameters": "print(sum(p.numel() for p in model.parameters()))",
    "batch_unpacked": "for x, y in ds:\n    pass\nfeatures, target = x, y",
    "loader_with_its_own_generator": (
        "own = DataLoader(ds, shuffle=True, generator=torch.Generator())\nprint(list(own))"
    ),
    "dict_of_loaders_items_listed": 'loaders = {"train": loader}\nnames = list(loaders)',
    "parameter_given_a_list": (
        "print(mean(losses))\n\n\ndef mean(values):\n    return sum(values) / len(values)"
    ),
    "tensor_rows": "for row in torch.randn(3, 4):\n    pass",
    # the keys of a dict in a list of dicts whose values are not known
    "keys_of_a_summary": (
        "import utils\nsumm = []\nsumm.append({k: utils.f(k) for k in 'ab'})\n"
        "names = [metric for metric in summ[0]]"
    ),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_iterating_what_may_be_a_loader_draws(name):
    assert _last_statement_draws(DRAWS[name])


@pytest.mark.parametrize("name", sorted(NO_DRAW))
def test_iterating_what_holds_no_loader_draws_nothing(name):
    assert not _last_statement_draws(NO_DRAW[name])


def test_a_name_is_read_in_its_own_scope():
    """`dl` bound to a loader in one function and to a list in another: each read sees its
    own function's binding."""
    source = HEADER + textwrap.dedent(
        """
        def peek(dl):
            return next(iter(dl))


        def total(dl):
            return sum(dl)


        peek(loader)
        total(losses)
        """
    )
    ctx = _Context(source)
    peek, total = (s for s in ctx.module.body if isinstance(s, cst.FunctionDef))
    assert loader_iterations(ctx, peek.body)
    assert not loader_iterations(ctx, total.body)
    assert m.findall(ctx.module, m.Call(func=m.Name("total")))
