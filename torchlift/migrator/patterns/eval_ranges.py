"""Pattern: an evaluation pass over `range(...)` numbers, read as a pass over a generated loader.

The language-model tutorials evaluate over tensors, not a DataLoader:

    model.eval()                                  # (inlined from `evaluate(model, val_data)`)
    total_loss = 0.0
    with torch.no_grad():
        for i in range(0, val_data.size(0) - 1, bptt):     for i in val_indices:
            data, targets = get_batch(val_data, i)    ->        ...
            ...

    val_indices = DataLoader(range(0, val_data.size(0) - 1, bptt), batch_size=None,
                             generator=torch.Generator())     (before the Trainer, fit's
                                                               validation loader)

The same numbers in the same order, one per `validation_step`, from a loader with its own
generator (its iterator draws nothing from the global RNG); eval_passes then reads the pass as
any other. The range is built once, before `fit`: it must read only names bound before the
epoch loop that the epoch loop does not change: as shapes/epoch_batch.py's `maybe_changed` says (a list the epoch
grows changes its `len`), and for a name read only through its shape (`x.size(0)`, `len(x)`,
`x.shape`) also by a rebinding or an in-place reshape (`x.resize_(...)`). Refused (TL192): a range that
reads a name bound in the epoch or one the epoch loop may change. Taken only after the batch
loop, under `no_grad` / `inference_mode`, after a `.eval()` call of the epoch (a range loop
without one runs in train mode and stays epoch-end code).
"""

from __future__ import annotations

import builtins

import libcst as cst
import libcst.matchers as m

from ..analysis.names import bound_names, collect_names
from ..analysis.statements import (
    BACKWARD,
    LOOP,
    OPTIMIZER_CALL,
    call_method,
    contains,
    statements,
)
from ..rule import Rule
from ..shapes.epoch_batch import how_changed, maybe_changed
from ..shapes.iteration import number_loader
from .eval_passes import _is_no_grad
from .eval_shapes import _replace

CHANGING_EVAL_RANGE = Rule(
    "TL192",
    "evaluation loop over range(...) reads what the epoch loop changes",
    """An evaluation pass over `range(...)` (`for i in range(0, val_data.size(0) - 1, bptt):`)
    becomes `validation_step` over a loader of the same numbers, built once before `fit`.
    That is faithful only when the numbers are the same every epoch: the range must read
    names bound before the epoch loop, which the epoch loop does not rebind or change (a
    tensor read through its size only must not be rebound or reshaped in place).""",
    """Compute the evaluation data before the epoch loop and leave it unchanged, or iterate a
    DataLoader.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        val_data = val_data[1:]
        model.eval()
        with torch.no_grad():
            for i in range(0, val_data.size(0) - 1, bptt):
                print(criterion(model(val_data[i]), val_data[i + 1]).item())
    """,
)

RULES = (CHANGING_EVAL_RANGE,)

_SHAPE_CALLS = frozenset({"size", "dim", "numel"})
# tensor methods that change a tensor's shape in place
_RESHAPES_IN_PLACE = frozenset(
    "resize_ resize_as_ set_ squeeze_ unsqueeze_ t_ transpose_ swapdims_ swapaxes_ "
    "as_strided_".split()
)
_BUILTINS = frozenset(dir(builtins))


def epoch_body(ctx, stmts):
    """The first loop after the batch loop, `with no_grad(): for T in range(...)` after a
    `.eval()` call, iterating a generated loader of the same numbers instead (its statement
    noted for the Trainer call)."""
    batch_at = next((i for i, s in enumerate(stmts) if contains(s, BACKWARD)), None)
    if batch_at is None:
        return stmts
    evaluated = False
    for i in range(batch_at + 1, len(stmts)):
        stmt = stmts[i]
        evaluated = evaluated or call_method(stmt, "eval") is not None
        if not contains(stmt, LOOP):
            continue
        numbers = _pass_range(ctx, stmt) if evaluated else None
        if numbers is None:
            return stmts
        problem = _changing(ctx, numbers, stmts)
        if problem:  # still read as the pass (refused already): no second message (TL147)
            reason, at = problem
            ctx.block(CHANGING_EVAL_RANGE, reason, at or stmt)
        code = ctx.module.code_for_node(numbers)
        loader, ctx.found["eval_loader_stmt"] = number_loader(
            ctx, "val_indices", code, "the evaluation loop's numbers"
        )
        return [*stmts[:i], _replace(stmt, numbers, cst.Name(loader)), *stmts[i + 1 :]]
    return stmts


