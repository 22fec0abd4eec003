"""Numbers a loop's code reads that are known before it runs: a literal, or the literal a
name is bound to once before the loop, which neither the loop nor a function's `global`
statement rebinds (`clip = 0.5`, `max_batches = 10`). What the Trainer is given in their
place (`limit_train_batches=`, `gradient_clip_val=`) is then the same number the script used."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from .names import collect_names


def known_number(ctx, node) -> int | float | None:
    """The number `node` is for sure (see the module docstring), or None."""
    if isinstance(node, cst.Name):
        name = node.value
        binding, count = ctx.binding(name)
        if count != 1 or binding is None or name in collect_names(ctx.loop).writes:
            return None
        declared = m.findall(ctx.module, m.Global())
        if any(item.name.value == name for g in declared for item in g.names):
            return None
        node = binding[1]
    return node.evaluated_value if isinstance(node, (cst.Integer, cst.Float)) else None


def positive_int(ctx, node) -> bool:
    """`node` is an int >= 1 for sure (a float would be a fraction of the epoch for the
    Trainer's batch limits)."""
    value = known_number(ctx, node)
    return isinstance(value, int) and value >= 1
