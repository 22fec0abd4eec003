"""source/tuple_bindings.py: which tuple assignments bind one name per element faithfully."""

import libcst as cst
import pytest

from torchlift.migrator.source.tuple_bindings import tuple_targets, why_not_split

SPLITS = [
    "G_AB, G_BA = generator().to(device), generator().to(device)",
    "Q, P, D = Q.cuda(), P.cuda(), D.cuda()",  # each element reads only its own name
    "opt_g, opt_d = Adam(G.parameters()), Adam(D.parameters())",
]

KEPT = {
    "a, b = b, a": "reads `a`",
    "model, teacher = Net(), model": "reads `model`",
    "G, D = Gen(), make_disc()": "calls `make_disc()`",
    "x, y = 1, eval('x')": "calls `eval()`",
    "G, *rest = Gen(), Disc()": "starred target",
}

DEFS = """
def make_disc():
    return Disc(G.out_features)


"""


def _stmt(code: str):
    module = cst.parse_module(DEFS + code + "\n")
    return module.body[-1], module


@pytest.mark.parametrize("code", SPLITS)
def test_splits(code):
    stmt, module = _stmt(code)
    assert tuple_targets(stmt) is not None
    assert why_not_split(stmt, module) is None


@pytest.mark.parametrize("code, why", sorted(KEPT.items()))
def test_kept_whole_says_why(code, why):
    stmt, module = _stmt(code)
    assert why in why_not_split(stmt, module)


def test_other_statements_are_not_asked():
    for code in ["a = b", "a, b = pair", "a = b = c, d", "a, a = 1, 2", "a, b = 1, 2, 3"]:
        stmt, module = _stmt(code)
        assert tuple_targets(stmt) is None
        assert why_not_split(stmt, module) is None
