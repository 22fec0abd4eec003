"""The table of names torchlift.runtime provides must not claim a name it lacks."""

import importlib

import pytest

from torchlift.migrator.upgrade.runtime_api import RUNTIME_API, available_on_runtime


@pytest.mark.parametrize("where", sorted(RUNTIME_API))
def test_every_listed_name_exists_on_the_runtime(where):
    module = importlib.import_module("torchlift.runtime" + (f".{where}" if where else ""))
    for name in RUNTIME_API[where]:
        assert hasattr(module, name), f"torchlift.runtime.{where} has no {name}"


def test_names_lightning_has_and_the_runtime_lacks():
    assert available_on_runtime("callbacks.TQDMProgressBar")
    assert not available_on_runtime("callbacks.ModelSummary")
    assert not available_on_runtime("profilers.SimpleProfiler")
