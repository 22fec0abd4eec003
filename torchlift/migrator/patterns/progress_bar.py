"""Pattern: a tqdm progress bar around the training loader.

    pbar = tqdm(loader, ...)          (before the batch loop: removed)
    for x, y in pbar:                 -> the batch loop iterates `loader`
        ...
        pbar.set_postfix(loss=...)    -> removed: Lightning's bar shows the logged loss
                                         (`prog_bar=True` when the bar showed the loss)

    with tqdm(total=...) as pbar:     (the loop's wrapper, shapes/wrappers.py: removed)
        ... pbar.update(1) ...        -> removed, at batch or epoch level

`for x, y in tqdm(loader)` needs nothing from here (the shape looks through it). Leaves alone:
a bar over anything but one positional loader argument.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
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


def display_receiver(stmt) -> cst.BaseExpression | None:
    """`pbar` of a statement that is exactly `pbar.<display method>(...)`."""
    for method in _DISPLAY:
        receiver = call_method(stmt, method)
        if receiver is not None:
            return receiver
    return None


def _bar_names(ctx) -> set[str]:
    bar = ctx.found.get("progress_bar")
    return set(ctx.found.get("wrapping_bars", ())) | ({bar[0]} if bar else set())


def _is_display(ctx, stmt) -> bool:
    receiver = display_receiver(stmt)
    return isinstance(receiver, cst.Name) and receiver.value in _bar_names(ctx)


def epoch_body(ctx, stmts):
    """The display calls of a bar wrapping the whole loop, at epoch level: dropped."""
    return [s for s in stmts if not _is_display(ctx, s)]


def claim(ctx, steps, stmt, position) -> bool:
    if not _is_display(ctx, stmt):
        return False
    steps.setdefault("bar_displays", []).append(stmt)
    return True


def read(ctx, plan, steps) -> None:
    """A bar that showed the loss (`pbar.set_postfix(loss=loss.item())`): the Trainer's bar
    shows the logged training loss instead."""
    for stmt in steps.get("bar_displays", ()):
        if plan.loss_name in collect_names(stmt).reads:
            plan.loss_on_progress_bar = True
