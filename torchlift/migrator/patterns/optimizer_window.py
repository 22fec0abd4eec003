"""What an optimizer's (or its scheduler's) build reads, changed before the loop starts.

    lr = 0.1
    optimizer = SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=lr)
    for p in model.backbone.parameters():           unfreezes after the build: the
        p.requires_grad = True                      optimizer does not hold the backbone
    lr = 0.5                                        rebinds what the build read

The conversion builds the optimizer in `configure_optimizers`, when `fit` starts, from the
names the LightningModule is given where the loop stood: it would read the new `lr` and keep
the unfrozen backbone. So when a statement between the build and the loop may change what the
build reads -- rebinds or changes in place a name it reads (analysis as
shapes/epoch_batch.py's `maybe_changed`: a parameter list extended, `args.lr = ...`), stores
into a model it trains (`model.fc = nn.Linear(...)`: other parameters), or sets
`requires_grad` (`p.requires_grad = ...`, `requires_grad_()`, also inside a function of the
script it calls) when the build reads it (`filter(lambda p: p.requires_grad, ...)`, also in a
function or method of the script it calls) -- kept_optimizers.py keeps the script's optimizer, built where the script
built it, and hands it to the module: the same groups, whatever happens after.

Names bound by an import (`torch.manual_seed(0)` between) are not changes of what they read.
What the build reads includes the lists a group display it reads holds (`groups = [{"params":
decay}, ...]` holds `decay`: `decay.clear()` after the build empties the group the module
would be handed).

A build that draws random numbers (`[p for p in model.parameters() if torch.rand(()) < 0.5]`,
`random.random()`) is kept too: built again when fit starts it would draw later, after the
draws of the code between (another choice of parameters, and other data).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import scope_reads
from ..analysis.statements import single_assign
from ..analysis.torch_draws import draws, functions_drawing

_SETS_REQUIRES_GRAD = m.AssignTarget(target=m.Attribute(attr=m.Name("requires_grad"))) | m.Call(
    func=m.Attribute(attr=m.Name("requires_grad_"))
)


def changed_since_built(ctx, plan, built: list) -> cst.CSTNode | None:
    """The first statement between one of the `built` statements (an optimizer's, its
    scheduler's) and the loop that may change what that statement reads; None when there is
    none."""
    from ..shapes.epoch_batch import maybe_changed  # shapes import the patterns

    models = {model.name for model in plan.models}
    for stmt in built:
        index = next((i for i, s in enumerate(ctx.scope_before) if s is stmt), None)
        if index is None:
            continue
        reads = {n for n in scope_reads(stmt) if not _imported(ctx.module, n)}
        reads |= _held_by_displays(ctx, ctx.scope_before[:index], reads)
        names = reads - models
        trained = reads & models
        for later in ctx.scope_before[index + 1 :]:
            if any(later is s for s in built) or isinstance(later, (cst.FunctionDef, cst.ClassDef)):
                continue
            if names and maybe_changed(ctx, later, names):
                return later
            if _stores_into(later, trained):
                return later
            if _sets_requires_grad(ctx, later, set()) and _reads_requires_grad(ctx, stmt, set()):
                return later
    return None


def draws_when_built(ctx, built: list) -> cst.CSTNode | None:
    """The first of the `built` statements that draws from torch's, Python's or numpy's
    random generators (itself or through a function of the script); None when none does."""
    drawing = functions_drawing(ctx)
    for stmt in built:
        if stmt is None:
            continue
        if draws(ctx, stmt, drawing, loaders=False):
            return stmt
        for call in m.findall(stmt, m.Call()):
            if any(q.startswith(_OTHER_GENERATORS) for q in ctx.call_qualnames(call)):
                return stmt
    return None


_OTHER_GENERATORS = ("random.", "numpy.random.")


def _held_by_displays(ctx, before: list, names: set[str]) -> set[str]:
    """The names the objects bound to `names` hold by reference: a name bound in `before` to
    a list, tuple or dict display holds what its elements read (`groups = [{"params": decay},
    ...]` holds `decay`), followed through the names found."""
    displays = (cst.List, cst.Tuple, cst.Dict, cst.Set)
    found: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        for stmt in before:
            assign = single_assign(stmt)
            if assign is None or assign[0] != name or not isinstance(assign[1], displays):
                continue
            held = {n for n in scope_reads(stmt) if not _imported(ctx.module, n)}
            todo += sorted(held - found - names)
            found |= held
    return found


def _stores_into(stmt: cst.CSTNode, models: set[str]) -> bool:
    """`stmt` stores into or deletes an attribute or item of one of `models`."""
    for node in m.findall(stmt, m.AssignTarget() | m.AugAssign() | m.Del()):
        target = node.target
        if not isinstance(target, (cst.Attribute, cst.Subscript)):
            continue
        while isinstance(target, (cst.Attribute, cst.Subscript)):
            target = target.value
        if isinstance(target, cst.Name) and target.value in models:
            return True
    return False


def _sets_requires_grad(ctx, node: cst.CSTNode, seen: set[str]) -> bool:
    """`node` sets a tensor's `requires_grad`, itself or through a function of the script."""
    if m.findall(node, _SETS_REQUIRES_GRAD):
        return True
    for call in m.findall(node, m.Call(func=m.Name())):
        name = call.func.value
        if name in seen:
            continue
        seen.add(name)
        for definition in m.findall(ctx.module, m.FunctionDef(name=m.Name(name))):
            if _sets_requires_grad(ctx, definition, seen):
                return True
    return False


def _reads_requires_grad(ctx, node: cst.CSTNode, seen: set[str]) -> bool:
    """`node` reads a tensor's `requires_grad` (`filter(lambda p: p.requires_grad, ...)`),
    itself or in a function or method of the script of a name it calls (nanoGPT's
    `model.configure_optimizers(...)` keeps the parameters that require grad)."""
    if m.findall(node, m.Attribute(attr=m.Name("requires_grad"))):
        return True
    for call in m.findall(node, m.Call(func=m.Name() | m.Attribute())):
        name = call.func.value if isinstance(call.func, cst.Name) else call.func.attr.value
        if name in seen:
            continue
        seen.add(name)
        for definition in m.findall(ctx.module, m.FunctionDef(name=m.Name(name))):
            if _reads_requires_grad(ctx, definition, seen):
                return True
    return False


def _imported(module: cst.Module, name: str) -> bool:
    """`name` is bound by an import somewhere in the file (a module, not a value)."""
    for node in m.findall(module, m.Import() | m.ImportFrom()):
        if isinstance(node.names, cst.ImportStar):
            continue
        for alias in node.names:
            bound = alias.asname.name if alias.asname else alias.name
            while isinstance(bound, cst.Attribute) and isinstance(node, cst.Import):
                bound = bound.value
            if isinstance(bound, cst.Name) and bound.value == name:
                return True
    return False
