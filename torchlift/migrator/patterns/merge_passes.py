"""Two evaluation passes in the epoch as one validation loop over two dataloaders: a helper
of extra_evaluation, which owns the refusal (TL179) this returns the reasons for.

    model.eval()                                   model.eval()
    correct = 0                                    correct = 0
    with torch.no_grad():                          ema.eval()                       (hoisted)
        for x, y in val_loader:                    ema_correct = 0                  (hoisted)
            correct += hits(model(x), y)    ->     with torch.no_grad():
    acc = correct / n                                  for x, y in val_loader:      [val, val]
    ema.eval()                                             if dataloader_idx == 0:
    ema_correct = 0                                            correct += hits(model(x), y)
    with torch.no_grad():                                  else:
        for x, y in val_loader:                                ema_correct += hits(ema(x), y)
            ema_correct += hits(ema(x), y)             acc = correct / n            (moved)
    print(acc, ema_correct / n)                    print(acc, ema_correct / n)

Lightning runs the validation dataloaders one after the other (`fit(..., [val_loader,
val_loader])`: `validation_step(batch, batch_idx, dataloader_idx)`), calling `iter()` on the
second only when the first is exhausted, on real Lightning and on the runtime alike. So the
loader is iterated twice, in the script's order, and each `iter()` draws from the global RNG
where the script's did: the passes' random numbers are the script's. What changes is where the
statements between the passes run; they are accepted only when that cannot show:
- hoisted before the first pass: a statement that reads nothing the first pass (or a statement
  moved after it) writes, binds nothing the first pass reads or writes, and calls nothing but
  `<name>.eval()` / `.train()` of a module the first pass does not use (not the model): the
  second pass's accumulators, the EMA copy's switch to eval mode;
- moved after the second pass: a statement reading what the first pass computed (`acc =
  correct / n`), binding nothing the second pass reads or writes, calling only builtins and
  tensor methods that draw no random numbers (`.item()`), so nothing in the second pass sees it
  and no random number moves;
- dropped: switches of the model that leave it in eval mode, as Lightning keeps it from one
  dataloader to the next (a helper per pass ending in `model.train()`, the next call starting
  with `model.eval()`), when nothing between the passes runs the model.
Also refused: statements inside the second pass's `with` besides its loop, a loop variable
or `enumerate` index the passes do not share (renamed when only the names differ), control
flow in the second pass, gradients used in it, more than two passes, the model's own mode
switched between them, and a file already using the name `dataloader_idx`.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.function_reads import functions_reading
from ..analysis.names import collect_names, mentions, rename
from ..analysis.statements import FLOW, LOOP, contains
from ..source.code_text import code_of
from .eval_passes import eval_loop_of, without_no_grad
from .eval_shapes import _uses_gradients

INDEX = "dataloader_idx"
# builtins that draw no random numbers and iterate nothing (not `iter`, `next`, `list`)
_PLAIN_BUILTINS = frozenset(
    {"len", "print", "float", "int", "round", "min", "max", "sum", "abs", "str", "bool", "repr"}
)
# tensor methods reading values without drawing random numbers
_VALUE_METHODS = frozenset(
    {"item", "numel", "tolist", "cpu", "detach", "float", "sum", "mean", "t", "argmax", "argmin"}
)
# torch functions returning a new tensor from their arguments, drawing nothing
_NEW_TENSOR_FUNCTIONS = frozenset(
    "torch." + name
    for name in "cat stack arange argmax argmin sum mean zeros ones tensor as_tensor".split()
)
_MODES = frozenset({"eval", "train"})


def merge(ctx, stmts, first, second, training):
    """(stmts with both passes as one, second loader) or (None, (why not, the statement in
    the way or None)). `training`: the batch loop, whose model a statement between the passes
    must not switch."""
    merged, why = _merge(ctx, stmts, first, second, training)
    return (
        (merged, why)
        if merged is not None
        else (None, why if isinstance(why, tuple) else (why, None))
    )


def _merge(ctx, stmts, first, second, training):
    if INDEX in mentions(ctx.module):
        return None, f"the file already uses the name `{INDEX}`"
    with1, loop1 = eval_loop_of(ctx, first) or (None, None)
    if with1 is None:
        return None, "the first pass is not a `with torch.no_grad():` block around its loop"
    loop2, body2, why = _second_loop(ctx, second)
    if loop2 is None:
        return None, why
    iter1, index1, target1 = ctx.unwrap_iter(loop1)
    iter2, index2, target2 = ctx.unwrap_iter(loop2)
    if index1 != index2 or loop1.orelse is not None:
        return None, "the passes number their batches differently"
    if any(contains(s, FLOW) for s in [*loop1.body.body, *body2]):
        return None, "a pass uses break / continue / return"
    body2, why = _same_target(target1, target2, body2, stmts[stmts.index(second) + 1 :])
    if body2 is None:
        return None, why
    inner = list(with1.body.body)
    at = inner.index(loop1)
    pass1 = collect_names(loop1, *inner[:at])
    # what the first pass fills in place (`outs.append(net(x))`) is its result too
    filled = _filled_in_place(ctx, [loop1, *inner[:at]], pass1.reads)
    pass2 = collect_names(*body2, cst.SimpleStatementLine([cst.Expr(target1)]))
    between = stmts[stmts.index(first) + 1 : stmts.index(second)]
    hoisted, moved, moved_writes = [], list(inner[at + 1 :]), set()
    for stmt in moved:  # the first pass's own code after its loop runs after both now
        why = _movable_after(ctx, stmt, pass2)
        if why:
            return None, (why, stmt)
        moved_writes |= collect_names(stmt).writes
    # modules the training step runs (the model) and the first pass may run (through the
    # script's functions too): a mode switch between the passes must touch neither
    ran = {call.func.value for call in m.findall(training, m.Call(func=m.Name()))} | pass1.reads
    ran |= {n for n in mentions(ctx.module) if functions_reading(ctx.module, {n}) & pass1.reads}
    moved_reads = set()
    between = _without_mode_round_trips(ctx, between, ran)
    for stmt in between:
        names = collect_names(stmt)
        if names.reads & (pass1.writes | filled | moved_writes):
            why = _movable_after(ctx, stmt, pass2)
            if why:
                return None, (why, stmt)
            moved.append(stmt)
            moved_writes |= names.writes
            moved_reads |= names.reads
            continue
        why = _hoistable(ctx, stmt, pass1, ran)
        if not why and names.writes & (moved_reads | moved_writes):
            why = "a statement between the passes rebinds a name read before it"
        if why:
            return None, (why, stmt)
        hoisted.append(stmt)
    merged_loop = loop1.with_changes(
        body=loop1.body.with_changes(body=[_by_loader(list(loop1.body.body), body2)])
    )
    merged = with1.with_changes(
        body=with1.body.with_changes(body=[*inner[:at], merged_loop, *moved])
    )
    i, j = stmts.index(first), stmts.index(second)
    return [*stmts[:i], *hoisted, merged, *stmts[j + 1 :]], iter2.value


def _second_loop(ctx, stmt):
    """(loop, body with its no_grad blocks flattened, None) or (None, None, why)."""
    found = eval_loop_of(ctx, stmt)
    if found is not None and found[0] is not None:
        if len(found[0].body.body) != 1:
            return None, None, "the second pass's `with` block holds more than its loop"
        loop = found[1]
    elif isinstance(stmt, cst.For):
        loop = stmt
    else:
        return None, None, "the second pass is not a plain loop over its loader"
    if loop.orelse is not None:
        return None, None, "the second pass has an `else` block"
    body = without_no_grad(ctx, loop.body.body)
    if any(contains(s, LOOP) and not ctx.harmless_loop(s) for s in body):
        return None, None, "the second pass holds a nested loop over data"
    if _uses_gradients(ctx, loop):
        return None, None, "the second pass uses gradients"
    return loop, body, None


def _same_target(target1, target2, body2, after):
    """The second pass's body reading the first pass's batch names: the same target, or one
    with other names in the same places (renamed when nothing else holds them)."""
    code = cst.Module([]).code_for_node
    if code(target1) == code(target2):
        return body2, None
    names1 = _flat_names(target1)
    names2 = _flat_names(target2)
    if names1 is None or names2 is None or len(names1) != len(names2):
        return None, "the passes unpack their batches differently"
    used = collect_names(*body2)
    later = collect_names(*after).reads if after else set()
    if set(names1) & used.all() or set(names2) & later:
        return None, "the second pass's batch names are used besides its batches"
    mapping = {b: cst.Name(a) for a, b in zip(names1, names2)}
    return [rename(s, mapping) for s in body2], None


def _flat_names(target) -> list[str] | None:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [e.value for e in target.elements]
        if names and all(isinstance(n, cst.Name) for n in names):
            return [n.value for n in names]
    return None


def _hoistable(ctx, stmt, pass1, ran: set[str]) -> str | None:
    names = collect_names(stmt)
    if contains(stmt, LOOP | FLOW) or not isinstance(stmt, cst.SimpleStatementLine):
        return "a statement between the passes holds control flow"
    if names.writes & (pass1.reads | pass1.writes):
        return "a statement between the passes rebinds a name the first pass uses"
    for call in m.findall(stmt, m.Call()):
        func = call.func
        module = _switched_module(call)
        if module is None and _plain_call(ctx, call):
            continue
        if module is None:
            return _call_moves(call)
        if module in ran:
            return (
                f"`{code_of(func)}()` between the passes switches a module the training step or "
                "the first pass runs"
            )
    return None


def _without_mode_round_trips(ctx, between, ran: set[str]) -> list:
    """`between` without the mode switches that leave a module as Lightning keeps it from one
    validation dataloader to the next: in eval mode. A helper run once per pass ends with
    `model.train()` and starts with `model.eval()`; when nothing between the passes runs the
    module (it is not read, nor any function reading it called), every switch of it there
    is dropped so long as the last is `eval()`: the second pass starts in eval mode either way."""
    switches = {}
    for stmt in between:
        module = _mode_statement(stmt)
        if module is not None and module in ran:
            switches.setdefault(module, []).append(stmt)
    dropped = set()
    for module, stmts in switches.items():
        if _switched_to(stmts[-1]) != "eval":
            continue
        others = [s for s in between if _mode_statement(s) != module]
        reads = collect_names(*others).reads if others else set()
        if module in reads or functions_reading(ctx.module, {module}) & reads:
            continue
        dropped |= {id(s) for s in stmts}
    return [s for s in between if id(s) not in dropped]


def _mode_statement(stmt) -> str | None:
    """The module `stmt` switches when it is only `<module>.eval()` / `.train()`."""
    if not m.matches(
        stmt,
        m.SimpleStatementLine(
            body=[m.Expr(value=m.Call(func=m.Attribute(value=m.Name(), attr=m.Name())))]
        ),
    ):
        return None
    return _switched_module(stmt.body[0].value)


def _switched_to(stmt) -> str:
    return stmt.body[0].value.func.attr.value


def _switched_module(call: cst.Call) -> str | None:
    """The name whose module (or submodule, an AveragedModel's `averaged.module`) the call
    switches to eval or train mode, or None when it is no such switch."""
    func = call.func
    if call.args or not m.matches(func, m.Attribute(attr=m.Name())) or func.attr.value not in _MODES:
        return None
    root = func.value
    while isinstance(root, cst.Attribute):
        root = root.value
    return root.value if isinstance(root, cst.Name) else None


def _filled_in_place(ctx, pass_code, names: set[str]) -> set[str]:
    """Of `names`, those the pass changes in place (a list it appends to)."""
    from ..shapes.epoch_batch import maybe_changed  # shapes import the patterns

    return maybe_changed(ctx, cst.IndentedBlock(body=list(pass_code)), names)


def _movable_after(ctx, stmt, pass2) -> str | None:
    names = collect_names(stmt)
    if contains(stmt, LOOP | FLOW) or not isinstance(stmt, cst.SimpleStatementLine):
        return "a statement between the passes holds control flow"
    if names.writes & pass2.all() or names.reads & pass2.writes:
        return "a statement between the passes shares a name with the second pass"
    for call in m.findall(stmt, m.Call()):
        if not _plain_call(ctx, call):
            return _call_moves(call)
    return None


def _call_moves(call: cst.Call) -> str:
    return (
        f"`{code_of(call.func)}(...)` between the passes would run before both or after both (it "
        "may draw random numbers or change what a pass computes)"
    )


def _plain_call(ctx, call: cst.Call) -> bool:
    """A call known to draw no random numbers and to change none of its arguments: a plain
    builtin, a torch function computing a new tensor (`torch.cat(outs)`), a tensor's value
    method."""
    func = call.func
    if ctx.call_qualnames(call) & _NEW_TENSOR_FUNCTIONS:
        return True
    if m.matches(func, m.Name()):
        return func.value in _PLAIN_BUILTINS
    return m.matches(func, m.Attribute(attr=m.Name())) and func.attr.value in _VALUE_METHODS


def _by_loader(body1, body2) -> cst.If:
    """`if dataloader_idx == 0: <first pass> else: <second pass>`."""
    node = cst.parse_statement(f"if {INDEX} == 0:\n    pass\nelse:\n    pass\n")
    return node.with_changes(
        body=node.body.with_changes(body=body1),
        orelse=node.orelse.with_changes(body=node.orelse.body.with_changes(body=body2)),
    )
