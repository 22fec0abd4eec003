"""Pattern: values the Trainer already knows are read from it, not passed to the module.

    num_epochs = 2
    total_step = len(train_loader)
    for epoch in range(num_epochs):             -> Trainer(max_epochs=num_epochs)
        for i, (x, y) in enumerate(train_loader):
            ...
            print(f"Epoch [{epoch + 1}/{num_epochs}], Step [{i + 1}/{total_step}]")
                -> f"Epoch [{epoch + 1}/{self.trainer.max_epochs}], "
                   f"Step [{i + 1}/{self.trainer.num_training_batches}]"

A name the moved code only reads becomes `self.trainer.max_epochs` when the Trainer's
`max_epochs=` is that very name, `self.trainer.max_steps` when `max_steps=` is, and
`self.trainer.num_training_batches` when it is bound once to `len(<the training loader>)` and
the Trainer neither limits the batches (`limit_train_batches`) nor spreads them over devices
(`devices=1`, no `strategy`): then the Trainer's value is the name's at every use. The name
must be bound exactly once before the loop (or be a parameter of the function holding it) and
never written by the moved code; a `total_step = len(loader)` nothing else reads goes. Left as `__init__` arguments: names `configure_optimizers`
reads (the Trainer has not counted the batches yet when Lightning calls it), module-level
constants, and anything else.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names, reads_among, rename
from ..resolve_names import pieces_of

RULES = ()

_TRAINER_ATTRIBUTE = {"max_epochs": "max_epochs", "max_steps": "max_steps"}
_UNSHARDED = {("devices", "1")}


def clean(ctx, plan) -> None:
    pieces = pieces_of(plan)
    configure = pieces.pop("configure_optimizers")
    moved = [node for piece in pieces.values() for node in piece if node is not None]
    if not moved:
        return
    used = collect_names(*[n for n in moved if not isinstance(n, cst.BaseExpression)])
    written = used.writes | {
        n
        for t in moved
        if isinstance(t, cst.BaseExpression)
        for n in collect_names(cst.AssignTarget(t)).writes
    }
    candidates = used.reads - written - collect_names(*configure).reads - plan.module_globals
    mapping: dict[str, cst.BaseExpression] = {}
    for keyword, code in plan.trainer_args:
        if keyword in _TRAINER_ATTRIBUTE and code in candidates and _bound_once(ctx, code):
            attribute = f"self.trainer.{_TRAINER_ATTRIBUTE[keyword]}"
            mapping[code] = cst.parse_expression(attribute)
            binding = ctx.binding(code)[0]
            if binding is not None:
                why = f"`{code}` is the Trainer's `{keyword}`: the module reads `{attribute}`"
                plan.explained.append((binding[0], "trainer", why))
    for name in sorted(candidates - mapping.keys()):
        if _counts_training_batches(ctx, plan, name):
            mapping[name] = cst.parse_expression("self.trainer.num_training_batches")
            binding = ctx.binding(name)[0][0]
            others = [s for s in [*ctx.scope_before, *ctx.scope_after] if s is not binding]
            kept = reads_among({name}, *others)
            if not kept:  # `total_step = len(loader)` is left unused
                plan.remove_stmts.append(binding)
            why = (
                f"`{name}` is the number of training batches: the module reads "
                "`self.trainer.num_training_batches`"
            )
            plan.explained.append((binding, "trainer" if kept else None, why))
    if mapping:
        _rename_moved_code(plan, mapping)


def _bound_once(ctx, name: str) -> bool:
    if _is_constant(name):
        return False
    binding, count = ctx.binding(name)
    return (count == 1 and binding is not None) or (count == 0 and name in ctx.params)


def _is_constant(name: str) -> bool:
    return name.isupper() and any(c.isalpha() for c in name)  # stays a module constant


def _counts_training_batches(ctx, plan, name: str) -> bool:
    """`name = len(<training loader>)`, bound once, on one device, without a batch limit."""
    if plan.loader_stmt is not None or _is_constant(name):
        return False
    arguments = dict(plan.trainer_args)
    if "limit_train_batches" in arguments or "overfit_batches" in arguments:
        return False
    if "strategy" in arguments or not set(plan.trainer_args) & _UNSHARDED:
        return False
    binding, count = ctx.binding(name)
    loader_binding, loader_count = ctx.binding(plan.train_loader)
    if count != 1 or binding is None or loader_count > 1:
        return False
    length = m.Call(func=m.Name("len"), args=[m.Arg(m.Name(plan.train_loader), keyword=None)])
    return m.matches(binding[1], length) and "builtins.len" in ctx.call_qualnames(binding[1])


def _rename_moved_code(plan, mapping: dict[str, cst.BaseExpression]) -> None:
    def each(stmts):
        return [rename(s, mapping) for s in stmts]

    plan.pre_train = each(plan.pre_train)
    plan.train_body = each(plan.train_body)
    plan.before_step = each(plan.before_step)
    plan.after_step = each(plan.after_step)
    plan.post_train = each(plan.post_train)
    for evaluation in (plan.validation, plan.test):
        if evaluation is not None:
            evaluation.before = each(evaluation.before)
            evaluation.body = each(evaluation.body)
            evaluation.after = each(evaluation.after)
