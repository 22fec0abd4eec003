"""Loop shapes: how a training loop is laid out (epoch x batch, step loops). A shape finds the
loop's parts, builds the skeleton plan and calls the patterns (see registry.py) on them.
"""

from __future__ import annotations

import importlib


def plan_loop(ctx):
    """The plan of the first shape in registry.SHAPES that takes `ctx.loop` (a shape without
    `takes`, the last one, takes every loop and gives its refusals for the rest)."""
    from ..registry import SHAPES
    from . import runs

    runs.retarget(ctx)  # a loop over training runs: its epoch loop is the one converted
    for name in SHAPES:
        shape = importlib.import_module(name)
        takes = getattr(shape, "takes", None)
        if takes is None or takes(ctx):
            plan = shape.plan_loop(ctx)
            runs.check(ctx, plan)
            return plan
    raise AssertionError("registry.SHAPES must end with a shape that takes every loop")
