"""Pattern: batches from a generator of the script, called anew each epoch, given to the Trainer.

    def get_batches(arr, batch_size, seq_length):     class EpochBatches:   (module level)
        ...                                               def __iter__(self):
        for n in range(0, arr.shape[1], seq_length):          return self.function(*self.args)
            yield x, y                               ->
                                                      train_batches = EpochBatches(
    for e in range(epochs):                               get_batches, data, batch_size, seq_length)
        for x, y in get_batches(data, batch_size,     trainer.fit(lit_model, train_batches)
                                seq_length):
            ...step...

Lightning (and the runtime) iterate the loader anew each epoch: `iter(EpochBatches)` calls
the function with the same arguments, as the script's loop did. An iterable without
`len()`: both read it one batch ahead (the runtime's fetcher.py, Lightning's prefetching
fetcher), so the number of batches, the last partial one and the epoch-end validation stay
the script's. Reading ahead moves the generator's code before the step, which is faithful
only when the body neither sees nor changes what the step does (analysis/generator_body.py):
it draws nothing from torch's generator (nor from numpy's or Python's when anything else in
the epoch draws from that one), reads its parameters, its locals and names the epoch loop
does not change, changes in place only what it made. Its arguments are evaluated once,
before `fit`: names bound before the epoch loop that the epoch loop does not change. The
step must not change the batch in place (a view of the generator's array, which the next
batch, made before the step, would not see changed). Anything else: TL104, naming the
generator's statement (or the epoch's) in the way.

A `with torch.no_grad():` evaluation pass after the batch loop over such a generator
(`get_batches(val_data, ...)`) becomes fit's validation loader the same way. A generator
whose batch count is fixed (`for _ in range(n): ... yield`) and that draws from torch's
generator is generator_batches.py's (fetched by `next()` in the step), tried first.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.confined_effects import _target_parts, root_name
from ..analysis.function_reads import functions_doing, module_functions
from ..analysis.generator_body import (
    GLOBAL_GENERATORS,
    READING_METHODS,
    body_obstacle,
    free_reads,
    global_draw,
    statement_of,
)
from ..analysis.names import collect_names, mentions, only_module_binding
from ..analysis.passed_values import call_cannot_change
from ..analysis.statements import BACKWARD, contains, single_assign, statements
from ..analysis.torch_draws import draws, functions_drawing
from ..rule import Unsupported
from ..shapes.context import NOT_A_LOADER
from ..shapes.epoch_batch import how_changed, maybe_changed
from .eval_passes import _is_no_grad
from .eval_ranges import _changing, _declared_global
from .eval_shapes import _replace

RULES = ()

_CLASS = '''class {name}:
    """The batches of `function(*args, **kwargs)`, a new generator each epoch (as the
    script's loop called it anew)."""

    def __init__(self, function, *args, **kwargs):
        self.function, self.args, self.kwargs = function, args, kwargs

    def __iter__(self):
        return self.function(*self.args, **self.kwargs)
'''


def epoch_body(ctx, stmts):
    """The epoch body with the batch loop's generator call (and an evaluation pass's after
    it) replaced by the name of a loader built before `fit`."""
    at = next(
        (i for i, s in enumerate(stmts) if isinstance(s, cst.For) and contains(s, BACKWARD)), None
    )
    if at is None:
        return stmts
    stmts = list(stmts)
    found = _generator_of(ctx, stmts[:at], stmts[at])
    if found is not None:
        call, binding = found
        loop = stmts[at]
        name = _loader(ctx, call, "train_batches", "loader_stmt", "the batches")
        stmts[at] = _replace(loop, loop.iter if binding else call, cst.Name(name))
        if binding is not None:
            stmts.remove(binding)
            at -= 1
        _check(ctx, call, loop, stmts, "batch loop")  # the epoch as it will be, without the call
    for i in range(at + 1, len(stmts)):
        loop = _evaluation_loop(ctx, stmts[i])
        if loop is None:
            continue
        found = _generator_of(ctx, [], loop)
        if found is not None:
            call = found[0]
            name = _loader(ctx, call, "val_batches", "eval_loader_stmt", "the evaluation batches")
            stmts[i] = _replace(stmts[i], call, cst.Name(name))
            _check(ctx, call, loop, stmts, "evaluation loop")
        break
    return stmts


def read(ctx, plan, steps) -> None:
    plan.helper_defs.extend(ctx.found.get("helper_defs", []))


def clean(ctx, plan) -> None:
    """Several processes: Lightning shards a DataLoader with a DistributedSampler, not an
    iterable of the script's, so every process would train on every batch."""
    arguments = dict(plan.trainer_args)
    if plan.helper_defs and ("strategy" in arguments or arguments.get("devices", "1") != "1"):
        ctx.block(
            NOT_A_LOADER,
            "the batches come from a generator of the script in a multi-process (DDP) "
            "conversion: Lightning would not shard them, every process would train on all",
            ctx.loop,
        )


def _evaluation_loop(ctx, stmt) -> cst.For | None:
    """The loop of a `with torch.no_grad(): for ... in ...:` pass holding one loop."""
    if isinstance(stmt, cst.With) and _is_no_grad(ctx, stmt):
        loops = [s for s in stmt.body.body if isinstance(s, cst.For)]
        if len(loops) == 1:
            return loops[0]
    return None


def generator_call(ctx, before, name: str, loop) -> cst.Call | None:
    """The call bound to `name` by the one statement of the epoch body before the loop that
    binds it, when nothing else in the epoch reads it."""
    binders = [s for s in before if name in collect_names(s).writes]
    if len(binders) != 1:
        return None
    found = single_assign(binders[0])
    if found is None or not isinstance(found[1], cst.Call):
        return None
    others = [s for s in before if s is not binders[0] and name in mentions(s)]
    if others or name in mentions(loop.body):
        return None
    return found[1]


def _generator_of(ctx, before, loop: cst.For):
    """(the call of a generator function of the script the loop iterates -- directly, through
    `enumerate`, or through a name the epoch binds to it just for the loop --, the binding
    statement or None), or None."""
    iterator = loop.iter
    if m.matches(iterator, m.Call(args=[m.Arg(keyword=None)])) and (
        "builtins.enumerate" in ctx.call_qualnames(iterator)
    ):
        iterator = iterator.args[0].value
    binding = None
    if isinstance(iterator, cst.Name):
        call = generator_call(ctx, before, iterator.value, loop)
        binding = next((s for s in before if iterator.value in collect_names(s).writes), None)
        if call is None:
            return None
        iterator = call
    if not (isinstance(iterator, cst.Call) and isinstance(iterator.func, cst.Name)):
        return None
    function = only_module_binding(ctx.module, iterator.func.value)
    if not isinstance(function, cst.FunctionDef) or not m.findall(function, m.Yield()):
        return None
    if function.asynchronous or function.decorators:
        return None
    return iterator, binding


def _check(ctx, call: cst.Call, loop: cst.For, stmts, kind: str) -> None:
    """Unsupported (TL104) naming what keeps the generator from being read ahead."""
    function = only_module_binding(ctx.module, call.func.value)
    code = ctx.module.code_for_node(call)
    why = f"{kind} iterates `{code}`, a generator of the script the Trainer reads one batch ahead"
    drawing = functions_drawing(ctx)
    problem = body_obstacle(ctx, function, lambda node: draws(ctx, node, drawing))
    problem = problem or _shared_draws(ctx, function, stmts)
    problem = problem or _changed_reads(ctx, function, stmts)
    if problem is not None:
        node, reason = problem
        raise Unsupported(NOT_A_LOADER, f"{why}: {reason}", node)
    if any(a.star for a in call.args):
        raise Unsupported(NOT_A_LOADER, f"{why}: its arguments are unpacked (`*`)", loop)
    for arg in call.args:
        changing = _changing(
            ctx, arg.value, stmts, "its argument", "it is evaluated once, before `fit`"
        )
        if changing:
            reason, at = changing
            at = _innermost_change(ctx, at, collect_names(arg.value).reads) if at else loop
            raise Unsupported(NOT_A_LOADER, f"{why}: {reason}", at)
    changed = _changed_batch(ctx, loop)
    if changed is not None:
        name, at = changed
        raise Unsupported(
            NOT_A_LOADER,
            f"{why}: the loop changes its batch `{name}` in place (the next batch, made "
            "before this code runs, would not see it)",
            at,
        )


def _innermost_change(ctx, stmt, names: set[str]):
    """The deepest statement of `stmt` that may change one of `names` (the last in source
    order: a statement nested in it that did would come after it), for the refusal's line."""
    found = [s for s in statements(stmt) if maybe_changed(ctx, s, names)]
    return found[-1] if found else stmt


def _shared_draws(ctx, function, stmts):
    """(the generator's statement drawing, why) when it draws from numpy's or Python's global
    generator and so does other code of the epoch: the epoch loop's, a function of the
    script it calls, or any class's method (a model's forward may be one)."""
    draws = [c for c in m.findall(function, m.Call()) if global_draw(ctx, c) is not None]
    if not draws:
        return None
    prefixes = {global_draw(ctx, c) for c in draws}
    others = [f for f in module_functions(ctx.module).values() if f is not function]

    def drawing_calls(node, found) -> list:
        return [
            c
            for c in m.findall(node, m.Call())
            if global_draw(ctx, c) in prefixes
            or (isinstance(c.func, cst.Name) and c.func.value in found)
        ]

    drawing = functions_doing(others, lambda f, found: bool(drawing_calls(f.body, found)))
    classes = [s for s in ctx.module.body if isinstance(s, cst.ClassDef)]
    there = [c for node in [*stmts, *classes] for c in drawing_calls(node, drawing)]
    if there:
        generator = " and ".join(sorted(GLOBAL_GENERATORS[p] for p in prefixes))
        other = ctx.module.code_for_node(there[0].func)
        return statement_of(function, draws[0]), (
            f"it draws from {generator} global generator, which `{other}(...)` draws from "
            "too during the epoch (reading ahead would reorder the draws)"
        )
    return None


def _changed_reads(ctx, function, stmts):
    """(the generator's statement, why) when it reads a name of the script the epoch loop
    changes (the next batch would be made before the change)."""
    # the script's functions and imported modules: calls of the former are refused already
    reads = free_reads(function) - set(module_functions(ctx.module)) - set(ctx.names.imports)
    changed = maybe_changed(ctx, cst.Module(body=list(stmts)), reads)
    changed |= reads & _declared_global(ctx.module)
    if not changed:
        return None
    name = sorted(changed)[0]
    how, at = how_changed(ctx, ctx.loop, name, list(stmts))
    code = ctx.module.code_for_node(at).strip() if at is not None else ""
    if code and "\n" not in code and "(`" not in how:
        how += f" (`{code}`)"
    read = next(n for n in m.findall(function.body, m.Name(name)))
    return statement_of(function, read), f"it reads `{name}`, which the epoch loop {how}"


def _changed_batch(ctx, loop: cst.For):
    """(a batch name, the loop's statement changing it in place) or None. Rebinding a name
    (`x = one_hot_encode(x, n)`) leaves the batch as it was; from then on the name is not
    the batch any more."""
    live = collect_names(cst.AssignTarget(loop.target)).writes
    for stmt in loop.body.body:
        if not live:
            return None
        changed = set()
        for call in m.findall(stmt, m.Call()):
            changed |= _changed_by_call(ctx, call, live)
        for node in m.findall(stmt, m.AssignTarget() | m.AugAssign() | m.Del()):
            in_place = isinstance(node, cst.AugAssign)  # `xb += 1` changes a tensor in place
            for part in _target_parts(node.target):
                if in_place or not isinstance(part, cst.Name):
                    changed |= live & {root_name(part)}
        if changed:
            return sorted(changed)[0], stmt
        if isinstance(stmt, cst.SimpleStatementLine):
            live -= collect_names(stmt).writes
    return None


def _changed_by_call(ctx, call: cst.Call, live: set[str]) -> set[str]:
    """Those of `live` that `call` itself (not the calls in its arguments) may change: a
    method of one that is not a known reading one, or one handed to a function that is not
    torch's, a builtin, a module's forward or a function of the script only reading it."""
    func = call.func
    names = ctx.call_qualnames(call)
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        if func.value.value in live and func.attr.value not in READING_METHODS:
            return {func.value.value}
    passed = {a.value.value for a in call.args if isinstance(a.value, cst.Name)} & live
    if not passed or _module_call(ctx, call):
        return set()
    if any(q.split(".")[0] in ("torch", "builtins", "numpy") for q in names):
        return set()
    return {name for name in passed if not call_cannot_change(ctx, call, name)}


def _module_call(ctx, call: cst.Call) -> bool:
    """`call` runs a module (`model(x)`, `criterion(out, y)`): a name bound last before the
    loop to a `torch.nn` class or a class of the script, which the loop does not rebind. A
    forward reads its inputs."""
    if not isinstance(call.func, cst.Name):
        return False
    if call.func.value in collect_names(ctx.loop.body).writes:
        return False
    binding, _ = ctx.binding(call.func.value)
    value = binding[1] if binding is not None else None
    if not isinstance(value, cst.Call):
        return False
    if any(q.startswith("torch.nn.") for q in ctx.call_qualnames(value)):
        return True
    func = value.func
    return isinstance(func, cst.Name) and isinstance(
        only_module_binding(ctx.module, func.value), cst.ClassDef
    )


def _loader(ctx, call: cst.Call, base: str, key: str, what: str) -> str:
    """The name of the loader of `call`'s batches; its statement noted under `key` for the
    Trainer call, the class it needs noted once for the module."""
    name = fresh_name(ctx, base)
    defs = ctx.found.setdefault("helper_defs", [])
    class_name = ctx.found.get("epoch_batches_class")
    if class_name is None:
        class_name = ctx.found["epoch_batches_class"] = fresh_name(ctx, "EpochBatches")
        defs.append(_CLASS.format(name=class_name))
    function = call.func.value
    arguments = [function, *(ctx.module.code_for_node(a).strip().rstrip(",") for a in call.args)]
    ctx.found[key] = (
        f"# {what} of `{function}(...)`, a new generator each epoch\n"
        f"{name} = {class_name}({', '.join(arguments)})"
    )
    return name


def fresh_name(ctx, base: str) -> str:
    taken = mentions(ctx.module)
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name
