"""Pattern: reads of the DataParallel wrapper's `.module`, once the wrap is removed.

The conversion removes `net = nn.DataParallel(net)` (the Trainer's strategy wraps the model
now), so what the script held as the wrapper is the bare model, which has no `.module`:

    torch.save(net.module if use_cuda else net, ...)     -> torch.save(net, ...)
    torch.save(net.module.state_dict(), ...)             -> torch.save(net.state_dict(), ...)
    getattr(net, "module")                               -> net
    net.module if hasattr(net, "module") else net        -> net

Rewritten in the epoch's code (the inlined helpers included): the wrapper's `.module` reads as
the model it wrapped, and a choice between the two that is then the same on both sides is
that one. Tests asking the object itself (`hasattr(net, "module")`, `isinstance(net,
nn.DataParallel)`, `getattr(net, "module", net)`) stay: at run time they see the bare model
and take the branch written for it, as the script did without the wrap.

Refused (TL330): a `.module` read of the wrapper left in code the epoch's rewriting does not
reach (after the loop, or in a function of the script kept as one, reading the model or handed
it) once the wrap goes: kept, it raises AttributeError on the GPUs the wrap ran on. Not one
under a test asking the object itself (`if isinstance(model, nn.DataParallel):
torch.save(model.module.state_dict(), ...)`, `model.module if hasattr(model, "module") else
model`): the bare model takes the other branch, as the script run without the wrap did.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..rule import Rule
from .data_parallel import is_data_parallel

WRAPPER_MODULE = Rule(
    "TL330",
    "the DataParallel wrapper's `.module` read where the conversion removes the wrap",
    """The conversion removes `model = nn.DataParallel(model)`: the Trainer's strategy wraps
    the model, and the script's name holds the bare model, which has no `.module`. Reads of it
    in the epoch's code become the model itself; one left elsewhere (after the loop, in a
    function handed the model) would raise AttributeError on the GPUs the wrap ran on.""",
    """Read the model through `getattr(model, "module", model)`, or keep the unwrapped model
    in a name of its own before wrapping it (`raw = model; model = nn.DataParallel(raw)`).""",
    """
    import sys

    use_cuda = torch.cuda.is_available()
    if use_cuda:
        model.cuda()
        model = torch.nn.DataParallel(model)
    for epoch in range(2):
        for x, y in loader:
            if use_cuda:
                x, y = x.cuda(), y.cuda()
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    torch.save(model.module.state_dict(), "model.pt")
    """,
)

RULES = (WRAPPER_MODULE,)


def _wrappers(ctx) -> dict[str, str]:
    """wrapper name -> the name it wraps, for each `w = nn.DataParallel(inner, ...)` (also
    `.cuda()`-chained, also under an `if`) before the loop."""
    found: dict[str, str] = {}
    for stmt in ctx.scope_before:
        for assign in m.findall(stmt, m.Assign(targets=[m.AssignTarget(m.Name())])):
            calls = [c for c in m.findall(assign.value, m.Call()) if is_data_parallel(ctx, c)]
            if calls and calls[0].args and isinstance(calls[0].args[0].value, cst.Name):
                found[assign.targets[0].target.value] = calls[0].args[0].value.value
    return found


class _ReadAsModel(cst.CSTTransformer):
    """`w.module` / `getattr(w, "module")` -> the wrapped name; `a if t else a` -> `a`."""

    def __init__(self, wrappers: dict[str, str]) -> None:
        super().__init__()
        self.wrappers = wrappers

    def _inner(self, node, like):
        return cst.Name(self.wrappers[node.value], lpar=like.lpar, rpar=like.rpar)

    def leave_Attribute(self, original_node, updated_node):
        value = updated_node.value
        if (
            updated_node.attr.value == "module"
            and isinstance(value, cst.Name)
            and value.value in self.wrappers
        ):
            return self._inner(value, updated_node)
        return updated_node

    def leave_Call(self, original_node, updated_node):
        if (
            m.matches(updated_node.func, m.Name("getattr"))
            and len(updated_node.args) == 2
            and isinstance(updated_node.args[0].value, cst.Name)
            and updated_node.args[0].value.value in self.wrappers
            and m.matches(
                updated_node.args[1].value, m.SimpleString('"module"') | m.SimpleString("'module'")
            )
        ):
            return self._inner(updated_node.args[0].value, updated_node)
        return updated_node

    def leave_IfExp(self, original_node, updated_node):
        if updated_node.body.deep_equals(updated_node.orelse):
            return updated_node.body.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        return updated_node


def _module_reads(node, names) -> list:
    return [
        a
        for a in m.findall(node, m.Attribute(m.Name(), m.Name("module")))
        if a.value.value in names
    ]


class _UnguardedReads(cst.CSTVisitor):
    """`.module` reads of `names` outside the true branch of a test asking the object itself
    (`if isinstance(model, nn.DataParallel):`, `... if hasattr(model, "module") else ...`):
    once the wrap is removed that branch never runs, as in the script run without the wrap."""

    def __init__(self, names) -> None:
        super().__init__()
        self.names = names
        self.found: list[cst.Attribute] = []

    def _asks_the_wrapper(self, test) -> bool:
        if not (
            isinstance(test, cst.Call)
            and m.matches(test.func, m.Name("isinstance") | m.Name("hasattr"))
            and len(test.args) == 2
            and isinstance(test.args[0].value, cst.Name)
            and test.args[0].value.value in self.names
        ):
            return False
        what = test.args[1].value
        if test.func.value == "hasattr":
            return m.matches(what, m.SimpleString('"module"') | m.SimpleString("'module'"))
        classes = what.elements if isinstance(what, cst.Tuple) else [what]
        # `DataParallel`, `nn.DataParallel`, `nn.parallel.DistributedDataParallel`
        spelled = [c.value if isinstance(c, cst.Element) else c for c in classes]
        return all(
            isinstance(c, (cst.Name, cst.Attribute))
            and (c.value if isinstance(c, cst.Name) else c.attr.value).endswith("DataParallel")
            for c in spelled
        )

    def visit_If(self, node) -> bool:
        if not self._asks_the_wrapper(node.test):
            return True
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_IfExp(self, node) -> bool:
        if not self._asks_the_wrapper(node.test):
            return True
        node.orelse.visit(self)
        return False

    def visit_Attribute(self, node) -> None:
        if (
            node.attr.value == "module"
            and isinstance(node.value, cst.Name)
            and node.value.value in self.names
        ):
            self.found.append(node)


def _unguarded_module_reads(node, names) -> list:
    visitor = _UnguardedReads(names)
    node.visit(visitor)
    return visitor.found


def epoch_body(ctx, stmts):
    wrappers = _wrappers(ctx)
    if not wrappers:
        return stmts
    ctx.found["data_parallel_module"] = wrappers
    out = []
    for stmt in stmts:
        if not _module_reads(stmt, wrappers) and not m.findall(stmt, m.Call(m.Name("getattr"))):
            out.append(stmt)  # the node itself: other patterns know it by identity
            continue
        new = stmt.visit(_ReadAsModel(wrappers))
        if new.deep_equals(stmt):
            out.append(stmt)
            continue
        rewritten = ctx.found.setdefault("data_parallel_module_reads", [])
        rewritten += [(stmt, a.value.value) for a in _module_reads(stmt, wrappers)]
        origins = ctx.found.setdefault("inlined_at", {})  # refusals name the script's line
        origins[id(new)] = origins.get(id(stmt), stmt)
        out.append(new)
    return out


def read(ctx, plan, steps) -> None:
    """A wrapper's `.module` read left in code the epoch's rewriting does not reach, once
    the wrap is removed: TL330."""
    wrappers = ctx.found.get("data_parallel_module")
    if not wrappers:
        return
    names = set(wrappers) | {n for model in plan.models for n in (model.name, *model.aliases)}
    models = {n for model in plan.models for n in (model.name, *model.aliases)}
    removed = bool(ctx.found.get("data_parallel_conditions"))
    for stmt, wrapper in ctx.found.get("data_parallel_module_reads", []):
        if not removed or wrapper not in models:  # a wrapper the conversion keeps
            ctx.block(
                WRAPPER_MODULE,
                f"`{wrapper}.module` reads a DataParallel wrapper the conversion keeps (it wraps "
                "no model the optimizer trains)",
                stmt,
            )
            return
    if not removed:
        return
    inlined = set(plan.inlined_helpers)
    gone = {id(s) for s in plan.remove_stmts}
    places = [s for s in ctx.scope_after if id(s) not in gone]
    for stmt in places:
        found = _unguarded_module_reads(stmt, names)
        if found:
            ctx.block(WRAPPER_MODULE, _why(ctx, found[0], "after the loop"), stmt)
            return
    handed: dict[str, set[str]] = {}  # kept function -> its parameters given the model
    for call in m.findall(ctx.module, m.Call(func=m.Name())):
        for position, arg in enumerate(call.args):
            if isinstance(arg.value, cst.Name) and arg.value.value in names:
                handed.setdefault(call.func.value, set()).add(
                    arg.keyword.value if arg.keyword is not None else position
                )
    for function in m.findall(ctx.module, m.FunctionDef()):
        if function.name.value in inlined or function is ctx.function:
            continue
        params = [p.name.value for p in function.params.params]
        given = {
            p if isinstance(p, str) else params[p] if p < len(params) else None
            for p in handed.get(function.name.value, ())
        }
        # the wrapper's own name read from the module, or a parameter handed it
        found = _unguarded_module_reads(function, (names - set(params)) | (given - {None}))
        if found:
            where = f"in `{function.name.value}()`, kept as a function"
            ctx.block(WRAPPER_MODULE, _why(ctx, found[0], where), found[0])
            return


def _why(ctx, read, where: str) -> str:
    shown = ctx.module.code_for_node(read)
    return (
        f"`{shown}` {where} reads the DataParallel wrapper the conversion removes (the "
        "Trainer's strategy wraps the model): the bare model has no `.module`"
    )
