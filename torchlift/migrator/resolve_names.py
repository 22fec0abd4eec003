"""Decide, for every name the extracted code touches, what it becomes in the LightningModule.

- read-only names bound before the loop -> `__init__` argument stored as `self.<name>`
  (module-level imports, classes and functions stay globals);
- names carried across steps or hooks (accumulators, counters) -> `self.<name>` state, with
  the pre-loop value passed in and the final value read back after `trainer.fit` if later
  code uses it;
- names written and read inside one step or hook -> plain locals.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .loop_rules import (
    BINDING,
    LOCAL_DEFINITION,
    MIXED_PRECISION,
    NOT_CARRIED_BACK,
    REBINDS_OWNED_NAME,
    UNPASSABLE_NAME,
)
from .names import NameUse, collect_names
from .plan import LoopPlan
from .rule import Unsupported


@dataclass
class ScopeInfo:
    before_writes: set[str]  # names the loop's scope binds before the loop (incl. parameters)
    function_imports: set[str]  # names a function container binds by import
    after_reads: set[str]  # names read by code after the loop in the same scope
    after_writes: set[str]
    other_reads: set[str]  # names read by the scope outside the loop and moved statements
    module_defs: set[str]  # module-level imports, classes, functions
    in_function: bool


def pieces_of(plan: LoopPlan) -> dict[str, list[cst.CSTNode]]:
    pieces = {
        "on_train_epoch_start": list(plan.pre_train),
        "training_step": [plan.train_target, *plan.train_body],
        "on_train_epoch_end": list(plan.post_train),
    }
    if plan.validation:
        pieces["on_validation_epoch_start"] = list(plan.validation.before)
        pieces["validation_step"] = [plan.validation.target, *plan.validation.body]
    if plan.test:
        pieces["on_test_epoch_start"] = list(plan.test.before)
        pieces["test_step"] = [plan.test.target, *plan.test.body]
        pieces["on_test_epoch_end"] = list(plan.test.after)
    configure = [plan.optimizer_stmt]
    if plan.scheduler_stmt is not None:
        configure.append(plan.scheduler_stmt)
    pieces["configure_optimizers"] = configure
    return pieces


def _uses(piece: list[cst.CSTNode]) -> NameUse:
    use = NameUse()
    for node in piece:
        if isinstance(node, cst.BaseExpression):  # a batch target: written first
            use.writes |= collect_names(cst.AssignTarget(node)).writes
        else:
            use.update(collect_names(node))
    return use


def _is_constant(name: str) -> bool:
    return name.isupper() and any(c.isalpha() for c in name)


def _refuse(rule, reason: str, node) -> None:
    raise Unsupported(rule, reason, node)


def resolve_names(plan: LoopPlan, scope: ScopeInfo, block=_refuse) -> dict[str, NameUse]:
    """Fill the plan's init_args / state / rebind lists. Each name that cannot be resolved is
    reported through `block(rule, reason, node)` (the planner collects them all)."""
    pieces = pieces_of(plan)
    uses = {hook: _uses(nodes) for hook, nodes in pieces.items()}
    special = {plan.model, *plan.model_aliases, plan.train_loader, *plan.device_names}
    if plan.scaler and (
        plan.scaler in scope.after_reads
        or plan.scaler in scope.other_reads
        or any(plan.scaler in u.all() for u in uses.values())
    ):
        block(MIXED_PRECISION, f"`{plan.scaler}` is used beyond the step", plan.epoch_loop)
    if plan.model_aliases & (scope.after_reads | scope.other_reads):
        block(
            NOT_CARRIED_BACK, "the DataParallel wrapper is used outside the loop", plan.epoch_loop
        )
    if plan.epoch_var:
        special.add(plan.epoch_var)
    if plan.validation:
        special.add(plan.validation.loader)
    if plan.test:
        special.add(plan.test.loader)
    optim_names = {plan.optimizer} | ({plan.scheduler} if plan.scheduler else set())

    for hook, use in uses.items():
        if hook != "configure_optimizers" and use.writes & optim_names:
            name = sorted(use.writes & optim_names)[0]
            block(BINDING, f"the loop rebinds `{name}`", plan.epoch_loop)
        if use.writes & special:
            name = sorted(use.writes & special)[0]
            block(REBINDS_OWNED_NAME, f"the loop rebinds `{name}`", plan.epoch_loop)
    if scope.other_reads & optim_names:
        name = sorted(scope.other_reads & optim_names)[0]
        block(
            BINDING,
            f"`{name}` is used before the training loop; not converted",
            plan.epoch_loop,
        )
    # read after the loop (e.g. saved in a checkpoint): rebound from the trainer after fit
    plan.optim_after = sorted(scope.after_reads & optim_names)
    if plan.epoch_var and plan.epoch_var in scope.after_reads:
        block(NOT_CARRIED_BACK, f"code after the loop reads `{plan.epoch_var}`", plan.epoch_loop)
    for index, hook in (
        (plan.train_index, "training_step"),
        (plan.validation.index if plan.validation else None, "validation_step"),
        (plan.test.index if plan.test else None, "test_step"),
    ):
        if index and any(index in u.all() for h, u in uses.items() if h != hook):
            block(UNPASSABLE_NAME, f"batch index `{index}` used outside its step", plan.epoch_loop)

    all_names: list[str] = []
    for use in uses.values():
        for name in sorted(use.all()):
            if name not in all_names:
                all_names.append(name)
    locals_configure = optim_names
    loaders = {plan.train_loader} | ({plan.validation.loader} if plan.validation else set())
    extra_init = sorted(uses["configure_optimizers"].reads & loaders)
    init_args, state, rebind, test_rebind = [], set(), [], []
    # a def or class written in a piece binds a local of the hook it lands in
    defined = {
        node.name.value: node
        for piece in pieces.values()
        for node in piece
        if isinstance(node, (cst.FunctionDef, cst.ClassDef))
    }
    for name in all_names:
        if name in special or name in locals_configure or name == "self":
            continue
        if name in (
            plan.train_index,
            plan.validation.index if plan.validation else None,
            plan.test.index if plan.test else None,
        ):
            continue
        written = any(name in u.writes for u in uses.values())
        if written:
            carried = name in scope.after_reads or any(name in u.read_first for u in uses.values())
            if not carried:
                continue  # local to each step/hook that uses it
            if name in defined:
                block(
                    LOCAL_DEFINITION,
                    f"`{name}` is defined in the loop and used by another step or hook; "
                    "define it before the loop",
                    defined[name],
                )
                continue
            state.add(name)
            if name in scope.before_writes:
                init_args.append(name)
            if name in scope.after_reads:
                test_hooks = ("on_test_epoch_start", "test_step", "on_test_epoch_end")
                if any(name in uses[h].writes for h in test_hooks if h in uses):
                    test_rebind.append(name)
                else:
                    rebind.append(name)
            continue
        if name in scope.function_imports:
            block(
                UNPASSABLE_NAME,
                f"the loop reads `{name}`, imported inside the function; import it at module level",
                plan.epoch_loop,
            )
        if name in scope.before_writes:
            if not scope.in_function and (name in scope.module_defs or _is_constant(name)):
                continue  # module-level imports, definitions and CONSTANTS stay globals
            init_args.append(name)
        elif name in scope.after_writes:
            block(
                UNPASSABLE_NAME,
                f"the loop reads `{name}`, which is only bound after the loop",
                plan.epoch_loop,
            )
    if plan.model in scope.after_reads:
        used = sorted(plan.device_names & scope.after_reads)
        plan.device_after = used[0] if used else None
    plan.init_args = init_args + [n for n in extra_init if n not in init_args]
    plan.loader_args = extra_init
    plan.state = state
    plan.rebind_after = rebind
    plan.test_rebind = test_rebind
    return uses
