"""Pattern: a tqdm progress bar around the training loader.

    pbar = tqdm(loader, ...)          (before the batch loop: removed)
    for x, y in pbar:                 -> the batch loop iterates `loader`
        ...
        pbar.set_postfix(loss=...)    -> removed: Lightning's bar shows the logged loss

`for x, y in tqdm(loader)` needs nothing from here (the shape looks through it). Leaves alone:
a bar over anything but one positional loader argument.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.qualnames import TQDM
from ..analysis.statements import call_method, single_assign

RULES = ()

_DISPLAY = ("set_postfix", "set_description", "set_postfix_str", "update")


def before_batch_loop(ctx, loop: cst.For, pre):
    """`pbar = tqdm(loader, ...)` bound before the batch loop that iterates `pbar`: dropped,
    and the bar remembered for the loader and the display calls."""
    iterator, _, _ = ctx.unwrap_iter(loop)
    if not isinstance(iterator, cst.Name):
        return pre
    name = iterator.value
    for stmt in pre:
        assign = single_assign(stmt)
        if not assign or assign[0] != name:
            continue
        value = assign[1]
        if not (isinstance(value, cst.Call) and ctx.call_qualnames(value) & TQDM):
            return pre
        if not value.args or value.args[0].keyword is not None:
            return pre
        ctx.found["progress_bar"] = (name, value.args[0].value)
        return [s for s in pre if s is not stmt]
    return pre


def batch_loader(ctx, iterator):
    bar = ctx.found.get("progress_bar")
    if bar and m.matches(iterator, m.Name(bar[0])):
        return bar[1]
    return iterator


def claim(ctx, steps, stmt, position) -> bool:
    bar = ctx.found.get("progress_bar")
    if not bar or all(call_method(stmt, method) is None for method in _DISPLAY):
        return False
    receiver = stmt.body[0].value.func.value
    return m.matches(receiver, m.Name(bar[0]))
