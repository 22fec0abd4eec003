"""A bar wrapping the loop, updated from inside the script's passes: its display calls dropped.

    def test(model, epoch):
        for data, target in test_loader:
            ...
            pbar.update(pbar_update)            -> removed: the Trainer draws its own bar
            if i % 10 == 0:
                pbar.set_description("eval")    -> removed (the `if` too when nothing else is in it
                                                   and its test changes nothing)
            pbar.write(f"...")                  -> tqdm.write(f"..."): the same line, the bar's
                                                   class method
    with tqdm(total=n_epoch) as pbar:           (the loop's wrapper, shapes/wrappers.py:
        for epoch in range(1, n_epoch + 1):      removed)
            train(model, epoch, log_interval)
            test(model, epoch)

The torchaudio tutorials write this: the bar of a `with` around the epoch loop (or one bound
before the loop and only counted, progress_bar.py's counter bars) advanced by the `train()` /
`test()` helpers helpers.py inlined. progress_bar.py drops the display calls standing directly
in the epoch or the batch loop; this module drops them anywhere else in the epoch (the
validation pass, an `if` of the batch loop). A display call is dropped only when its arguments
change nothing (analysis/output_effects.py: `pbar.update(step())` would lose the call's
effect). Refused (TL104), naming the use: any other use of the bar -- an attribute read
(`pbar.n` in a test), passed on, a display call computing something -- since no bar exists
once the Trainer draws its own.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..analysis.output_effects import pure_expression
from ..analysis.statements import BACKWARD, call_method, contains
from ..rule import Unsupported
from ..shapes.context import NOT_A_LOADER
from . import bound_bar, progress_bar

RULES = ()

_DROPPED = bound_bar.DISPLAY  # what only redraws the bar
_WHY = "progress bar's display call -> removed: the Trainer draws its own bar"


def bar_names(ctx) -> set[str]:
    """The bars of a `with` around the loop and the counted bars bound before it."""
    return set(ctx.found.get("wrapping_bars", ())) | set(ctx.found.get("counter_bars", {}))


def epoch_body(ctx, stmts):
    """Every statement but the batch loop (progress_bar.py claims the statements standing in
    it; `batch_statements` below takes the ones nested there)."""
    names = bar_names(ctx)
    if not names:
        return stmts
    batch = next((s for s in stmts if isinstance(s, cst.For) and contains(s, BACKWARD)), None)
    return _kept(ctx, stmts, names, batch)


def batch_statements(ctx, stmts):
    names = bar_names(ctx) | _bound_bar(ctx)
    if not names:
        return stmts
    return _kept(ctx, stmts, names, None)


def _bound_bar(ctx) -> set[str]:
    """The bar bound right before the batch loop (bound_bar.py): its display calls nested in
    the loop's blocks are dropped here, its top-level ones are progress_bar.py's."""
    bar = ctx.found.get("progress_bar")
    return {bar[0]} if bar else set()


def only_displays(ctx, stmt, names: set[str]) -> bool:
    """`stmt` is a block statement whose every use of the bars `names` is a display call with
    pure arguments (or `write`, the bar's class method) nested in its blocks, none in its own
    header (a test, an iterable): what `_strip` drops without refusing."""
    blocks = _blocks(stmt)
    if blocks is None or _mentions_outside_blocks(stmt, names):
        return False
    for _, block in blocks:
        for inner in block.body:
            if not _mentions(inner, names):
                continue
            if isinstance(inner, cst.SimpleStatementLine):
                if not (_display(ctx, inner, names) or _pure_write(ctx, inner, names)):
                    return False
            elif not only_displays(ctx, inner, names):
                return False
    return True


def _pure_write(ctx, stmt, names: set[str]) -> bool:
    receiver = call_method(stmt, "write")
    if not (isinstance(receiver, cst.Name) and receiver.value in names):
        return False
    return all(pure_expression(ctx, arg.value) for arg in stmt.body[0].value.args)


def _kept(ctx, stmts, names: set[str], batch) -> list:
    out = []
    for stmt in stmts:
        kept = stmt if stmt is batch else _strip(ctx, stmt, names, top=True)
        if kept is None:  # an `if` holding only display calls
            ctx.found.setdefault("bar_displays_dropped", []).append(stmt)
        else:
            out.append(kept)
    return out


def _strip(ctx, stmt, names: set[str], *, top: bool):
    """`stmt` without the display calls of the bars `names` nested in it (a display call
    standing alone at the top is progress_bar.py's: kept for its claim); `pbar.write(...)`
    as the bar class's `tqdm.write(...)`; TL104 for any other use."""
    if not _mentions(stmt, names):
        return stmt
    if isinstance(stmt, cst.SimpleStatementLine):
        if _display(ctx, stmt, names):
            return stmt if top else None
        written = _written(ctx, stmt, names)
        if written is not None:
            return written
        _refuse(ctx, stmt, names)
    blocks = _blocks(stmt)
    if blocks is None:
        _refuse(ctx, stmt, names)
    new = stmt
    for path, block in blocks:
        body = []
        for inner in block.body:
            kept = _strip(ctx, inner, names, top=False)
            if kept is None:
                ctx.found.setdefault("bar_displays_dropped", []).append(inner)
            else:
                body.append(kept)
        if not body:
            if _only_display_if(ctx, stmt):
                return None  # `if i % 10 == 0: pbar.set_description(...)`: the `if` goes too
            body = [cst.SimpleStatementLine([cst.Pass()])]
        new = _replace(new, path, block.with_changes(body=body))
    if _mentions_outside_blocks(new, names):
        _refuse(ctx, stmt, names)  # a test, an iterable, a `with` item reading the bar
    origins = ctx.found.setdefault("inlined_at", {})
    origins[id(new)] = origins.get(id(stmt), stmt)
    return new


def _only_display_if(ctx, stmt) -> bool:
    """An `if` with no other branch, whose test changes nothing: left empty, it goes whole."""
    return isinstance(stmt, cst.If) and stmt.orelse is None and pure_expression(ctx, stmt.test)


def _blocks(stmt):
    """(path, IndentedBlock) of every block of a compound statement, or None for a shape not
    read here (a one-line block, a `match`)."""
    found = []

    def walk(node, path):
        for field in ("body", "orelse", "finalbody"):
            child = getattr(node, field, None)
            if child is None:
                continue
            if isinstance(child, cst.IndentedBlock):
                found.append(((*path, field), child))
            elif isinstance(child, (cst.If, cst.Else, cst.Finally)):
                walk(child, (*path, field))
            else:
                return False
        for k, handler in enumerate(getattr(node, "handlers", ())):
            walk(handler, (*path, ("handlers", k)))
        return True

    if not isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
        return None
    walk(stmt, ())
    if any(not isinstance(b, cst.IndentedBlock) for _, b in found):
        return None
    return found


def _replace(node, path, value):
    head, *rest = path
    if isinstance(head, tuple):  # a handler of a `try`
        field, k = head
        items = list(getattr(node, field))
        items[k] = _replace(items[k], rest, value) if rest else value
        return node.with_changes(**{field: items})
    child = getattr(node, head)
    return node.with_changes(**{head: _replace(child, rest, value) if rest else value})


def _mentions_outside_blocks(node, names: set[str]) -> bool:
    """A bar name read by the statement's own header (a test, an iterable, a `with` item)."""
    blocks = {id(b) for _, b in _blocks(node) or ()}

    class Finder(cst.CSTVisitor):
        found = False

        def visit_IndentedBlock(self, block) -> bool:
            return id(block) not in blocks

        def visit_Name(self, name) -> None:
            if name.value in names:
                Finder.found = True

    node.visit(Finder())
    return Finder.found


def _display(ctx, stmt, names: set[str]) -> bool:
    for method in _DROPPED:
        receiver = call_method(stmt, method)
        if isinstance(receiver, cst.Name) and receiver.value in names:
            call = stmt.body[0].value
            return all(pure_expression(ctx, arg.value) for arg in call.args)
    return False


def _written(ctx, stmt, names: set[str]):
    """`pbar.write(...)` of a wrapping bar as `tqdm.write(...)` (a class method: the same
    text on the same stream), with pure arguments; else None."""
    receiver = call_method(stmt, "write")
    classes = ctx.found.get("wrapping_bar_classes", {})
    if not (isinstance(receiver, cst.Name) and receiver.value in classes):
        return None
    call = stmt.body[0].value
    if not all(pure_expression(ctx, arg.value) for arg in call.args):
        return None
    return stmt.deep_replace(call.func.value, classes[receiver.value])


def _mentions(stmt, names: set[str]) -> bool:
    use = collect_names(stmt)
    return bool(names & (use.reads | use.writes))


def _refuse(ctx, stmt, names: set[str]):
    name = sorted(names & (collect_names(stmt).reads | collect_names(stmt).writes))[0]
    code = ctx.module.code_for_node(stmt).strip().splitlines()[0]
    raise Unsupported(
        NOT_A_LOADER,
        f"`{name}`, the tqdm bar around the training loop, is used by `{code}`: the bar is "
        "dropped with its display calls (update, set_postfix, set_description, refresh, "
        "write of values computing nothing) -- the Trainer draws its own bar",
        stmt,
    )


def bind(ctx, plan, steps) -> None:
    """The change log: the bar's `with` and every display call dropped (a `set_postfix` the
    batch loop claimed is progress_bar.py's to explain, key by key)."""
    if isinstance(ctx.wrapper, cst.With):
        why = "progress bar's `with` -> removed: the Trainer draws its own bar"
        plan.explained.append((ctx.wrapper, None, why))
    names = bar_names(ctx)
    claimed = [
        s
        for s in steps.get("bar_displays", ())
        if call_method(s, "set_postfix") is None
        and m.matches(progress_bar.display_receiver(s), m.Name())
        and progress_bar.display_receiver(s).value in names
    ]
    dropped = [*ctx.found.get("bar_displays_dropped", ()), *claimed]
    origins = ctx.found.get("inlined_at", {})  # a helper's statement: its line in the helper
    plan.explained.extend((origins.get(id(stmt), stmt), None, _WHY) for stmt in dropped)
