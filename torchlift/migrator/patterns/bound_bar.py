"""A tqdm bar bound in the epoch right before the batch loop that iterates it (progress_bar.py's).

    for epoch in range(N):
        pbar = tqdm(enumerate(loader), total=len(loader))   -> removed; the batch loop iterates
        for i, (x, y) in pbar:                                 `enumerate(loader)` (context.py)
            ...
            pbar.set_postfix(loss=loss.item())            -> progress_bar.py's mapping
            pbar.write(f"...")                            -> tqdm.write(f"..."): a classmethod,
        pbar.close()                                         the same text on the same stream
                                                          -> removed, as any display call here
                                                          (also `if stop: pbar.close(); break`
                                                          in either loop: bar_closes.py)

`pbar.write` handed on (`run_validation(..., lambda msg: pbar.write(msg))`) is `tqdm.write` too.
The epoch body is the one helpers.py inlined, so a bar of a per-epoch `train_one_epoch()` is
read the same way. Refused (TL104), naming the use: the bar used otherwise -- passed on, read
(`pbar.n`), iterated again, bound again, used inside a block or before it is bound, or read
after the epoch loop (the last epoch's bar) -- since no bar exists once the Trainer iterates
the loader. A display call nested in a block of the batch loop (`if is_master:
pbar.set_postfix(...)` on rank 0, `if i % 10 == 0:`) is still only a display: bar_displays.py
drops it there, with its `if` when nothing else is in it.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..analysis.qualnames import TQDM
from ..analysis.statements import BACKWARD, call_method, contains, single_assign
from ..rule import Unsupported
from ..shapes.context import NOT_A_LOADER
from .bar_closes import closes_in

DISPLAY = ("set_postfix", "set_description", "set_postfix_str", "update", "refresh")  # progress_bar.py's
_LOOP_CALLS = (*DISPLAY, "write")  # what may use the bar in the batch loop
_EPOCH_CALLS = (*_LOOP_CALLS, "close")  # and in the epoch, after its binding


def take(ctx, stmts: list) -> list:
    """`stmts` (the epoch body) without the binding of a bar the batch loop iterates and its
    display calls there (found["bar_dropped"], for the change log), its `write` calls on the
    bar's class; the bar recorded for progress_bar.py: found["progress_bar"] = (name, what it
    wraps), found["bar_class"] = (name, tqdm's expression), found["bar_binding"]."""
    at = next((k for k, s in enumerate(stmts) if _is_batch_loop(s)), None)
    if at is None or not isinstance(iterated := ctx.unwrap_iter(stmts[at])[0], cst.Name):
        return stmts
    name = iterated.value
    found = next(
        (k for k in range(at - 1, -1, -1) if (a := single_assign(stmts[k])) and a[0] == name),
        None,
    )
    if found is None:
        return stmts
    bar = single_assign(stmts[found])[1]
    if not (isinstance(bar, cst.Call) and ctx.call_qualnames(bar) & TQDM):
        return stmts
    if not bar.args or bar.args[0].keyword is not None or bar.args[0].star:
        return stmts  # tqdm(total=...) counted by hand: not the loader's bar
    _check_uses(ctx, name, stmts, found, at)
    ctx.found["progress_bar"] = (name, bar.args[0].value)
    ctx.found["bar_class"] = (name, bar.func)
    ctx.found["bar_binding"] = stmts[found]
    dropped = [stmts[found], *(s for s in stmts if _calls(s, name, (*DISPLAY, "close")))]
    ctx.found["bar_dropped"] = dropped
    return [written(ctx, s) for s in stmts if not any(s is d for d in dropped)]


def written(ctx, stmt):
    """`stmt` with every `pbar.write` of the bound bar as `tqdm.write`, called or handed on
    (`print_msg = lambda msg: pbar.write(msg)`): a classmethod, the same text on the same
    stream through the bar's class."""
    found = ctx.found.get("bar_class")
    if found is None:
        return stmt
    name, cls = found
    for attribute in _write_attributes(stmt, name):
        stmt = stmt.deep_replace(attribute.value, cls)
    return stmt


def _write_attributes(stmt, name: str) -> list:
    return m.findall(stmt, m.Attribute(value=m.Name(name), attr=m.Name("write")))


def _only_writes(stmt, name: str) -> bool:
    """Every mention of `name` in `stmt` is `name.write` (the class's method through the
    bar), none of them under a function or lambda of its own parameter `name`."""
    if m.findall(stmt, m.Param(name=m.Name(name))) or name in collect_names(stmt).writes:
        return False
    mentions = [n for n in m.findall(stmt, m.Name(name))]
    return bool(mentions) and len(mentions) == len(_write_attributes(stmt, name))


def _is_batch_loop(stmt) -> bool:
    """The statement shapes/epoch_batch.py takes as the batch loop: the first `for` holding
    the backward call."""
    return isinstance(stmt, cst.For) and contains(stmt, BACKWARD)


def _check_uses(ctx, name: str, stmts: list, bound: int, at: int) -> None:
    """Every use of the bar is a top-level display call after its binding, in the epoch or
    the batch loop (or the loop's iteration of it); Unsupported naming the first other."""
    from . import bar_displays  # it reads this module's DISPLAY when imported

    loop = stmts[at]
    for k, stmt in enumerate(stmts):
        if k == bound or not _mentions(stmt, name):
            continue
        if k == at:
            for inner in loop.body.body:
                if _mentions(inner, name) and not _calls(inner, name, _LOOP_CALLS):
                    if closes_in(inner, name) is None and not _only_writes(inner, name):
                        if not bar_displays.only_displays(ctx, inner, {name}):
                            _refuse(ctx, name, inner, _how(ctx, name, inner))
            continue
        if k < bound:
            _refuse(ctx, name, stmt, "used before it is bound in the epoch")
        if _calls(stmt, name, _EPOCH_CALLS) or _only_writes(stmt, name):
            continue
        if closes_in(stmt, name) is None:
            _refuse(ctx, name, stmt, _how(ctx, name, stmt))
    if id(stmts[bound]) in ctx.found.get("inlined_from", {}):
        return  # a helper's own local: nothing after the epoch loop sees it
    for stmt in ctx.scope_after:
        if _mentions(stmt, name):
            _refuse(ctx, name, stmt, "read after the epoch loop (the last epoch's bar)")
        if name in collect_names(stmt).writes:
            return  # bound anew: another object from here on


def _mentions(stmt, name: str) -> bool:
    use = collect_names(stmt)
    return name in use.reads or name in use.writes


def _calls(stmt, name: str, methods) -> bool:
    return any(m.matches(call_method(stmt, method), m.Name(name)) for method in methods)


def _how(ctx, name: str, stmt) -> str:
    if name in collect_names(stmt).writes:
        return "bound again"
    loops = m.findall(stmt, m.For(iter=m.Name(name)) | m.CompFor(iter=m.Name(name)))
    if loops:
        return "iterated again"
    passed = m.findall(stmt, m.Call(args=[m.ZeroOrMore(), m.Arg(m.Name(name)), m.ZeroOrMore()]))
    if passed:
        return f"passed to `{ctx.module.code_for_node(passed[0].func)}(...)`"
    if _calls(stmt, name, ("close",)):
        return "closed inside the batch loop"
    if not isinstance(stmt, cst.SimpleStatementLine):
        return "used inside a block"
    return f"read by `{ctx.module.code_for_node(stmt).strip()}`"


def _refuse(ctx, name: str, stmt, how: str):
    raise Unsupported(
        NOT_A_LOADER,
        f"`{name}`, the tqdm bar the batch loop iterates, is {how}: a bar bound before the "
        "loop is converted when only its display calls (set_postfix, set_description, "
        "update, close, write) follow -- the Trainer iterates the loader and shows its own "
        "bar",
        stmt,
    )
