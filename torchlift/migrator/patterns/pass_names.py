"""Names the evaluation section of a split epoch body may keep for itself.

    for epoch in range(N):
        running = 0.0                        training section
        for x, y in train_loader: ...
        print("train", running)              -> on_train_epoch_end, AFTER the pass
        model.eval()
        running = 0.0                        evaluation section: the pass's setup, the pass,
        with torch.no_grad():                the epoch code after it
            for x, y in val_loader: ...
        print("val", running)

Lightning runs the training section's epoch code after the validation pass, so a name both
sections use would reach it with the pass's value. phase_loop.py gives each phase of a phase
loop its own names; here the evaluation section's copy of such a name gets the `val_` prefix,
when that cannot change what any code reads: the section binds the name on every path before
reading it, the training section does too (no value carried from the previous epoch), nothing
after the epoch loop and no other function of the script reads it, and no `global` /
`nonlocal` ties it to another scope.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ..analysis.names import collect_names, spelled_names

PREFIX = "val"


def spelled_outside_loops(body) -> set[str]:
    """Names spelled in `body` outside its loops: the epoch-level names (a name only a batch
    loop uses is a local of its step). Attribute and keyword names (`args.out`) are not."""
    return set(spelled_names(body, enters=lambda loop: False))


def pass_private(ctx, training: list, evaluation: list) -> set[str]:
    """Epoch-level names of the evaluation section shared with the training section that the
    evaluation section can rename without changing what any code reads."""
    train_use, eval_use = collect_names(*training), collect_names(*evaluation)
    candidates = (
        (eval_use.definite - eval_use.read_first)
        & spelled_outside_loops(evaluation)
        & train_use.all()
    )
    candidates -= train_use.read_first  # a value carried over from the previous epoch
    # a loop's target is bound by the loop, not by a plain assignment: the pass's index read
    # after it is its step's own (resolve_names keeps it apart from a training index)
    candidates -= _loop_targets(evaluation)
    if not candidates:
        return set()
    after = collect_names(*ctx.scope_after).reads if ctx.scope_after else set()
    return {
        name
        for name in candidates
        if name not in after
        and name not in ctx.found.get("function_globals", set())
        and name not in _declared(ctx.module)
        and name not in _read_by_other_functions(ctx)
    }


def _loop_targets(stmts) -> set[str]:
    return {
        name.value
        for stmt in stmts
        for loop in m.findall(stmt, m.For() | m.CompFor())
        for name in m.findall(loop.target, m.Name())
    }


def _declared(module: cst.Module) -> set[str]:
    """Names any `global` / `nonlocal` statement of the file declares."""
    return {
        item.name.value
        for node in m.findall(module, m.Global() | m.Nonlocal())
        for item in node.names
    }


def _read_by_other_functions(ctx) -> set[str]:
    """Names read by the script's functions and lambdas but those holding the loop (a
    closure, or a function reading a module-level loop's globals, could see them)."""
    names: set[str] = set()
    for node in m.findall(ctx.module, m.FunctionDef() | m.Lambda()):
        if not any(loop is ctx.loop for loop in m.findall(node, m.For() | m.While())):
            names |= collect_names(node).reads
    return names
