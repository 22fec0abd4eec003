"""Pattern: a tqdm progress bar around the training loader.

    pbar = tqdm(loader, ...)          (bound in the epoch before the batch loop: removed with
    for x, y in pbar:                  its epoch-level display calls and `close()`, bound_bar.py)
                                      -> the batch loop iterates `loader` (`enumerate(loader)`
                                         in the bar gives the batch index, as written inline)
        ...
        pbar.set_postfix(loss=...,    -> removed: Lightning's bar shows the logged loss
                         acc=...)        (`prog_bar=True` when the bar showed the loss), and
                                         self.log("acc", ..., prog_bar=True) in its place

    with tqdm(total=...) as pbar:     (the loop's wrapper, shapes/wrappers.py: removed)
        ... pbar.update(1) ...        -> removed, at batch or epoch level

    bar = tqdm(range(steps))          (bound before the loop, only counted: removed)
    ... bar.update(1) ...             -> removed
    bar.close()                       (after the loop: removed)

`for x, y in tqdm(loader)` needs nothing from here (the shape looks through it). Leaves alone:
a bar over anything but one positional loader argument, and a bound bar used beyond its display
calls (TL104, bound_bar.py). A `set_postfix` value is logged when
it is a number for sure or a learning rate read from the optimizer or scheduler (the same
value; a string formatting one value alone, `f"{acc:.3f}"`, logs that value); the epoch and
batch counters are left to Lightning's bar, and any other value is dropped with a note.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names
from ..analysis.output_effects import pure_expression
from ..analysis.printed_values import string_pieces
from ..analysis.qualnames import TQDM
from ..analysis.statements import call_method, single_assign
from . import bound_bar
from .eval_metrics import is_number, numbers_of

RULES = ()


def batch_loader(ctx, iterator):
    bar = ctx.found.get("progress_bar")
    if bar and m.matches(iterator, m.Name(bar[0])):
        return bar[1]
    return iterator


def display_receiver(stmt) -> cst.BaseExpression | None:
    """`pbar` of a statement that is exactly `pbar.<display method>(...)`."""
    for method in bound_bar.DISPLAY:
        receiver = call_method(stmt, method)
        if receiver is not None:
            return receiver
    return None


def _bar_names(ctx) -> set[str]:
    bar = ctx.found.get("progress_bar")
    return set(ctx.found.get("wrapping_bars", ())) | ({bar[0]} if bar else set())


def _is_display(ctx, stmt) -> bool:
    """A display call of a bar whose arguments change nothing (dropping it loses nothing)."""
    receiver = display_receiver(stmt)
    if not (isinstance(receiver, cst.Name) and receiver.value in _bar_names(ctx)):
        return False
    return all(pure_expression(ctx, arg.value) for arg in stmt.body[0].value.args)


def epoch_body(ctx, stmts):
    """The display calls of a bar wrapping the whole loop, or bound in the epoch before the
    batch loop that iterates it (bound_bar.py), at epoch level: dropped."""
    _find_counter_bars(ctx)
    stmts = bound_bar.take(ctx, stmts)
    dropped = [s for s in stmts if _is_display(ctx, s)]
    ctx.found.setdefault("bar_displays_dropped", []).extend(dropped)  # bar_displays.py notes
    return [s for s in stmts if not any(s is d for d in dropped)]


def batch_statements(ctx, stmts):
    _find_counter_bars(ctx)  # a step loop has no epoch body
    return [bound_bar.written(ctx, s) for s in stmts]


def _find_counter_bars(ctx) -> None:
    """A bar bound before the loop and only counted (the Hugging Face course's
    `progress_bar = tqdm(range(num_training_steps))` with `progress_bar.update(1)` per step,
    `progress_bar.close()` after the loop): dropped with its calls, like a wrapping bar.
    Every use of its name must be its binding, a display call in the loop or a `close()`
    right after it -- not one in a function, read or iterated elsewhere."""
    if "counter_bars" in ctx.found:
        return
    found = {}
    for stmt in ctx.scope_before:
        assign = single_assign(stmt)
        if assign is None or not isinstance(assign[1], cst.Call):
            continue
        if not ctx.call_qualnames(assign[1]) & TQDM:
            continue
        name = assign[0]
        uses = len(m.findall(ctx.module, m.Name(name)))
        displays = [
            s
            for s in m.findall(ctx.loop, m.SimpleStatementLine())
            if m.matches(display_receiver(s), m.Name(name))
        ]
        closes = [s for s in ctx.scope_after if m.matches(call_method(s, "close"), m.Name(name))]
        if ctx.binding(name)[1] == 1 and uses == 1 + len(displays) + len(closes):
            found[name] = [stmt, *closes]
    ctx.found["counter_bars"] = found
    if found:
        ctx.found["wrapping_bars"] = set(ctx.found.get("wrapping_bars", ())) | set(found)


def claim(ctx, steps, stmt, position) -> bool:
    if not _is_display(ctx, stmt):
        return False
    steps.setdefault("bar_displays", []).append(stmt)
    steps.setdefault("bar_positions", []).append((position, stmt))
    return True


def bind(ctx, plan, steps) -> None:
    """A counter bar's binding and `close()` go with its display calls; a bar bound in the
    epoch went with its epoch-level calls (bound_bar.py): the change log says so."""
    for stmts in ctx.found.get("counter_bars", {}).values():
        plan.remove_stmts.extend(stmts)
        why = "progress bar -> Lightning's own bar (the script's counted the steps)"
        plan.removed_why.extend((stmt, why) for stmt in stmts)
    why = "progress bar -> Lightning's own bar (the Trainer iterates the loader)"
    plan.explained.extend((stmt, None, why) for stmt in ctx.found.get("bar_dropped", ()))


def read(ctx, plan, steps) -> None:
    """A bar that showed the loss (`pbar.set_postfix(loss=loss.item())`): the Trainer's bar
    shows the logged training loss instead. The other values a batch's `set_postfix` showed
    are logged with `prog_bar=True` under the script's keys, where the call stood: in
    `training_step`, or in `on_train_batch_end` when the call came after the optimizer step
    and the code around it moved there (patterns/after_step.py) or the value is a learning
    rate (Lightning steps a per-batch scheduler after `training_step`, before that hook)."""
    for stmt in steps.get("bar_displays", ()):
        if plan.loss_name in collect_names(stmt).reads:
            plan.loss_on_progress_bar = True
    known = numbers_of(
        ctx, [*plan.pre_train, *plan.before_step, *plan.train_body, *plan.after_step]
    )
    numbers = dict.fromkeys(known, True)
    # what the batch steps (a scheduler is not bound to its optimizer yet: schedulers.py)
    optimizer_state = {o.name for o in plan.optimizers} | {
        o.scheduler for o in plan.optimizers if o.scheduler
    }
    optimizer_state |= {name for _, name, _ in steps["step"]}
    opt_step = steps.get("optimizer_step")
    last_step = max((p for p, _, _ in steps["step"]), default=opt_step)
    for position, stmt in sorted(steps.get("bar_positions", ()), key=lambda item: item[0]):
        in_step, in_hook = [], []
        label, shown = ctx.found.get("shown_values", {}).get(id(stmt), ("bar", None))
        for key, value in shown if shown is not None else _postfix_values(stmt):
            if value is not None and plan.loss_name in collect_names(value).reads:
                continue  # the training loss: logged as train_loss
            if m.matches(value, m.Name()) and value.value in (plan.epoch_var, steps["index"]):
                continue  # the Trainer's bar shows the epoch and the batch
            if value is None or not key.isidentifier() or key == "train_loss":
                plan.explained.append((stmt, None, f"the {label}'s `{key}` is not logged: text"))
                continue
            if not _loggable(ctx, value, numbers):
                why = f"the {label}'s `{key}` is not logged: not provably a number"
                plan.explained.append((stmt, None, why))
                continue
            code = ctx.module.code_for_node(value)
            log = cst.parse_statement(f'self.log("{key}", {code}, prog_bar=True)\n')
            after = opt_step is not None and position > opt_step
            if after and (plan.after_step or collect_names(value).reads & optimizer_state):
                # after Lightning's own accumulation the hook sees the state the script's
                # group left on every batch (after_step.py); not after a kept group
                kept = steps.get("accumulate") is not None and steps.get("manual_optimization")
                if position < last_step or kept:
                    why = f"the {label}'s `{key}` is not logged: read between optimizer steps"
                    plan.explained.append((stmt, None, why))
                    continue
                in_hook.append(log)
                where = "on_train_batch_end"
            else:
                in_step.append(log)
                where = "training_step"
            why = f'the {label}\'s `{key}` -> `self.log("{key}", ..., prog_bar=True)`'
            plan.explained.append((stmt, where, why))
        later = next((s for p, s in steps["body"] if p > position), None)
        moved = steps.get("moved_after_step", ())
        before_in_hook = sum(1 for p, _ in moved if p < position)
        ctx.found.setdefault("bar_logs", []).append((later, in_step, before_in_hook, in_hook))


def clean(ctx, plan) -> None:
    """The logs `read` made, placed once every pattern has rebuilt the step's statements: in
    the step before the statement that followed the bar's call, or in the hook after the
    statements that preceded it there."""
    for later, in_step, before_in_hook, in_hook in reversed(ctx.found.get("bar_logs", ())):
        at = next((k for k, s in enumerate(plan.train_body) if s is later), len(plan.train_body))
        plan.train_body[at:at] = in_step
        at = min(len(plan.after_step), before_in_hook)
        plan.after_step[at:at] = in_hook


def _postfix_values(stmt) -> list[tuple[str, cst.BaseExpression | None]]:
    """(key, value) of `bar.set_postfix(k=v, ...)` or `bar.set_postfix({"k": v, ...})`, with
    a value formatted alone in a string (`f"{acc:.3f}"`) read as the value itself (None: a
    string with more in it)."""
    if call_method(stmt, "set_postfix") is None:
        return []
    call = stmt.body[0].value
    pairs = []
    for arg in call.args:
        if arg.star:
            return []
        if arg.keyword is not None:
            if arg.keyword.value != "refresh":
                pairs.append((arg.keyword.value, arg.value))
        elif isinstance(arg.value, cst.Dict):
            for element in arg.value.elements:
                if not isinstance(element, cst.DictElement) or not isinstance(
                    element.key, cst.SimpleString
                ):
                    return []
                pairs.append((element.key.evaluated_value, element.value))
        else:
            return []
    shown = []
    for key, value in pairs:
        pieces = string_pieces(value)
        if pieces is not None:
            values = [p for p in pieces if not isinstance(p, str)]
            if len(values) != 1 or any(isinstance(p, str) and p for p in pieces):
                value = None  # text around the value (or none): not a number to log
            else:
                value = values[0]
        shown.append((key, value))
    return shown


def _loggable(ctx, value, numbers: dict) -> bool:
    """A number for sure, or a learning rate read from the optimizer or scheduler
    (`opt.param_groups[0]["lr"]`, `sched.get_last_lr()[0]`)."""
    if is_number(ctx, value, numbers):
        return True
    learning_rate = m.Subscript(
        value=m.Subscript(value=m.Attribute(attr=m.Name("param_groups"))),
        slice=[m.SubscriptElement(m.Index(m.SimpleString()))],
    )
    if m.matches(value, learning_rate):
        return value.slice[0].slice.value.evaluated_value == "lr"
    last_lr = m.Subscript(
        value=m.Call(func=m.Attribute(attr=m.Name("get_last_lr")), args=[]),
        slice=[m.SubscriptElement(m.Index(m.Integer()))],
    )
    return m.matches(value, last_lr)
