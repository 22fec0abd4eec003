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
    "bar_class_write": "from tqdm import tqdm\ntqdm.write(loader)",
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


def _method_statement_draws(body: str, method: str) -> bool:
    """Whether the last statement of `method` (of the file's first class) may draw."""
    ctx = _Context(HEADER + textwrap.dedent(body))
    cls = next(s for s in ctx.module.body if isinstance(s, cst.ClassDef))
    fn = next(s for s in cls.body.body if getattr(s, "name", None) and s.name.value == method)
    return bool(loader_iterations(ctx, fn.body.body[-1]))


_SHADOW = """
class Shadow{base}:
    def __init__(self, params, held):
        self.shadow = {{}}
        self.params = [p.detach().clone() for p in params]
        self.held = held

    def fill(self, named):
        for name, p in named:
            self.shadow[name] = p.data.clone()

    def has(self, name):
        assert name in self.shadow

    def pairs(self, values):
        for a, b in zip(self.params, values):
            pass

    def peek(self):
        return next(iter(self.held))


ema = Shadow(model.parameters(), {held})
ema.fill(model.named_parameters())
ema.has("weight")
ema.pairs({values})
{extra}
"""


def _shadow(base="", held="[]", values="model.parameters()", extra="") -> str:
    return _SHADOW.format(base=base, held=held, values=values, extra=extra)


def test_attributes_of_the_files_own_class_follow_their_bindings():
    """`self.shadow` bound to a dict of tensors, `self.params` from the constructor's
    argument, a method's parameter from its calls' arguments: no loader, no draw."""
    assert not _method_statement_draws(_shadow(), "has")
    assert not _method_statement_draws(_shadow(), "pairs")
    assert not _method_statement_draws(_shadow(), "peek")


def test_attributes_and_method_parameters_given_a_loader_draw():
    assert _method_statement_draws(_shadow(held="loader"), "peek")
    assert _method_statement_draws(_shadow(values="loader"), "pairs")
    assert _method_statement_draws(_shadow(extra="ema.shadow = loader"), "has")


def test_what_the_file_cannot_see_set_or_call_stays_unknown():
    # a base class may set any attribute; a method handed out may be called with anything;
    # setattr may bind any attribute
    assert _method_statement_draws(_shadow(base="(torch.nn.Module)"), "has")
    assert _method_statement_draws(_shadow(extra="callback = ema.pairs"), "pairs")
    assert _method_statement_draws(_shadow(extra='setattr(ema, "shadow", {})'), "has")
