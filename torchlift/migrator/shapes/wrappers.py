"""Blocks a training loop may stand in, besides a module, a function or `if __name__`.

    with tqdm(total=...) as pbar:          -> removed: the Trainer shows its own bar; the
        for epoch in range(N): ...            bar's display calls in the loop go too
    try:                                   -> kept, around the Trainer statements
        for epoch in range(N): ...
    except KeyboardInterrupt:
        print("Exiting from training early")

A wrapper holds the loop and nothing else. Other `with` blocks stay around the Trainer
statements (enclosing.py). Left alone (TL103): a bar mixed with other context managers, `try`
with another handler, `else` or `finally` (they would also catch or follow what the Trainer
raises); a bar used beyond its display calls, also inside the passes the loop calls, is
refused naming the use (TL104, patterns/bar_displays.py). Ctrl-C differs: Lightning and the runtime end the process after their graceful
shutdown, so the `except KeyboardInterrupt` body no longer runs; the report says so.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.qualnames import TQDM
from .enclosing import is_progress_bar

INTERRUPT_NOTE = (
    "on Ctrl-C the Trainer ends the process after a graceful shutdown: the "
    "`except KeyboardInterrupt` block is kept around fit but no longer runs"
)


def wrapper_around(ctx, loop, holder) -> tuple[cst.CSTNode | None, str | None]:
    """(`holder` -- the compound statement whose block holds `loop` directly, None at module
    level -- when it is a tqdm `with` / `try` holding exactly `loop`, or None; why such a
    block does not qualify, or None). A bar's `with` holding more is refused by
    enclosing.py, other `with` blocks are kept around the Trainer there."""
    if isinstance(holder, cst.Try):
        inner = holder.body.body if isinstance(holder.body, cst.IndentedBlock) else ()
        if not any(s is loop for s in inner):
            return None, None
        if len(inner) != 1:
            return None, "the block around the training loop holds other statements"
        return _interrupt_guard(ctx, holder)
    if isinstance(holder, cst.With) and is_progress_bar(ctx, holder):
        if len(holder.body.body) != 1:
            return None, None  # enclosing.py says why
        return _progress_bar(ctx, holder)
    return None, None


def _progress_bar(ctx, stmt: cst.With):
    if stmt.asynchronous is not None:
        return None, "`async with` around the training loop"
    names, classes = [], {}
    for item in stmt.items:
        if not (isinstance(item.item, cst.Call) and ctx.call_qualnames(item.item) & TQDM):
            return None, (
                "`with` around the training loop mixes a tqdm progress bar with other "
                "context managers"
            )
        if item.asname is not None:
            if not isinstance(item.asname.name, cst.Name):
                return None, "progress bar bound to something else than a name"
            names.append(item.asname.name.value)
            classes[item.asname.name.value] = item.item.func  # `pbar.write` -> `tqdm.write`
    ctx.found["wrapping_bars"] = set(names)
    ctx.found["wrapping_bar_classes"] = classes
    return stmt, None


def _interrupt_guard(ctx, stmt: cst.Try):
    if stmt.orelse is not None or stmt.finalbody is not None:
        return None, "`try` around the training loop has an `else` or `finally` block"
    for handler in stmt.handlers:
        if handler.type is None or "builtins.KeyboardInterrupt" not in ctx.qualnames(handler.type):
            return None, "`try` around the training loop catches more than KeyboardInterrupt"
    return stmt, None


def replace_wrapper(wrapper, stmts: list) -> list:
    """What stands where the wrapper stood: the Trainer statements (`with` bar dropped), or
    the `try` around them."""
    if isinstance(wrapper, cst.Try):
        # its comments and blank lines above stay where they are (emit/apply.py keeps them)
        body = wrapper.body.with_changes(body=stmts)
        return [wrapper.with_changes(body=body, leading_lines=[])]
    return stmts


def extra_indent(wrapper) -> int:
    return 4 if isinstance(wrapper, cst.Try) else 0
