"""Collectives a script calls through its own functions (`reduce_mean(value, world_size)`
calling `dist.all_reduce`, a `validate(...)` calling it), placed like the direct calls.

    def reduce_mean(value, world_size):
        t = torch.tensor([value])
        dist.all_reduce(t, op=ReduceOp.SUM)        every call of reduce_mean is a collective
        return (t / world_size).item()

    for epoch in range(N):
        for x, y in loader: ...
        train_loss = reduce_mean(running, ws)       kept: in the epoch's code after the batch
                                                    loop, which every rank runs in a hook
Refused (TL163), naming the call of the function: one in the step, under a test of the rank,
outside the epoch's code (the same places as a direct call: process_group.py), and a function
whose collectives run in a loop or under a test of its own (how many a rank calls would
depend on what that function reads).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ...analysis.function_reads import functions_doing, module_functions
from ...source.code_text import code_of
from .facts import DESTROY_GROUP, GROUP_QUERIES, INIT_GROUP

_NOT_COLLECTIVE = {INIT_GROUP, DESTROY_GROUP, *GROUP_QUERIES}


def is_collective(ctx, call: cst.Call) -> bool:
    """A torch.distributed call other than starting, ending or asking about the group."""
    names = ctx.call_qualnames(call)
    return any(q.startswith("torch.distributed.") for q in names) and not (names & _NOT_COLLECTIVE)


def collective_helpers(ctx, skip: cst.CSTNode | None) -> dict[str, cst.FunctionDef]:
    """The script's module-level functions calling a collective, directly or through another
    of them (`skip`: the function holding the loop)."""
    functions = {n: f for n, f in module_functions(ctx.module).items() if f is not skip}

    def does(function, found: set[str]) -> bool:
        return any(
            is_collective(ctx, c) or (isinstance(c.func, cst.Name) and c.func.value in found)
            for c in m.findall(function.body, m.Call())
        )

    return {name: functions[name] for name in functions_doing(functions.values(), does)}


def nested_collective(ctx, helpers: dict, function: cst.FunctionDef) -> str | None:
    """The code of a collective (or of a call of another helper) `function` runs in a loop,
    under a test or in a nested scope, else None."""
    for stmt in function.body.body:
        for block in _nested(stmt):
            for call in m.findall(block, m.Call()):
                if is_collective(ctx, call) or (
                    isinstance(call.func, cst.Name) and call.func.value in helpers
                ):
                    return code_of(call.func)
    return None


def _nested(stmt) -> list:
    """What of a statement of a function body may run other than once: all of a compound
    statement but a `with` (whose own body is looked into), the lambdas and comprehensions
    of a simple one."""
    if isinstance(stmt, cst.With):
        return [n for s in stmt.body.body for n in _nested(s)]
    if isinstance(stmt, cst.SimpleStatementLine):
        return m.findall(
            stmt, m.Lambda() | m.ListComp() | m.SetComp() | m.DictComp() | m.GeneratorExp()
        )
    return [stmt]