def read(ctx, plan, steps) -> None:
    plan.eval_loader_stmt = ctx.found.get("eval_loader_stmt")


def _pass_range(ctx, stmt) -> cst.Call | None:
    """The `range(...)` call a `with no_grad(): for T in range(...)` pass iterates (through
    `enumerate` / `tqdm`), when its loop holds no training."""
    if not (isinstance(stmt, cst.With) and _is_no_grad(ctx, stmt)):
        return None
    loops = [s for s in stmt.body.body if isinstance(s, cst.For)]
    if len(loops) != 1 or contains(loops[0].body, BACKWARD | OPTIMIZER_CALL):
        return None
    iterator = ctx.unwrap_iter(loops[0])[0]
    if isinstance(iterator, cst.Call) and "builtins.range" in ctx.call_qualnames(iterator):
        return iterator
    return None


def _changing(
    ctx,
    numbers: cst.Call,
    stmts,
    what: str = "the evaluation loop's range(...)",
    built: str = "its numbers are built once, before `fit`",
) -> tuple[str, cst.CSTNode | None] | None:
    """Why the range's numbers (`what`, built once as `built` says) may differ between epochs
    (or cannot be built before the epoch loop) and the epoch statement changing them if
    known, or None."""
    reads = collect_names(numbers).reads - _BUILTINS
    epoch = list(stmts)
    target = collect_names(cst.AssignTarget(ctx.loop.target)).writes
    shape_only = {name for name in reads if _read_as_shape_only(numbers, name)}
    changed = reads & target
    changed_values = maybe_changed(ctx, cst.Module(body=epoch), reads)
    changed |= changed_values
    changed |= shape_only & collect_names(*epoch).writes
    changed |= reads & _declared_global(ctx.module)
    if _reshapes_in_place(ctx.module):  # on a parameter, maybe: no name to follow
        changed |= shape_only
    if changed:
        name = sorted(changed)[0]
        if name in shape_only - target - changed_values:  # by a rebinding or a reshape only
            at = next((s for s in _simple_statements(epoch) if name in bound_names(s)), None)
            how = "rebinds" if at is not None else "may reshape in place"
            if at is None:  # the in-place reshape, when the epoch holds it
                at = next((s for s in _simple_statements(epoch) if _reshapes_in_place(s)), None)
        else:
            how, at = how_changed(ctx, ctx.loop, name, epoch)
        if at is None and name in _declared_global(ctx.module):
            how = "may change (a function of the file declares it `global`)"
        return f"{what} reads `{name}`, which the epoch loop {how} ({built})", at
    bound_before = set(ctx.params) | set(ctx.module_defs)
    for stmt in ctx.scope_before:
        bound_before |= bound_names(stmt)
    unbound = sorted(reads - bound_before)
    if unbound:
        return (
            f"{what} reads `{unbound[0]}`, which is not bound before the epoch loop ({built})",
            None,
        )
    return None


def _simple_statements(stmts) -> list:
    return [s for top in stmts for s in statements(top) if isinstance(s, cst.SimpleStatementLine)]


def _read_as_shape_only(numbers: cst.Call, name: str) -> bool:
    """Every read of `name` in the range is its shape: `name.size(...)`, `name.dim()`,
    `name.numel()`, `name.shape`, `len(name)`."""
    total = len(m.findall(numbers, m.Name(name)))
    shape = m.Call(
        func=m.Attribute(value=m.Name(name), attr=m.Name(m.MatchIfTrue(_SHAPE_CALLS.__contains__)))
    )
    shaped = len(m.findall(numbers, shape))
    shaped += len(m.findall(numbers, m.Attribute(value=m.Name(name), attr=m.Name("shape"))))
    shaped += len(m.findall(numbers, m.Call(func=m.Name("len"), args=[m.Arg(m.Name(name))])))
    return total == shaped


def _declared_global(module: cst.Module) -> set[str]:
    """Names some function of the file declares `global` (it may rebind them)."""
    return {name.name.value for node in m.findall(module, m.Global()) for name in node.names}


def _reshapes_in_place(module: cst.CSTNode) -> bool:
    """Whether the file (or a statement) calls an in-place reshape (`x.resize_(...)`)."""
    method = m.Name(m.MatchIfTrue(_RESHAPES_IN_PLACE.__contains__))
    return bool(m.findall(module, m.Call(func=m.Attribute(attr=method))))
