"""Loop shapes: how a training loop is laid out (epoch x batch, step loops). A shape finds the
loop's parts, builds the skeleton plan and calls the patterns (see registry.py) on them.
"""

from __future__ import annotations

import importlib


def plan_loop(ctx):
    """The plan of the first shape in registry.SHAPES that takes `ctx.loop` (a shape without
    `takes`, the last one, takes every loop and gives its refusals for the rest)."""
    from ..registry import SHAPES

    for name in SHAPES:
        shape = importlib.import_module(name)
        takes = getattr(shape, "takes", None)
        if takes is None or takes(ctx):
            return shape.plan_loop(ctx)
    raise AssertionError("registry.SHAPES must end with a shape that takes every loop")
