"""Pattern: what the epoch prints between its batch loop and the validation pass, printed
before the pass.

    for epoch in range(N):
        ...batch loop...
        avg = total / len(train_loader)            -> on_validation_epoch_start:
        print(f"epoch {epoch} train {avg:.4f}")         self.avg = ...; print(...)
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                print(criterion(model(x), y).item())   -> validation_step

Epoch code between training and the pass lands in `on_train_epoch_end`, which Lightning (and
the runtime) call after the pass: what it printed would come after what the pass printed.
Lightning calls `on_validation_epoch_start` after the last training batch (and the epoch
schedulers' step), before the pass; with validation after every training epoch (no
`check_val_every_n_epoch`, no sanity check: patterns/sanity_check.py) it runs once per epoch,
where the script's code ran. So the statements that only print or write files
(analysis/output_effects.py) move there, in the script's order with the pass's setup, with
the plain-name bindings of pure values they read (`avg = total / n`).

Refused (TL199) when that order cannot be kept: epoch code staying in `on_train_epoch_end`
before a moved statement that may print or changes what it reads, a moved statement reading
the batch loop's index (carried to `on_train_epoch_end` only), or a training epoch the
early-break flag ends (`on_train_batch_start` returning -1: Lightning then skips that
epoch's validation, and `on_validation_epoch_start` with it).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.confined_effects import file_classes
from ..analysis.function_reads import module_functions
from ..analysis.names import collect_names
from ..analysis.output_effects import (
    OUTPUT_CALLS,
    console_call,
    output_only,
    pure_binding,
    pure_expression,
)
from ..analysis.statements import call_method
from ..rule import Rule
from .early_break import mutated_roots

PRE_PASS_ORDER = Rule(
    "TL199",
    "what the epoch prints before the validation pass cannot be kept before it",
    """Epoch code between the batch loop and the validation pass that prints or writes files
    runs in `on_validation_epoch_start`, before the pass, as in the script. This needs the
    code that stays in `on_train_epoch_end` (after the pass) and came before it to neither
    print nor change what it reads, and validation to run after every training epoch.""",
    """Print the training results after the validation pass, or compute what the print reads
    before any other epoch code.""",
    """
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        history.append(loss.item())
        print(history[-1])
        with torch.no_grad():
            for x, y in val_loader:
                print(criterion(model(x), y).item())
    """,
)

RULES = (PRE_PASS_ORDER,)

_MODES = ("train", "eval")


def read(ctx, plan, steps) -> None:
    validation = plan.validation
    if validation is None or not validation.between:
        return
    staying = {id(s) for s in plan.post_train}
    pre_pass = [s for s in validation.between if id(s) in staying]
    moved = _moved(ctx, plan, pre_pass)
    pass_setup = [s for s in validation.before if not any(s is b for b in validation.between)]
    if not moved or not _prints(ctx, [*pass_setup, *validation.body, *validation.after]):
        return  # nothing printed by the pass (or before it): no order to keep
    if "epoch_ending_break" in ctx.found:  # early_break's flag: on_train_batch_start -> -1
        ctx.block(
            PRE_PASS_ORDER,
            "the epoch may end at the early-break flag, and Lightning then skips its "
            "validation: what the epoch printed before the pass could not be printed there",
            moved[0],
        )
        return
    index = plan.train_index
    reading_index = [s for s in moved if index and index in collect_names(s).reads]
    if reading_index:  # the last step's index is carried to on_train_epoch_end only
        ctx.block(
            PRE_PASS_ORDER,
            f"this statement reads the batch loop's index `{index}`, which only "
            "on_train_epoch_end (after the pass) can read",
            reading_index[0],
        )
        return
    moved_ids = {id(s) for s in moved}
    # epoch code of post_train in its order (another pattern may have rewritten a statement)
    end = _pass_start(plan, validation)
    earlier = []
    for stmt in plan.post_train[:end]:
        if id(stmt) in moved_ids:
            for other in earlier:
                if not _order_free(ctx, other, stmt):
                    ctx.block(
                        PRE_PASS_ORDER,
                        "epoch code before this statement stays after the validation pass "
                        "(on_train_epoch_end), and this one would move before it",
                        stmt,
                    )
                    return
        else:
            earlier.append(stmt)
    setup = {id(s) for s in validation.before}
    validation.before = [
        s for s in validation.between if id(s) in moved_ids or id(s) in setup
    ] + pass_setup
    plan.post_train = [s for s in plan.post_train if id(s) not in moved_ids]
    validation.printed_before = moved
    plan.notes.append(
        "what the epoch printed before the validation pass is printed in "
        "on_validation_epoch_start, before the pass"
    )


def _moved(ctx, plan, pre_pass: list) -> list:
    """The output-only statements before the pass and, backwards, the plain-name bindings of
    pure values they read (so they print what the script printed)."""
    models = {plan.model.name, *plan.model.aliases}
    outputs = [s for s in pre_pass if not _mode_call(s, models) and output_only(ctx, s)]
    if not outputs:
        return []
    chosen = {id(s) for s in outputs}
    needed: set[str] = set()
    for stmt in reversed(pre_pass):
        if id(stmt) in chosen:
            needed |= collect_names(stmt).reads
        elif collect_names(stmt).writes & needed and pure_binding(ctx, stmt):
            chosen.add(id(stmt))
            needed |= collect_names(stmt).reads
    return [s for s in pre_pass if id(s) in chosen]


def _order_free(ctx, earlier, moved) -> bool:
    """`earlier` (staying in on_train_epoch_end, so now after `moved`) may run after it: a
    mode call, or code that prints nothing and neither changes what `moved` reads nor reads
    what it binds."""
    if any(call_method(earlier, mode) is not None for mode in _MODES):
        return True
    if _may_print(ctx, earlier):
        return False
    changed = collect_names(earlier).writes | mutated_roots([earlier])
    if changed & collect_names(moved).reads:
        return False
    return not collect_names(earlier).reads & collect_names(moved).writes


def _may_print(ctx, stmt) -> bool:
    """A call that prints, or one whose effect is not known (a function of the script or of
    a library; a method only when a class of the script defines one of that name that
    prints: `history.append(x)` prints nothing)."""
    for call in m.findall(stmt, m.Call()):
        if ctx.call_qualnames(call) & OUTPUT_CALLS or console_call(ctx, call):
            return True
        if isinstance(call.func, cst.Attribute):
            if _prints(ctx, [call]):
                return True
            continue
        if not pure_expression(ctx, call):
            return True
    return False


def _prints(ctx, stmts: list) -> bool:
    """Some statement of the pass prints: a `print(...)`, or a call of a function or method
    of the script that makes one (followed through them; a method by its name). Files it
    writes keep their order with the epoch's prints whatever hook prints them."""
    functions = module_functions(ctx.module)
    methods: dict[str, list] = {}  # a method of the file's classes, by name (any receiver)
    for cls in file_classes(ctx.module).values():
        for item in cls.body.body:
            if isinstance(item, cst.FunctionDef):
                methods.setdefault(f".{item.name.value}", []).append(item)
    seen: set[str] = set()
    todo = list(stmts)
    while todo:
        node = todo.pop()
        for call in m.findall(node, m.Call()):
            if console_call(ctx, call):
                return True
            if isinstance(call.func, cst.Name):
                name, found = call.func.value, [functions.get(call.func.value)]
            elif isinstance(call.func, cst.Attribute):
                name = f".{call.func.attr.value}"
                found = methods.get(name, [])
            else:
                continue
            if name not in seen:
                seen.add(name)
                todo.extend(f for f in found if f is not None)
    return False


def _mode_call(stmt, models: set[str]) -> bool:
    for mode in _MODES:
        receiver = call_method(stmt, mode)
        if isinstance(receiver, cst.Name) and receiver.value in models:
            return True
    return False


def _pass_start(plan, validation) -> int:
    """Where the pass's own epoch-end code (and what followed it) starts in post_train."""
    tail = {id(s) for s in [*validation.after, *validation.following]}
    return next((i for i, s in enumerate(plan.post_train) if id(s) in tail), len(plan.post_train))
