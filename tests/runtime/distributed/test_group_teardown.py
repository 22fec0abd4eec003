"""strategies/group_teardown.py: default arguments holding the process group are released."""

from __future__ import annotations

import sys
import types

from torchlift.runtime.strategies.group_teardown import release_default_arguments


def test_defaults_holding_the_group_become_none(monkeypatch):
    group, other = object(), object()
    module = types.ModuleType("torch.distributed._fake_for_test")
    source = (
        "def broadcast(tensor, src, group=GROUP): pass\n"
        "def keyword(tensor, *, group=GROUP, device=OTHER): pass\n"
        "class Scaler:\n"
        "    def __init__(self, process_group=GROUP): pass\n"
        "    @staticmethod\n"
        "    def helper(group=GROUP): pass\n"
    )
    module.__dict__.update(GROUP=group, OTHER=other)
    exec(compile(source, module.__name__, "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, module.__name__, module)

    assert release_default_arguments(group) == 4
    assert module.broadcast.__defaults__ == (None,)
    assert module.keyword.__kwdefaults__ == {"group": None, "device": other}
    assert module.Scaler.__init__.__defaults__ == (None,)
    assert module.Scaler.helper.__defaults__ == (None,)
    assert module.GROUP is group  # only default arguments change
    assert release_default_arguments(group) == 0


def test_modules_outside_torch_distributed_are_left_alone(monkeypatch):
    group = object()
    module = types.ModuleType("user_code_for_test")
    module.__dict__["GROUP"] = group
    exec(compile("def step(group=GROUP): pass\n", "user", "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    assert release_default_arguments(group) == 0
    assert module.step.__defaults__ == (group,)
