"""Pattern: a list of the optimizers and one of their schedulers (pix2pix's BaseModel).

    optimizers = [optimizer_G, optimizer_D]          configure_optimizers builds them, then
    schedulers = [get_scheduler(o, opt)         ->   both lists, and returns `optimizers, schedulers`
                  for o in optimizers]
    for epoch in range(n):
        for data in loader: ...                      (several optimizers: manual optimization)
        lr = optimizers[0].param_groups[0]["lr"]     -> self.optimizers()[0].param_groups[0]["lr"]
        for scheduler in schedulers:                 -> for scheduler in self.lr_schedulers():
            scheduler.step()                                scheduler.step()

Under manual optimization `self.optimizers()` is the list of the optimizers configure_optimizers
returned, in its order, and `self.lr_schedulers()` the list of their schedulers; Lightning steps
none of them, so a scheduler steps where the script stepped it. A list literal naming exactly
the loop's optimizers, in the order they are built, is the first list; a list comprehension
over it building one scheduler on each (`torch.optim.lr_scheduler` or a function of the script
read as one, scheduler_factories.py) is the second, when neither is bound again, changed
(`append`, an item set) or handed to anything: read by a constant index, iterated, or given
to `len()`, in the loop only.

Left alone, those statements stay before the loop and read optimizers the LightningModule
now builds itself: TL106 names the line (a list in another order or of other objects, one
changed or read after the loop, a scheduler list beside a named scheduler).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.statements import single_assign
from .bindings import optim_kind
from .scheduler_factories import built_on

RULES = ()


def bind(ctx, plan, steps) -> None:
    if not plan.manual_optimization or len(plan.optimizers) < 2:
        return
    if any(o.stmt is None or o.given for o in plan.optimizers):
        return
    names = [o.name for o in plan.optimizers]
    for stmt in ctx.scope_before:
        found = single_assign(stmt)
        if found is None or not isinstance(found[1], cst.List):
            continue
        name, value = found
        if [_name(e) for e in value.elements] != names:
            continue
        schedulers = _scheduler_list(ctx, name)
        if schedulers is not None and any(o.scheduler for o in plan.optimizers):
            schedulers = None  # a second scheduler on an optimizer: left to TL106
        reader = [schedulers[1]] if schedulers else []
        if _only_read(ctx, name, stmt, reader):
            plan.optimizer_list = (name, stmt)
            plan.remove_stmts.append(stmt)
            if schedulers is not None:
                plan.scheduler_list = schedulers
                plan.remove_stmts.append(schedulers[1])
            return


def _name(element) -> str | None:
    if isinstance(element, cst.Element) and isinstance(element.value, cst.Name):
        return element.value.value
    return None


def _scheduler_list(ctx, listed: str) -> tuple[str, cst.CSTNode] | None:
    """(name, statement) of `name = [Scheduler(v, ...) for v in <listed>]`, one scheduler
    built on each optimizer of the list, read as `_only_read` allows; or None."""
    for stmt in ctx.scope_before:
        found = single_assign(stmt)
        if found is None or not m.matches(
            found[1],
            m.ListComp(
                elt=m.Call(),
                for_in=m.CompFor(target=m.Name(), iter=m.Name(listed), ifs=[], inner_for_in=None),
            ),
        ):
            continue
        name, value = found
        if value.for_in.asynchronous is not None:
            continue
        if optim_kind(ctx, (stmt, value.elt)) != "scheduler":
            continue
        if not m.matches(built_on(ctx, value.elt), m.Name(value.for_in.target.value)):
            continue
        if _only_read(ctx, name, stmt, []):
            return name, stmt
    return None


def _only_read(ctx, name: str, bound: cst.CSTNode, readers: list) -> bool:
    """`name` is bound once before the loop, by `bound`, and read nowhere but in the loop, by
    a constant index, as what a `for` iterates, or as `len()`'s argument (so it is the list
    `self.optimizers()` / `self.lr_schedulers()` returns there); `readers`: statements before
    the loop that may read it too (the scheduler list built over the optimizers')."""
    binding, count = ctx.binding(name)
    if count != 1 or binding is None or binding[0] is not bound:
        return False
    index = ctx.scope_before.index(bound)
    for stmt in [*ctx.scope_before[index + 1 :], *ctx.scope_after]:
        if m.findall(stmt, m.Name(name)) and not any(stmt is r for r in readers):
            return False
    return _reads_allowed(ctx.loop, name)


def _reads_allowed(node: cst.CSTNode, name: str) -> bool:
    uses = [
        n
        for n in m.findall(node, m.Name(name))
        if not any(n is a.attr for a in m.findall(node, m.Attribute(attr=m.Name(name))))
    ]
    allowed = set()
    for sub in m.findall(node, m.Subscript(value=m.Name(name))):
        if len(sub.slice) == 1 and m.matches(
            sub.slice[0],
            m.SubscriptElement(m.Index(m.Integer() | m.UnaryOperation(m.Minus(), m.Integer()))),
        ):
            allowed.add(id(sub.value))
    allowed |= {
        id(f.iter) for f in m.findall(node, m.For(iter=m.Name(name)) | m.CompFor(iter=m.Name(name)))
    }
    allowed |= {
        id(c.args[0].value)
        for c in m.findall(node, m.Call(func=m.Name("len"), args=[m.Arg(m.Name(name))]))
    }
    stored = {
        id(t)
        for target in m.findall(node, m.AssignTarget() | m.AugAssign() | m.Del())
        for t in m.findall(
            getattr(target, "target", cst.Name("_")), m.Subscript(value=m.Name(name))
        )
    }
    return all(id(u) in allowed for u in uses) and not stored
