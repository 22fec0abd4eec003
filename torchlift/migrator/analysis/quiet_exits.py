"""Context managers whose exit does nothing a caller of the function holding them sees.

A `return` inside `with torch.no_grad():` runs the manager's `__exit__` after the returned
value is computed. For a grad mode (restores the mode), autocast (restores the autocast state)
or `open(...)` (closes the file) that exit neither suppresses nor changes what is returned, and
leaves nothing behind but what falling off the end of the block leaves: a return that is the
block's last statement is the same as the block ending. Any other manager's exit may swallow
an exception, replace or read the result, or time the block: not vouched for.
"""

from __future__ import annotations

import libcst as cst

from .qualnames import GRAD_MODE_DECORATORS, GRAD_MODES

QUIET_EXITS = frozenset(
    GRAD_MODES
    | GRAD_MODE_DECORATORS
    | {
        "torch.autocast",
        "torch.amp.autocast",
        "torch.cuda.amp.autocast",
        "torch.cpu.amp.autocast",
        "torch.amp.autocast_mode.autocast",
        "builtins.open",
    }
)


def exits_quietly(ctx, with_stmt: cst.With) -> bool:
    """Every item of `with_stmt` calls one of QUIET_EXITS (by qualified name)."""
    if with_stmt.asynchronous is not None:
        return False
    return all(
        isinstance(item.item, cst.Call) and ctx.qualnames(item.item.func) & QUIET_EXITS
        for item in with_stmt.items
    )
