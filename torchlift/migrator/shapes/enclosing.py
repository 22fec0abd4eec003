"""The blocks between a module and its training loop, and the `with` blocks kept around it.

    best = float("inf")                          best = float("inf")
    with TemporaryDirectory() as tmp:       ->   with TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "best.pt")          path = os.path.join(tmp, "best.pt")
        for epoch in range(N): ...                   lit_model = LitNet(...)
        net.load_state_dict(torch.load(path))        trainer = L.Trainer(...)
                                                     trainer.fit(lit_model, loader)
                                                     net.load_state_dict(torch.load(path))

Plain `with` statements (several nested ones too) between the loop and the module, a function
body or `if __name__` stay where they are, and the Trainer statements replace the loop in
the innermost body. A `with` body opens no scope: what the statements before it and its
header (`as tmp`) bind is what the loop sees, so the loop's scope is read as one flat body
(LoopContext.locate). Each header stands in that body as a `with` holding only `pass`: it
binds its targets without claiming a value for them (`tmp` is not `TemporaryDirectory()`).

Left alone (TL103): `async with` (what an asynchronous context awaits around training is not
read, so it is not kept around the Trainer); context managers that change what training
means -- grad mode (`torch.no_grad()`, `torch.inference_mode()`, `torch.set_grad_enabled(...)`:
backward would fail or be switched off) and DDP's uneven-input `model.join()` / `Join(...)`
(it shadows the collectives of the script's own loop, not the Trainer's); a tqdm bar's `with`
holding more than the loop (the bar alone is wrappers.py's).
"""

from __future__ import annotations

import libcst as cst

from ..analysis.qualnames import GRAD_MODES, TQDM

JOIN = frozenset({"torch.distributed.algorithms.Join", "torch.distributed.algorithms.join.Join"})


def holders(module: cst.Module, node: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The compound statements from the module down to the one whose block holds `node`
    directly (empty at module level), or None if `node` is no statement of the module."""

    def search(body, path):
        for stmt in body:
            if stmt is node:
                return path
            for block in blocks(stmt):
                found = search(block, [*path, stmt])
                if found is not None:
                    return found
        return None

    return search(module.body, [])


def blocks(stmt):
    """The statement lists of a compound statement: its body, `elif`/`else`, handlers,
    `finally`, cases."""
    if isinstance(stmt, cst.SimpleStatementLine):
        return
    orelse = getattr(stmt, "orelse", None)
    parts = [stmt, *getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())]
    parts += [orelse if isinstance(orelse, cst.Else) else None]
    parts += [getattr(stmt, "finalbody", None)]
    for part in parts:
        block = getattr(part, "body", None)
        if isinstance(block, cst.IndentedBlock):
            yield block.body
    if isinstance(orelse, cst.If):  # elif
        yield from blocks(orelse)


def is_progress_bar(ctx, stmt: cst.With) -> bool:
    return any(
        isinstance(item.item, cst.Call) and ctx.call_qualnames(item.item) & TQDM
        for item in stmt.items
    )


def kept_withs(ctx, path: list) -> tuple[list[cst.With | cst.For], str | None]:
    """(the `with` statements and loops over runs (runs.py: `ctx.runs`) ending `path`,
    outermost first; why one of them cannot stay around the Trainer statements, or None)."""
    withs: list[cst.With | cst.For] = []
    runs = {id(run) for run in getattr(ctx, "runs", ())}
    for stmt in reversed(path):
        if id(stmt) in runs:
            withs.insert(0, stmt)
            continue
        if not isinstance(stmt, cst.With):
            break
        why_not = _why_not_kept(ctx, stmt)
        if why_not is not None:
            return [], why_not
        withs.insert(0, stmt)
    return withs, None


def _why_not_kept(ctx, stmt: cst.With) -> str | None:
    if stmt.asynchronous is not None:
        return (
            "`async with` around the training loop: asynchronous contexts are not kept "
            "around the Trainer"
        )
    if is_progress_bar(ctx, stmt):
        return "the tqdm progress bar `with` around the training loop holds other statements"
    for item in stmt.items:
        if not isinstance(item.item, cst.Call):
            continue
        names = ctx.call_qualnames(item.item)
        if names & GRAD_MODES:
            return (
                "`with` around the training loop changes grad mode "
                f"(`{sorted(names & GRAD_MODES)[0]}`): it would hold the Trainer too"
            )
        func = item.item.func
        if names & JOIN or (isinstance(func, cst.Attribute) and func.attr.value == "join"):
            return (
                "DDP's `join()` context manager around the training loop: uneven inputs are "
                "the strategy's business under the Trainer"
            )
    return None


def header(stmt: cst.With | cst.For) -> cst.With | cst.For:
    """The `with` statement's header alone (its body `pass`): it binds the `as` targets and
    reads the context managers, as the body's statements see them (a loop over runs alike:
    its target, bound from its iterable)."""
    body = cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])])
    if isinstance(stmt, cst.For):
        return stmt.with_changes(body=body, orelse=None)
    return stmt.with_changes(body=body)
