"""Destroy the default process group at interpreter exit so that gloo's threads end before it.

A gloo group left to interpreter finalization can abort a process that trained correctly
("terminate called without an active exception", exit code -6): its worker threads, still
alive, drop the last reference to a tensor owned by Python and need the GIL while the
interpreter is being torn down (pytorch#190489, pytorch PR 179291).

`destroy_process_group()` alone did not prevent it: it only forgets the group, and the gloo
backend (its `pt_gloo_runloop` workers and `gloo_tcp_loop`) ends when the last reference to the
group goes. Modules of torch.distributed imported *after* `init_process_group` keep one in a
default argument evaluated at import time, `group=group.WORLD`: `torch.distributed.nn.functional`
is one, imported by `torch._dynamo`, which building `DistributedDataParallel` imports. So the
group, and its threads, lived until the process died. Those defaults are set back to `None`
(which every torch.distributed function reads as "the default group") before the group is
destroyed.
"""

from __future__ import annotations

import sys
import types
from typing import Any


def destroy_default_group() -> None:
    """atexit: release the default group's stray references, then destroy it (joins gloo)."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return
    release_default_arguments(dist.group.WORLD)
    dist.destroy_process_group()


def release_default_arguments(group: Any) -> int:
    """Replace `group` by None in the default arguments of torch.distributed's functions and
    methods; return how many defaults were replaced."""
    if group is None:
        return 0
    replaced = 0
    for name, module in list(sys.modules.items()):
        if module is None or not (
            name == "torch.distributed" or name.startswith("torch.distributed.")
        ):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ == name:
                for member in list(vars(value).values()):
                    replaced += _release(_function_of(member), group)
            else:
                replaced += _release(_function_of(value), group)
    return replaced


def _function_of(value: Any) -> types.FunctionType | None:
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    return value if isinstance(value, types.FunctionType) else None


def _release(function: types.FunctionType | None, group: Any) -> int:
    if function is None:
        return 0
    replaced = 0
    defaults = function.__defaults__
    if defaults and any(value is group for value in defaults):
        replaced += sum(value is group for value in defaults)
        function.__defaults__ = tuple(None if value is group else value for value in defaults)
    keyword_defaults = function.__kwdefaults__
    if keyword_defaults and any(value is group for value in keyword_defaults.values()):
        replaced += sum(value is group for value in keyword_defaults.values())
        function.__kwdefaults__ = {
            key: None if value is group else value for key, value in keyword_defaults.items()
        }
    return replaced
