"""Pattern: a batch loop over a generator of the script, created anew each epoch.

    def data_gen(V, batch_size, nbatches):       for epoch in range(4):
        for i in range(nbatches):                    data_iter = data_gen(V, 16, 12)
            data = torch.randint(1, V, (16, 10)) ->  for i in range(12):
            yield Batch(data, data)                      batch = next(data_iter)
                                                         ...step...
    for epoch in range(4):
        data_iter = data_gen(V, 16, 12)          (then the batch loop over range(...): a
        for i, batch in enumerate(data_iter):     generated loader of the batch numbers,
            ...step...                            epoch_batch.py's _read_range_batch_loop)

Why not hand the generator to the Trainer as its loader: Lightning (and the runtime, which
follows it) reads the next batch before running the step on the current one, so a generator
drawing from torch's global generator (the copy task's `torch.randint`) would draw batch i+1
before step i's dropout: every later number differs. Fetched by `next()` inside the step
instead, the draws come in the script's order; the Trainer iterates numbers, from a loader
with its own generator (nothing drawn from the global one). The generator object is created
in `on_train_epoch_start`, as the script creates it at the top of each epoch (a call of a
generator function runs none of its body).

Only a generator whose batches per epoch are known: its body is one `for _ in range(n):`
(statements before it allowed) whose last statement is its only `yield`, with no `break`,
`continue` or `return`, nothing after the loop, and `n` a parameter the call gives a literal
or a name (or a literal itself). The script's loop asks once more after the last batch; the
generator then only finishes its `range`, which does nothing, so no code is lost by not
asking. Anything else stays as it is (and is refused as a batch loop over no loader).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names, only_module_binding
from ..analysis.statements import BACKWARD, contains
from ..rule import Unsupported
from ..shapes.context import NOT_A_LOADER
from ..shapes.trainer_inline import bind_call
from . import generator_loader
from .generator_loader import fresh_name, generator_call

RULES = ()


def epoch_body(ctx, stmts):
    """The epoch body with a batch loop over a counted generator of the script (a name the
    epoch body binds to its call, or the call itself) rewritten as a loop over the batch
    numbers that fetches each batch with `next()`; any other generator of the script is
    generator_loader.py's (given to the Trainer when it can be read ahead)."""
    for at, loop in enumerate(stmts):
        if not (isinstance(loop, cst.For) and contains(loop, BACKWARD)):
            continue
        rewritten = _rewritten(ctx, stmts[:at], loop)
        if rewritten is None:
            return generator_loader.epoch_body(ctx, stmts)
        binding, new_loop = rewritten
        ctx.notes.append(
            f"the batches of `{ctx.module.code_for_node(loop.iter)}` are fetched with `next()` "
            "inside the step, in the script's order, and the Trainer iterates their numbers "
            "(a generator read ahead by the Trainer would draw the next batch's random "
            "numbers before the step)"
        )
        return [*stmts[:at], *binding, new_loop, *stmts[at + 1 :]]
    return stmts


def read(ctx, plan, steps) -> None:
    generator_loader.read(ctx, plan, steps)


def clean(ctx, plan) -> None:
    generator_loader.clean(ctx, plan)


def _rewritten(ctx, before, loop: cst.For):
    """([a binding of the generator object, if the loop made it], the loop over numbers)."""
    iterator, target, index = loop.iter, loop.target, None
    if m.matches(iterator, m.Call(args=[m.Arg(keyword=None)])) and (
        "builtins.enumerate" in ctx.call_qualnames(iterator)
    ):
        if not m.matches(target, m.Tuple([m.Element(m.Name()), m.Element()])):
            return None
        index, target = target.elements[0].value, target.elements[1].value
        iterator = iterator.args[0].value
    if loop.orelse is not None:
        return None
    named = isinstance(iterator, cst.Name)
    call = generator_call(ctx, before, iterator.value, loop) if named else iterator
    count = _batch_count(ctx, call) if isinstance(call, cst.Call) else None
    if count is None:
        return None
    binding = []
    objects = iterator if named else cst.Name(fresh_name(ctx, "batches"))
    if not named:  # `for x, y in gen(n):` -- the generator object gets a name
        binding = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(objects)], call)])]
    if index is None:
        index = cst.Name(fresh_name(ctx, "batch_number"))
    fetch = cst.SimpleStatementLine(
        [cst.Assign([cst.AssignTarget(target)], cst.Call(cst.Name("next"), [cst.Arg(objects)]))]
    )
    body = loop.body.with_changes(body=[fetch, *loop.body.body])
    new_loop = loop.with_changes(
        target=index, iter=cst.Call(cst.Name("range"), [cst.Arg(count)]), body=body
    )
    return binding, new_loop


def _batch_count(ctx, call: cst.Call) -> cst.BaseExpression | None:
    """How many batches the call's generator yields: the `n` of its one `for _ in range(n):`
    ending with its only `yield` (see the module docstring), from the call; else None."""
    if not isinstance(call.func, cst.Name):
        return None
    function = only_module_binding(ctx.module, call.func.value)
    if not isinstance(function, cst.FunctionDef) or function.asynchronous or function.decorators:
        return None
    body = [s for s in function.body.body if not _docstring(s)]
    if not body or not isinstance(body[-1], cst.For):
        return None
    counted = body[-1]
    if len(m.findall(function, m.Yield())) != 1 or counted.orelse is not None:
        return None
    if m.findall(
        function.body, m.Return() | m.Break() | m.Continue() | m.FunctionDef() | m.Lambda()
    ):
        return None
    last = counted.body.body[-1] if isinstance(counted.body, cst.IndentedBlock) else None
    if not m.matches(last, m.SimpleStatementLine([m.Expr(m.Yield())])):
        return None
    if not m.matches(counted.iter, m.Call(args=[m.Arg(keyword=None)])) or (
        "builtins.range" not in ctx.call_qualnames(counted.iter)
    ):
        return None
    n = counted.iter.args[0].value
    if isinstance(n, cst.Integer):
        return n
    params = {p.name.value for p in function.params.params}
    if not isinstance(n, cst.Name) or n.value not in params:
        return None
    if n.value in collect_names(*body).writes:
        return None  # the generator changes it before counting
    try:
        given = dict(bind_call(function, call, call.func.value, call, NOT_A_LOADER))
    except Unsupported:
        return None
    value = given.get(n.value)
    return value if isinstance(value, (cst.Integer, cst.Name)) else None


def _docstring(stmt) -> bool:
    return m.matches(stmt, m.SimpleStatementLine([m.Expr(m.SimpleString())]))
