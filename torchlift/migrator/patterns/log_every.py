"""Pattern: a metric logger of the script iterating the loader (torchvision's references).

    metric_logger = MetricLogger(delimiter="  ")      (before the batch loop: removed, with
    metric_logger.add_meter("lr", SmoothedValue())     the meters it adds)
    for x, y in metric_logger.log_every(loader, print_freq, header):   -> iterates `loader`
        ...
        metric_logger.update(loss=loss.item(),         -> self.log("lr", ..., prog_bar=True)
                             lr=opt.param_groups[0]["lr"])     (the loss: train_loss)
        metric_logger.meters["acc1"].update(acc1.item(), n=bs)   -> self.log("acc1", ...)

`log_every` is a generator of the script's class. It is a progress wrapper, and the Trainer
may iterate the loader in its place, when reading its body shows that it yields exactly the
items of the iterable it is given, in order, one per item (`for obj in iterable: yield obj`,
or over `enumerate(iterable)`, the `yield` straight in the loop's body, no break, continue or
return), reads the iterable otherwise only by `len()`, and does nothing else than print, read
the clock and update its own objects (analysis/confined_effects.py): then its prints every
`print_freq` batches are dropped (the report says so) and Lightning's progress bar and logger
show the logged values. The logger's meter updates are logged as the progress bar's
`set_postfix` values are (patterns/progress_bar.py reads both): same values, same keys.

Refused (TL187, with what the wrapper does): a wrapper that filters, maps, reorders or
prefetches its items (to a device too), stops early, yields other than once per item, changes
anything but its own objects (draws random numbers, moves tensors), or a logger used for
anything else than adding meters before the loop and updating them in it (read after the loop,
handed to other code: it would be gone).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.confined_effects import confinement_problem, file_classes, method, self_change
from ..analysis.names import collect_names
from ..analysis.statements import BACKWARD, contains, single_assign
from ..rule import Unsupported
from .loader_wrappers import WRAPPER

RULES = ()


def epoch_body(ctx, stmts):
    """Evaluation loops over a logger's generator (`for x, y in
    metric_logger.log_every(val_loader, 10, "Test:")` under `no_grad`, after the training
    loop): iterate the loader itself. Their logger stays -- created before the pass and
    updated in it, as the script wrote -- only the generator's prints go; the training loop
    (it calls backward()) is left to `before_batch_loop`."""
    out = []
    for position, stmt in enumerate(stmts):
        if contains(stmt, BACKWARD):
            out.append(stmt)
            continue
        rewriter = _LookThrough(ctx, stmts[:position])
        new = stmt.visit(rewriter)
        # visiting rebuilds every node: keep the statement itself (its identity names it in
        # reports, e.g. the helper it was inlined from) unless a loop was looked through
        out.append(new if rewriter.notes else stmt)
        ctx.found.setdefault("log_every_notes", []).extend(rewriter.notes)
    return out


class _LookThrough(cst.CSTTransformer):
    """`for ... in logger.gen(loader, ...)` -> `for ... in loader` (also inside
    `enumerate(...)`), for a checked generator of a logger bound in `before`."""

    def __init__(self, ctx, before) -> None:
        super().__init__()
        self.ctx, self.before, self.notes = ctx, before, []

    def leave_For(self, original, updated):
        call, wrap = updated.iter, None
        if m.matches(call, m.Call(args=[m.Arg(keyword=None, star=""), m.ZeroOrMore()])) and (
            "builtins.enumerate" in self.ctx.call_qualnames(call)
        ):
            call, wrap = call.args[0].value, call
        # the logger of an evaluation pass is bound at the epoch's level, before the statement
        # holding its loop (`with torch.no_grad():`)
        found = _logger_call(self.ctx, call, self.before, original)
        if found is None:
            return updated
        receiver, generator, _ = found
        changed = self_change(self.ctx, generator)
        if changed:  # the logger stays: its state must be what the script's loop left
            where = _where(self.ctx, receiver, generator, call)
            raise Unsupported(
                WRAPPER,
                f"{where}: it changes the logger itself (`{changed}`), which the evaluation "
                "keeps and reads without it",
                original,
            )
        loader = call.args[0].value
        note = _dropped_prints(self.ctx, receiver, generator, loader, kept=True)
        self.notes.append((generator, "validation_step", note))
        if wrap is not None:
            loader = wrap.with_changes(
                args=[wrap.args[0].with_changes(value=loader), *wrap.args[1:]]
            )
        return updated.with_changes(iter=loader)


def before_batch_loop(ctx, loop: cst.For, pre):
    """`logger = Logger(...)` before a batch loop over `logger.<generator>(loader, ...)`:
    checked, then dropped with the `add_meter` calls on it."""
    iterator = ctx.unwrap_iter(loop)[0]
    found = _logger_call(ctx, iterator, pre, loop)
    if found is None:
        return pre
    receiver, generator, creation = found
    where = _where(ctx, receiver, generator, iterator)
    dropped = [creation] + [s for s in pre if _is_call_on(s, receiver)]
    for stmt in dropped[1:]:
        problem = _update_problem(ctx, stmt, receiver)
        if problem:
            raise Unsupported(WRAPPER, f"{where}: {problem}", stmt)
    loader = iterator.args[0].value
    ctx.found["log_every"] = (receiver, iterator, loader)
    plan_notes = ctx.found.setdefault("log_every_notes", [])
    # on the class's own lines: a helper's inlined loop has none to name
    plan_notes.append((generator, "trainer", _dropped_prints(ctx, receiver, generator, loader)))
    name = generator.name.value
    for stmt in dropped:
        plan_notes.append((stmt, None, f"the logger `{receiver}` is dropped with its `{name}`"))
    return [s for s in pre if not any(s is d for d in dropped)]


def _dropped_prints(ctx, receiver, generator, loader, kept: bool = False) -> str:
    name = generator.name.value
    shown = (
        f"`{receiver}` itself stays, updated as the script did"
        if kept
        else "Lightning's progress bar shows the logged values"
    )
    return (
        f"`{receiver}.{name}(...)` is not run: the Trainer iterates "
        f"`{ctx.module.code_for_node(loader)}` itself, and the periodic prints of `{name}` are "
        f"dropped ({shown})"
    )


def _where(ctx, receiver, generator, call) -> str:
    loader = ctx.module.code_for_node(call.args[0].value)
    return f"`{receiver}.{generator.name.value}(...)`, iterating `{loader}`"


def _logger_call(ctx, call, bindings, loop):
    """(receiver, generator, its binding statement) when `call` is `logger.gen(iterable, ...)`
    with `logger` bound in `bindings` to an instance of a class of the file whose generator
    passes its iterable through (Unsupported TL187 when it does more); None when `call` is
    no such call."""
    if not m.matches(
        call,
        m.Call(func=m.Attribute(value=m.Name(), attr=m.Name()), args=[m.Arg(), m.ZeroOrMore()]),
    ):
        return None
    receiver, name = call.func.value.value, call.func.attr.value
    creation = next((s for s in bindings if (a := single_assign(s)) and a[0] == receiver), None)
    value = single_assign(creation)[1] if creation is not None else None
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
        return None
    cls = file_classes(ctx.module).get(value.func.value)
    generator = method(cls, name) if cls is not None else None
    if generator is None:
        return None
    where = _where(ctx, receiver, generator, call)
    first = call.args[0]
    if first.keyword is not None or first.star:
        raise Unsupported(WRAPPER, f"{where}: the iterable is not its first argument", loop)
    _check_pass_through(ctx, generator, where, loop)
    for checked in (method(cls, "__init__"), generator):
        problem = checked is not None and confinement_problem(ctx, checked)
        if problem:
            raise Unsupported(WRAPPER, f"{where}: {problem}, which the Trainer would not run", loop)
    return receiver, generator, creation


def batch_loader(ctx, iterator):
    found = ctx.found.get("log_every")
    if found and iterator is found[1]:
        return found[2]
    return iterator


def claim(ctx, steps, stmt, position) -> bool:
    """`logger.update(k=v, ...)` and `logger.meters["k"].update(v, n=...)`: shown values,
    logged by patterns/progress_bar.py."""
    found = ctx.found.get("log_every")
    if not found or not _is_call_on(stmt, found[0]):
        return False
    receiver = found[0]
    problem = _update_problem(ctx, stmt, receiver)
    if problem:
        raise Unsupported(WRAPPER, f"`{receiver}` in the batch loop: {problem}", stmt)
    pairs = _meter_values(stmt, receiver)
    if pairs is None:
        raise Unsupported(
            WRAPPER,
            f"`{receiver}` in the batch loop: `{ctx.module.code_for_node(stmt).strip()}` is "
            'not `update(name=value)` or `meters["name"].update(value)`',
            stmt,
        )
    ctx.found.setdefault("shown_values", {})[id(stmt)] = ("meter", pairs)
    steps.setdefault("bar_displays", []).append(stmt)
    steps.setdefault("bar_positions", []).append((position, stmt))
    return True


def read(ctx, plan, steps) -> None:
    """The logger is gone: nothing else in the epoch may read it."""
    found = ctx.found.get("log_every")
    if not found:
        return
    receiver = found[0]
    rest = [*plan.pre_train, *plan.train_body, *plan.post_train]
    user = next((s for s in rest if receiver in collect_names(s).reads), None)
    if user is not None:
        raise Unsupported(
            WRAPPER,
            f"`{receiver}` is read outside its `update` calls in the batch loop; the "
            "conversion drops the logger with its progress wrapper",
            user,
        )
    plan.explained.extend(ctx.found.get("log_every_notes", ()))
    _drop_wrapper_arguments(ctx, plan, found[1])


def _drop_wrapper_arguments(ctx, plan, call: cst.Call) -> None:
    """`header = f"Epoch: [{epoch}]"` before the loop, read only by the wrapper's call: it
    goes with the wrapper (computing it has no effect: no call in its value)."""
    others = [*plan.train_body, *plan.post_train]
    for arg in call.args[1:]:
        if not isinstance(arg.value, cst.Name):
            continue
        name = arg.value.value
        bindings = [s for s in plan.pre_train if name in collect_names(s).writes]
        rest = [s for s in plan.pre_train if not any(s is b for b in bindings)]
        if (
            len(bindings) != 1
            or single_assign(bindings[0]) is None
            or m.findall(bindings[0], m.Call())
            or name in collect_names(*rest, *others).reads
        ):
            continue
        plan.pre_train.remove(bindings[0])
        plan.explained.append((bindings[0], None, f"`{name}` was only read by the wrapper"))


def _is_call_on(stmt, receiver: str) -> bool:
    """`stmt` is one call expression on `receiver` (`logger.update(...)`,
    `logger.meters[k].update(...)`)."""
    if not m.matches(stmt, m.SimpleStatementLine(body=[m.Expr(m.Call())])):
        return False
    func = stmt.body[0].value.func
    root = func
    while isinstance(root, (cst.Attribute, cst.Subscript)):
        root = root.value
    return m.matches(root, m.Name(receiver))


def _update_problem(ctx, stmt, receiver: str) -> str | None:
    """What the logger's method called by `stmt` does beyond its own objects; and the
    arguments must be values to log (no call but `.item()`, which only reads)."""
    call = stmt.body[0].value
    classes = file_classes(ctx.module)
    name = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
    defined = [f for c in classes.values() if name and (f := method(c, name)) is not None]
    if not defined:
        return f"`{ctx.module.code_for_node(call.func)}` is no method of the file's classes"
    for found in defined:
        problem = confinement_problem(ctx, found)
        if problem:
            return problem
    for inner in m.findall(cst.Tuple([cst.Element(a.value) for a in call.args]), m.Call()):
        if isinstance(inner.func, cst.Name) and inner.func.value in classes:
            init = method(classes[inner.func.value], "__init__")
            problem = init is not None and confinement_problem(ctx, init)
            if problem:
                return problem
        elif not m.matches(inner, m.Call(func=m.Attribute(attr=m.Name("item")), args=[])):
            # a value computed only to be shown: the conversion may not log it
            return f"`{ctx.module.code_for_node(inner)}` is computed only to be shown"
    return None


def _meter_values(stmt, receiver: str) -> list | None:
    """(key, value) pairs a logger update shows: `receiver.update(k=v, ...)` ->
    [(k, v), ...], `receiver.meters["k"].update(v, n=...)` -> [("k", v)]; None for another
    call (`add_meter` in the loop, a meter read by attribute)."""
    call = stmt.body[0].value
    func = call.func
    if not m.matches(func, m.Attribute(attr=m.Name("update"))):
        return None
    if m.matches(func.value, m.Name(receiver)):
        if any(a.keyword is None or a.star for a in call.args):
            return None
        return [(a.keyword.value, a.value) for a in call.args]
    meter = m.Subscript(
        value=m.Attribute(value=m.Name(receiver), attr=m.Name()),
        slice=[m.SubscriptElement(m.Index(m.SimpleString()))],
    )
    if not m.matches(func.value, meter):
        return None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) != 1 or call.args[0] is not positional[0]:
        return None
    return [(func.value.slice[0].slice.value.evaluated_value, positional[0].value)]


def _check_pass_through(ctx, generator: cst.FunctionDef, where: str, loop) -> None:
    """`generator` yields each item of its first parameter once, in order, unchanged."""
    params = generator.params
    if len(params.params) < 2 or params.posonly_params:
        raise Unsupported(WRAPPER, f"{where}: its first parameter is not the iterable", loop)
    iterable = params.params[1].name.value
    yields = m.findall(generator, m.Yield())
    body = generator.body.body
    loops = [
        s
        for s in body
        if isinstance(s, cst.For)
        and s.body.body
        and any(
            m.matches(line, m.SimpleStatementLine(body=[m.Expr(m.Yield())])) for line in s.body.body
        )
    ]
    if len(yields) != 1 or len(loops) != 1:
        raise Unsupported(
            WRAPPER,
            f"{where}: it does not yield once per item in one loop at the top of its body",
            loop,
        )
    outer = loops[0]
    item = _item_of(ctx, outer, iterable)
    if item is None or outer.orelse is not None or outer.asynchronous is not None:
        raise Unsupported(
            WRAPPER,
            f"{where}: its loop is not `for obj in {iterable}:` (or over `enumerate({iterable})`)",
            loop,
        )
    if not m.matches(yields[0], m.Yield(value=m.Name(item))):
        shown = ctx.module.code_for_node(yields[0])
        raise Unsupported(
            WRAPPER,
            f"{where}: it runs `{shown}`, not each `{item}` of the loader as it is (the "
            "Trainer iterating the loader would not map, move or replace the batches)",
            loop,
        )
    for flow in m.findall(outer.body, m.Break() | m.Continue() | m.Return()):
        kind = type(flow).__name__.lower()
        raise Unsupported(
            WRAPPER, f"{where}: `{kind}` in its loop skips items or stops early", flow
        )
    for stray in m.findall(generator.body, m.Return(value=m.MatchIfTrue(lambda v: v is not None))):
        raise Unsupported(WRAPPER, f"{where}: it returns a value", stray)
    others = [s for s in body if s is not outer]
    if item in collect_names(outer.body, *others).writes:
        raise Unsupported(WRAPPER, f"{where}: it rebinds the item `{item}` it yields", loop)
    if not _iterable_only_sized(generator, outer, iterable):
        raise Unsupported(
            WRAPPER,
            f"{where}: it reads `{iterable}` other than by its loop and `len({iterable})` "
            "(it may prefetch, skip or reorder)",
            loop,
        )


def _item_of(ctx, loop: cst.For, iterable: str) -> str | None:
    """`obj` of `for obj in iterable` or `for i, obj in enumerate(iterable)`."""
    if m.matches(loop.iter, m.Name(iterable)) and isinstance(loop.target, cst.Name):
        return loop.target.value
    over_enumerate = m.Call(args=[m.Arg(m.Name(iterable), keyword=None, star="")])
    pair = m.Tuple(elements=[m.Element(m.Name()), m.Element(m.Name())])
    if (
        m.matches(loop.iter, over_enumerate)
        and "builtins.enumerate" in ctx.call_qualnames(loop.iter)
        and m.matches(loop.target, pair)
    ):
        return loop.target.elements[1].value.value
    return None


def _iterable_only_sized(generator, outer: cst.For, iterable: str) -> bool:
    uses = m.findall(generator.body, m.Name(iterable))
    allowed = {id(n) for n in m.findall(outer.iter, m.Name(iterable))}
    for call in m.findall(
        generator.body, m.Call(func=m.Name("len"), args=[m.Arg(m.Name(iterable))])
    ):
        allowed.add(id(call.args[0].value))
    return all(id(n) in allowed for n in uses)
