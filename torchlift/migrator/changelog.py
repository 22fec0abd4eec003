"""The change log of one converted loop: which source lines became which output lines, and why.

Built after the conversion from two `ast` trees — the input's and the output's — and the names
the conversion used (loader, optimizer, the generated class, trainer and module instance), so
it reads the plan's facts, never the diff. Each Change maps a source range to an output range;
`None` on one side means code added (the import) or removed (a device move).
"""

from __future__ import annotations

import ast
import copy
import functools
from dataclasses import dataclass, field

from .outcomes import CONVERTED
from .result import Change

_STEP_CALLS = {"zero_grad", "step", "update"}
_CLIP_CALLS = {"clip_grad_norm_", "clip_grad_norm", "clip_grad_value_"}  # and its old alias
_MODE_CALLS = {"train", "eval"}


@dataclass(frozen=True)
class LoopFacts:
    """What the conversion of one loop decided, by name and position (no libcst nodes)."""

    epoch_loop_at: tuple[int, int]  # (line, column) of `for epoch in ...`
    train_loader: str
    optimizers: frozenset[str]
    schedulers: frozenset[str]  # schedulers stepped on them
    model_names: frozenset[str]
    device_names: frozenset[str]
    scaler: str | None
    validation_loader: str | None
    test_loader: str | None
    helpers: tuple[str, ...]  # inlined helper functions (their loops moved into the class)
    closures: tuple[tuple[str, str], ...] = field(default=())  # inlined (closure, its owner)
    removed_at: tuple[tuple[int, int], ...] = field(default=())  # other statements deleted
    held_after: frozenset[str] = field(default=frozenset())  # other modules put back after fit
    removed_why: tuple = field(default=())  # ((line, column), why) of some of them
    rewritten: tuple = field(default=())  # ((line, column), the new code unparsed, why)
    optimizer_at: tuple[tuple[int, int], ...] = field(default=())  # optimizer / scheduler lines
    stripped_at: tuple[tuple[int, int], ...] = field(default=())  # statements losing a move
    after_step_at: tuple[tuple[int, int], ...] = field(default=())  # -> on_train_batch_end
    train_mode_hooks: tuple[str, ...] = field(default=())  # on_*_model_eval kept in train mode
    sanity_check_off: bool = False  # num_sanity_val_steps=0
    device_at: tuple[tuple[int, int], ...] = field(default=())  # the device choice
    device_note: str = ""  # what the Trainer's device arguments say
    manual_optimization: bool = False  # the step keeps the script's optimizer calls
    kept_modes_at: tuple[tuple[int, int], ...] = field(default=())  # mode switches kept
    held_schedulers: frozenset = frozenset()  # stepped by the script's own statement
    explained: tuple = field(default=())  # ((line, column), method | "trainer" | None, why)
    # what the conversion generated
    class_name: str = ""
    instance_name: str = ""
    trainer_name: str = ""
    step_loop: bool = False  # a step loop (shapes/iteration.py): one epoch of iterations
    generated_loader: bool = False  # the training loader is generated (a range of numbers)
    generated_val_loader: bool = False  # so is the validation loader (patterns/eval_ranges.py)
    phase_loop_at: tuple[int, int] | None = None  # `for phase in ["train", "val"]:`
    # module-level classes the loaders need (patterns/generator_loader.py's re-iterable)
    helper_classes: tuple[str, ...] = field(default=())


def facts_of(plan, lines, class_name: str, instance_name: str, trainer_name: str) -> LoopFacts:
    """The LoopFacts of one converted plan (`lines`: the LineIndex of its libcst statements)."""

    def positions(stmts):
        found = (lines.lines.get(id(s)) for s in stmts if s is not None)
        return tuple(p for p in found if p is not None)

    optimizers = plan.optimizers
    return LoopFacts(
        epoch_loop_at=lines.position(plan.epoch_loop, (1, 0)),
        train_loader=plan.loader_exprs.get(plan.train_loader, plan.train_loader),
        optimizers=frozenset(o.name for o in optimizers),
        schedulers=frozenset(o.scheduler for o in optimizers if o.scheduler),
        held_schedulers=frozenset(o.scheduler for o in optimizers if o.scheduler_held),
        model_names=frozenset(n for m in plan.models for n in (m.name, *m.aliases)),
        held_after=frozenset(plan.held_after),
        device_names=frozenset(plan.device_names),
        scaler=plan.scaler,
        validation_loader=(
            plan.loader_exprs.get(plan.validation.loader, plan.validation.loader)
            if plan.validation
            else None
        ),
        test_loader=plan.test.loader if plan.test else None,
        helpers=tuple(plan.inlined_helpers),
        closures=tuple(plan.inlined_closures.items()),
        removed_at=positions(plan.remove_stmts),
        removed_why=tuple(
            (lines.lines[id(stmt)], why)
            for stmt, why in plan.removed_why
            if lines.lines.get(id(stmt)) is not None
        ),
        rewritten=tuple(
            (lines.lines[id(stmt)], _unparsed(code), why)
            for stmt, code, why in plan.rewritten_why
            if lines.lines.get(id(stmt)) is not None and _unparsed(code) is not None
        ),
        optimizer_at=positions(s for o in optimizers for s in (o.stmt, o.scheduler_stmt)),
        stripped_at=positions(plan.strip_stmts),
        after_step_at=positions(plan.after_step_source),
        train_mode_hooks=tuple(
            hook
            for hook, evaluation in (
                ("on_validation_model_eval", plan.validation),
                ("on_test_model_eval", plan.test),
            )
            if evaluation is not None and evaluation.keeps_train_mode
        ),
        sanity_check_off=("num_sanity_val_steps", "0") in plan.trainer_args,
        device_at=positions([plan.device_stmt]),
        device_note=plan.device_note,
        manual_optimization=plan.manual_optimization,
        kept_modes_at=positions(plan.kept_mode_calls),
        explained=tuple(
            (lines.lines[id(stmt)], where, why)
            for stmt, where, why in plan.explained
            if id(stmt) in lines.lines
        ),
        class_name=class_name,
        instance_name=instance_name,
        trainer_name=trainer_name,
        step_loop=plan.step_loop,
        generated_loader=plan.loader_stmt is not None,
        generated_val_loader=plan.eval_loader_stmt is not None and plan.validation is not None,
        phase_loop_at=lines.position(plan.phase_loop, None) if plan.phase_loop else None,
        helper_classes=tuple(
            node.name
            for code in plan.helper_defs
            for node in ast.parse(code).body
            if isinstance(node, ast.ClassDef)
        ),
    )


def _unparsed(code: str) -> str | None:
    """`code` (one statement) as `ast.unparse` writes it: how _OutputIndex finds it."""
    try:
        return ast.unparse(ast.parse(code.strip()).body[0])
    except (SyntaxError, IndexError):
        return None


def loop_changes(
    source_tree: ast.Module, output_tree: ast.Module, facts: LoopFacts
) -> list[Change]:
    src = _SourceIndex(source_tree)
    out = _OutputIndex(output_tree, facts)
    epoch = src.at(facts.epoch_loop_at)
    if not isinstance(epoch, (ast.For, ast.AsyncFor, ast.While)):
        return []
    changes: list[Change] = []

    def add(source, output, message, *, removed: bool = False) -> None:
        """A change from `source` to `output`; a removal has no output. Parts the conversion
        did not produce (no such loop, no such hook) add nothing."""
        if source is None or (output is None and not removed):
            return
        changes.append(Change(CONVERTED.code, _span(source), _span(output), message))

    helpers = [src.function(name) for name in facts.helpers]
    helpers += [src.closure(name, owner) for name, owner in facts.closures]
    regions = [epoch, *helpers]
    # in a helper the loader is a parameter: its loop is then the one around backward()
    batch = _loop_over(regions, facts.train_loader) or _loop_with_backward(helpers, True)
    if batch is None and facts.generated_loader and not facts.step_loop:  # over range(...)
        batch = _loop_with_backward([epoch], True)
    validation = None
    if facts.validation_loader:
        validation = _loop_over([epoch], facts.validation_loader) or _loop_with_backward(
            helpers, False
        )
    phases = src.at(facts.phase_loop_at) if facts.phase_loop_at else None
    if phases is not None:  # one batch loop in the source serves both passes
        batch = _loop_with_backward([phases], True)
        validation = batch if facts.validation_loader else None
        add(
            _header(phases),
            out.cls,
            "phase loop -> a training pass and a validation pass: each phase's copy of the "
            "body with `" + ast.unparse(phases.target) + "` resolved",
        )
    fit_block = out.block_calling("fit")
    _worker_signature(src, output_tree, epoch, add)
    early = out.run_holding(out.trainer)
    if early is not None and early is not fit_block:
        add(
            _header(epoch),
            early,
            "`L.Trainer(...)` built where the script started its process group: the code "
            "between it and `fit` reads the rank from it",
        )

    add(epoch, out.cls, f"training loop -> LightningModule `{facts.class_name}`")
    for helper in helpers:
        if helper is not None:
            add(helper, out.cls, _inlined_why(helper, output_tree))
    for name in facts.helper_classes:
        add(
            _header(batch if batch is not None else epoch),
            out.class_named(name),
            f"`{name}`: the loaders' class, calling the script's generator anew each epoch "
            "with the same arguments, as its loop did",
        )
    for stmt in fit_block or ():
        if _assigns(stmt, facts.scaler) and "precision_plugin" in ast.unparse(stmt.value):
            add(
                _header(epoch),
                stmt,
                f"`{facts.scaler}` after `fit` -> the GradScaler of the Trainer's mixed precision, "
                "the one that trained (the script's own when the flag turns it off)",
            )
        if out.puts_model_back(stmt):
            add(
                _header(epoch),
                stmt,
                "the model put back on the script's device after `fit` (Lightning hands it "
                "back on the CPU; the code after the loop uses it there)",
            )
        if out.puts_model_back(stmt, "eval"):
            add(_header(epoch), stmt, _BACK_TO_EVAL)
        if out.puts_model_back(stmt, names=facts.held_after):
            name = stmt.value.func.value.id
            add(
                _header(epoch),
                stmt,
                f"`{name}` put back on the script's device after `fit`: the LightningModule "
                "holds it, and Lightning hands it back on the CPU with the model",
            )
    generated = facts.generated_loader or facts.generated_val_loader
    if generated and fit_block is not None:  # and the comment line above it
        fit_block = (fit_block[0].lineno - 1, max(n.end_lineno for n in fit_block))
    if facts.step_loop:
        add(
            _header(epoch),
            fit_block,
            f"step loop -> one epoch over `{facts.train_loader}` (the iteration numbers) + "
            "`fit`: the Trainer runs the steps",
        )
        add(
            list(epoch.body),
            out.method("training_step"),
            "step loop body -> `training_step`, its iteration number as the batch",
        )
        _step_loop_changes(epoch, out, facts, add)
    else:
        add(
            _header(epoch),
            fit_block,
            "epoch loop -> `L.Trainer(max_epochs=...)` + `fit`: the Trainer runs the epochs",
        )
    if batch is not None:
        add(
            batch,
            out.method("training_step"),
            f"batch loop over `{facts.train_loader}` -> "
            "`training_step`: the Trainer iterates the loader",
        )
        steps = [s for s in _statements(batch) if _is_step_call(s, facts)]
        if facts.manual_optimization and not facts.optimizers:  # patterns/hand_update.py
            add(
                _union(steps),
                out.method("training_step"),
                "manual optimization: `backward()` -> `self.manual_backward()`, the script's "
                "update of the parameters by hand, `zero_grad()` and clipping kept where it "
                "has them; `configure_optimizers` returns None (no optimizer)",
            )
            steps = []
        elif facts.manual_optimization:
            add(
                _union(steps),
                out.method("training_step"),
                "manual optimization: `backward()` -> `self.manual_backward()`, the script's "
                "`zero_grad()` / `step()` / clipping kept where it calls them",
            )
            steps = []
        else:
            add(
                _union(steps),
                out.returned("training_step"),
                "`zero_grad()` / `backward()` / `step()` -> the loss `training_step` returns: "
                "Lightning runs the optimizer step",
            )
        for stmt in _statements(batch) if not facts.manual_optimization else ():
            if isinstance(stmt, ast.If) and _has_modulo(stmt.test) and _calls(stmt, {"step"}):
                add(  # its clipping and other code are statements of their own
                    _header(stmt),
                    out.trainer,
                    "`if (i + 1) % N == 0:` step -> `accumulate_grad_batches=N`",
                )
            elif _calls(stmt, _CLIP_CALLS) and isinstance(stmt, ast.Assign):
                add(
                    stmt,
                    out.method("configure_gradient_clipping"),
                    "gradient clipping whose norm the script keeps -> its own statement in "
                    "`configure_gradient_clipping` (called after backward, before the step)",
                )
            elif _calls(stmt, _CLIP_CALLS):
                add(
                    stmt,
                    out.trainer,
                    "gradient clipping -> `gradient_clip_val` of the Trainer",
                )
            elif isinstance(stmt, (ast.With, ast.AsyncWith)) and _calls(stmt.items, {"autocast"}):
                add(
                    _header(stmt),
                    out.trainer,
                    "`autocast` -> `precision=` of the Trainer",
                )
    for position in facts.device_at:
        add(src.at(position), out.trainer, facts.device_note)
    created = _created_tensors(_statements(epoch, *regions[1:]))
    kept_in_step = set()  # a manual step keeps its mode switches where they are
    if batch is not None and facts.manual_optimization:
        kept_in_step = {id(stmt) for stmt in _statements(batch)}
    kept = set(facts.kept_modes_at)  # mode switches mode_calls kept (patterns/mode_calls.py)
    for stmt in _statements(epoch, *regions[1:]):
        if _moves_to_device(stmt, facts.device_names, created):
            add(
                stmt,
                None,
                "device move removed: the Trainer puts the model and batches on its device",
                removed=True,
            )
        elif (
            _mode_switch(stmt, facts.model_names)
            and id(stmt) not in kept_in_step
            and (stmt.lineno, stmt.col_offset) not in kept
        ):
            add(
                stmt,
                None,
                "`train()` / `eval()` removed: Lightning switches the mode around validation",
                removed=True,
            )
        elif any(_method_call(stmt, name, "step") for name in facts.schedulers):
            if facts.manual_optimization:
                add(
                    stmt,
                    out.cls,
                    "`scheduler.step()` kept where the script calls it, from "
                    "`self.lr_schedulers()` (manual optimization steps no scheduler itself)",
                )
                continue
            if any(_method_call(stmt, name, "step") for name in facts.held_schedulers):
                add(
                    stmt,
                    out.cls,
                    "`scheduler.step()` kept where the script steps it: epoch code reads the "
                    "optimizer or scheduler around it, and Lightning would step it after the "
                    "epoch's last batch",
                )
                continue
            add(
                stmt,
                out.method("configure_optimizers"),
                "`scheduler.step()` -> the `lr_scheduler` of `configure_optimizers` (its interval)",
            )
    levels = _epoch_level(epoch, batch, validation, facts, helpers)
    post = levels[0][1]
    if validation is not None:
        enclosing = _top_level_statement(epoch, validation) or next(
            (h for h in helpers if h is not None and _contains(h, validation)),
            validation,
        )
        add(
            validation,
            out.method("validation_step"),
            f"validation loop over `{facts.validation_loader}` -> `validation_step`",
        )
        hooks = ["on_validation_epoch_start", "on_validation_epoch_end"]
        if not post:  # prints after the validation loop report the epoch
            hooks.append("on_train_epoch_end")
        for hook in hooks:
            add(
                enclosing,
                out.method(hook),
                f"code around the validation loop -> `{hook}`",
            )
    for position in facts.optimizer_at:
        add(
            src.at(position),
            out.method("configure_optimizers"),
            "optimizer / scheduler -> `configure_optimizers`",
        )
    for position in facts.stripped_at:
        stmt = src.at(position)
        if stmt is not None:
            kept = _without_device_moves(stmt, facts.device_names)
            moved = kept != ast.unparse(stmt)
            written = out.statement(kept) or _union(  # a tuple assignment written one per name
                [out.statement(c) for c in _one_per_name(stmt, facts.device_names)]
            )
            add(
                stmt,
                written,
                "device move removed: the Trainer puts the model on its device"
                if moved
                else "model kept: the LightningModule holds it and the Trainer places it",
            )
    for position, code, why in facts.rewritten:
        add(src.at(position), out.statement(code), why)
    why_removed = dict(facts.removed_why)
    for position in facts.removed_at:
        add(
            src.at(position),
            None,
            why_removed.get(position, "removed: the Trainer owns it (device, wrapper or scaler)"),
            removed=True,
        )
    for before, after in levels:
        add(
            _union(before),
            out.method("on_train_epoch_start"),
            "epoch-start code -> `on_train_epoch_start`",
        )
        add(
            _union(after),
            out.method("on_train_epoch_end"),
            "epoch-end code -> `on_train_epoch_end`",
        )
    test = None
    if facts.test_loader:
        after = [s for s in _statements(*src.siblings_after(epoch))]
        test = _loop_over(after, facts.test_loader) or _first_reading(after, facts.test_loader)
        add(
            test,
            out.method("test_step"),
            f"test loop over `{facts.test_loader}` -> `test_step`",
        )
        add(test, out.block_calling("test"), "test loop -> `trainer.test(...)`")
        for stmt in out.block_calling("test") or ():
            if out.puts_model_back(stmt, "eval"):
                add(test, stmt, _BACK_TO_EVAL)
    add(
        _union([src.at(p) for p in facts.after_step_at]),
        out.method("on_train_batch_end"),
        "code after `optimizer.step()` reading what the step changed -> `on_train_batch_end`: "
        "Lightning calls it after its optimizer step",
    )
    for hook in facts.train_mode_hooks:
        add(
            validation if hook == "on_validation_model_eval" else test,
            out.method(hook),
            f"evaluated without `model.eval()`: `{hook}` keeps train mode (Lightning would "
            "switch to eval mode: Dropout and BatchNorm would change the numbers)",
        )
    if facts.sanity_check_off:
        add(
            validation,
            out.trainer,
            "`num_sanity_val_steps=0`: the script never validated the untrained model (no "
            "validation prints, files or state before training)",
        )
    for first, stmt in out.kept_draws:
        if out.run_holding(stmt) is out.block_calling("test"):
            where, source = "`test` creates its iterator", test
        else:
            where = "`fit` creates the first epoch's iterator (the next epochs' in hooks)"
            source = _header(batch if batch is not None else epoch)
        add(
            source,
            (first, stmt.end_lineno),
            "the tqdm.auto bar's `iter()` of its loader when built (a DataLoader iterator "
            f"draws a seed from torch's generator) -> the same `iter()` right before {where}",
        )
    for position, where, why in facts.explained:
        output = out.trainer if where == "trainer" else where and out.method(where)
        add(src.at(position), output, why, removed=where is None)
    return changes


def import_change(output_tree: ast.Module, module: str, why: str = "") -> list[Change]:
    """The change adding `import <module> [as alias]` (the Lightning import, or a module the
    generated code reads: `sys` of a step loop's `sys.maxsize`), when the output has it."""
    for stmt in output_tree.body:
        for alias in stmt.names if isinstance(stmt, ast.Import) else ():
            if alias.name == module:
                named = f" as {alias.asname}" if alias.asname else ""
                added = f"`import {module}{named}` added" + (f" ({why})" if why else "")
                return [Change(CONVERTED.code, None, _span(stmt), added)]
    return []


# --- source side -----------------------------------------------------------------------------


class _SourceIndex:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self._by_position: dict[tuple[int, int], ast.stmt] = {}
        self._functions: dict[str, ast.FunctionDef] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt):
                self._by_position.setdefault((node.lineno, node.col_offset), node)
            if isinstance(node, ast.FunctionDef):
                self._functions.setdefault(node.name, node)

    def at(self, position: tuple[int, int]):
        return self._by_position.get(position)

    def siblings_after(self, stmt: ast.stmt) -> list[ast.stmt]:
        """The statements after `stmt` in its block, as roots (themselves included)."""
        for node in ast.walk(self.tree):
            for name in ("body", "orelse", "finalbody"):
                block = getattr(node, name, None)
                if isinstance(block, list) and any(s is stmt for s in block):
                    at = next(i for i, s in enumerate(block) if s is stmt)
                    return [_Block(block[at + 1 :])]
        return []

    def function(self, name: str):
        return self._functions.get(name)

    def closure(self, name: str, owner: str):
        """The function `name` defined in the body of the module-level function `owner`."""
        outer = next(
            (s for s in self.tree.body if isinstance(s, ast.FunctionDef) and s.name == owner),
            None,
        )
        return next(
            (
                s
                for s in (outer.body if outer is not None else ())
                if isinstance(s, ast.FunctionDef) and s.name == name
            ),
            None,
        )


@dataclass(frozen=True)
class _Block:
    """A list of statements that `_statements` walks like a compound statement's body."""

    body: list


def _statements(*roots):
    """Statements under `roots` (not the roots), not entering nested functions or classes."""
    for root in roots:
        if root is None:
            continue
        stack = list(_blocks(root))
        while stack:
            stmt = stack.pop(0)
            yield stmt
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack[0:0] = list(_blocks(stmt))


def _blocks(stmt):
    for name in ("body", "orelse", "finalbody"):
        yield from getattr(stmt, name, ())
    for handler in getattr(stmt, "handlers", ()):
        yield from handler.body


def _loop_over(regions, loader: str | None):
    for stmt in _statements(*regions):
        if isinstance(stmt, (ast.For, ast.AsyncFor)) and any(
            isinstance(n, ast.Name) and n.id == loader for n in ast.walk(stmt.iter)
        ):
            return stmt
    return None


def _loop_with_backward(regions, wanted: bool):
    """The first loop in `regions` that calls backward() (wanted) or does not (not wanted)."""
    for stmt in _statements(*regions):
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            calls = any(
                isinstance(n, ast.Attribute) and n.attr == "backward" for n in ast.walk(stmt)
            )
            if calls == wanted:
                return stmt
    return None


def _first_reading(stmts, name: str):
    for stmt in stmts:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and any(
            isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt)
        ):
            return stmt
    return None


def _contains(root, inner) -> bool:
    return any(node is inner for node in ast.walk(root))


def _top_level_statement(epoch, inner):
    return next((stmt for stmt in epoch.body if _contains(stmt, inner)), None)


def _epoch_level(epoch, batch, validation, facts, helpers):
    """Statements of the epoch body before the batch loop, and after it (outside validation),
    other than the device moves and mode switches the conversion removes; then the same of the
    inlined helper holding the batch loop, if any (each pair its own changes: a range of lines
    spanning both would cover the code between them)."""
    pre, post, seen_batch = [], [], False
    inner = []  # (before, after) its batch loop in an inlined helper, mapped on their own
    for stmt in epoch.body:
        if _moves_to_device(stmt, facts.device_names) or _mode_switch(stmt, facts.model_names):
            continue
        if any(_method_call(stmt, name, "step") for name in facts.schedulers):
            continue
        reached = _reaches(stmt, helpers)  # the statement and the helpers it calls
        if batch is not None and any(_contains(r, batch) for r in reached):
            seen_batch = True
            helper = next((h for h in reached[1:] if _contains(h, batch)), None)
            if helper is not None:  # the helper's own code around its batch loop
                inner.append(_around(helper, batch, validation, facts))
            continue
        if validation is not None and any(_contains(r, validation) for r in reached):
            continue
        (post if seen_batch else pre).append(stmt)
    return [(pre, post), *inner]


def _around(helper, batch, validation, facts):
    """The statements of an inlined helper's body before its batch loop and after it, as
    `_epoch_level` reads an epoch body (a final `return` of a plain name or constant writes
    nothing)."""
    before, after, seen = [], [], False
    for stmt in helper.body:
        if _contains(stmt, batch):
            seen = True
            continue
        if _moves_to_device(stmt, facts.device_names) or _mode_switch(stmt, facts.model_names):
            continue
        if validation is not None and _contains(stmt, validation):
            continue
        if isinstance(stmt, ast.Return) and isinstance(stmt.value, (ast.Name, ast.Constant)):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # the docstring
        (after if seen else before).append(stmt)
    return before, after


def _reaches(stmt, helpers) -> list:
    called = {
        n.func.id
        for n in ast.walk(stmt)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    return [stmt, *(h for h in helpers if h is not None and h.name in called)]


def _calls(node, names: set[str]) -> bool:
    nodes = node if isinstance(node, list) else [node]
    for root in nodes:
        for sub in ast.walk(root):
            if isinstance(sub, ast.Call):
                func = sub.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in names:
                    return True
    return False


def _method_call(stmt, receiver: str, method: str) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == method
        and isinstance(stmt.value.func.value, ast.Name)
        and stmt.value.func.value.id == receiver
    )


def _step_loop_changes(loop, out, facts: LoopFacts, add) -> None:
    """The optimizer calls, clipping and the code after the step of a step loop's body."""
    body = loop.body
    steps = [s for s in body if _is_step_call(s, facts)]
    add(
        _union(steps),
        out.returned("training_step"),
        "`zero_grad()` / `backward()` / `step()` -> the loss `training_step` returns: "
        "Lightning runs the optimizer step",
    )
    for stmt in body:
        if _calls(stmt, _CLIP_CALLS):
            add(stmt, out.trainer, "gradient clipping -> `gradient_clip_val` of the Trainer")
    last_step = max((s.lineno for s in steps if s.value.func.attr == "step"), default=None)
    after = [s for s in body if last_step is not None and s.lineno > last_step]
    add(
        _union(after) if after else None,
        out.method("on_train_batch_end"),
        "code after `optimizer.step()` reading the model -> `on_train_batch_end` (after the step)",
    )


def _is_step_call(stmt, facts: LoopFacts) -> bool:
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr == "backward":
        return True
    owners = {*facts.optimizers, facts.scaler}
    return func.attr in _STEP_CALLS and isinstance(func.value, ast.Name) and func.value.id in owners


# torch functions creating a tensor on the CPU: their `.to(device)` stays (patterns/device_moves)
_FACTORIES = frozenset(
    "tensor as_tensor from_numpy zeros ones empty full eye arange linspace logspace rand randn "
    "randint randperm normal bernoulli multinomial".split()
)


def _creates_tensor(node) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        func = node.func
        if isinstance(func.value, ast.Name) and func.value.id == "torch":
            return func.attr in _FACTORIES
        return _creates_tensor(func.value)
    if isinstance(node, ast.BinOp):
        return _creates_tensor(node.left) or _creates_tensor(node.right)
    if isinstance(node, ast.Compare):  # `(torch.rand(n) > p).float()`: a mask
        return any(_creates_tensor(side) for side in (node.left, *node.comparators))
    if isinstance(node, ast.UnaryOp):
        return _creates_tensor(node.operand)
    return False


def _created_tensors(stmts) -> set:
    """Names bound to a tensor the code creates (`noise = torch.randn(...)`)."""
    return {
        stmt.targets[0].id
        for stmt in stmts
        if isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and _creates_tensor(stmt.value)
    }


def _kept_move(call, created) -> bool:
    """A move of a tensor the code creates: kept (as `.to(self.device)`), not removed."""
    receiver = call.func.value
    if isinstance(receiver, ast.Name):
        return receiver.id in created
    return _creates_tensor(receiver)


def _moves_to_device(stmt, device_names, created=frozenset()) -> bool:
    if isinstance(
        stmt,
        (
            ast.For,
            ast.AsyncFor,
            ast.While,
            ast.If,
            ast.With,
            ast.AsyncWith,
            ast.Try,
            ast.FunctionDef,
            ast.ClassDef,
        ),
    ):
        return False  # compound statements are judged by their own simple statements
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if _kept_move(node, created):
                continue
            if node.func.attr == "cuda":
                return True
            if node.func.attr == "to" and any(
                isinstance(a, ast.Name) and a.id in device_names for a in node.args
            ):
                return True
    return False


def _without_device_moves(stmt, device_names) -> str:
    """The statement's code once `.to(device)` / `.cuda()` are dropped, as the conversion does."""

    class Strip(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            func = node.func
            if isinstance(func, ast.Attribute) and (
                func.attr == "cuda"
                or (
                    func.attr == "to"
                    and any(isinstance(a, ast.Name) and a.id in device_names for a in node.args)
                )
            ):
                return func.value
            return node

    return ast.unparse(Strip().visit(copy.deepcopy(stmt)))


def _one_per_name(stmt, device_names) -> list[str]:
    """The code of `a = x` and `b = y` for `a, b = x, y` (source/tuple_bindings.py's split),
    their device moves dropped; nothing for any other statement."""
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Tuple)
        and isinstance(stmt.value, ast.Tuple)
        and len(stmt.targets[0].elts) == len(stmt.value.elts)
    ):
        return []
    return [
        _without_device_moves(
            ast.copy_location(ast.Assign(targets=[target], value=value), stmt), device_names
        )
        for target, value in zip(stmt.targets[0].elts, stmt.value.elts)
    ]


def _mode_switch(stmt, model_names) -> bool:
    return any(_method_call(stmt, name, mode) for name in model_names for mode in _MODE_CALLS)


def _has_modulo(test) -> bool:
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(test))


# --- output side -----------------------------------------------------------------------------


class _OutputIndex:
    def __init__(self, tree: ast.Module, facts: LoopFacts) -> None:
        self.cls = next(
            (
                n
                for n in ast.walk(tree)
                if isinstance(n, ast.ClassDef) and n.name == facts.class_name
            ),
            None,
        )
        self._methods = {
            n.name: n
            for n in (self.cls.body if self.cls is not None else [])
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        self._generated = {facts.instance_name, facts.trainer_name}
        if facts.generated_loader:  # the generated loader of numbers
            self._generated.add(facts.train_loader)
        if facts.generated_val_loader:
            self._generated.add(facts.validation_loader)
        self._models = facts.model_names
        self._held = facts.held_after
        self._tree = tree
        self._runs = self._runs_of_generated_statements(tree)
        self.trainer = next(
            (
                s
                for run in self._runs
                for s in run
                if isinstance(s, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == facts.trainer_name for t in s.targets)
            ),
            None,
        )

    def class_named(self, name: str):
        return next(
            (n for n in self._tree.body if isinstance(n, ast.ClassDef) and n.name == name), None
        )

    def puts_model_back(self, stmt, method: str = "to", names=None) -> bool:
        """`model.to(device)`: the model (or another module of `names`) put back where the
        script kept it after `fit` (`model.eval()`: in the mode it left it in)."""
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        return (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == method
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in (self._models if names is None else names)
        )

    def statement(self, wanted: str):
        """The first output statement whose code is `wanted` (as `ast.unparse` writes it)."""
        return self._by_code.get(wanted)

    @functools.cached_property
    def _by_code(self) -> dict[str, ast.stmt]:
        # unparsing every statement of the output costs as much as the file is long: only
        # loops whose statements lost a device move ask for it (an `if` too: a device chain
        # rewritten whole, patterns/placement_chain.py)
        found: dict[str, ast.stmt] = {}
        for node in ast.walk(self._tree):
            if isinstance(node, (ast.Assign, ast.Expr, ast.AnnAssign, ast.If)):
                found.setdefault(ast.unparse(node), node)
        return found

    def method(self, name: str):
        return self._methods.get(name)

    def returned(self, method: str):
        node = self._methods.get(method)
        if node is None:
            return None
        returns = [n for n in ast.walk(node) if isinstance(n, ast.Return)]
        return returns[-1] if returns else None

    def run_holding(self, stmt):
        return next((run for run in self._runs if any(s is stmt for s in run)), None)

    def block_calling(self, method: str):
        """The run of generated statements (instance, Trainer, call, values read back)."""
        for run in self._runs:
            for stmt in run:
                if any(
                    isinstance(n, ast.Attribute)
                    and n.attr == method
                    and isinstance(n.value, ast.Name)
                    and n.value.id in self._generated
                    for n in ast.walk(stmt)
                ):
                    return run
        return None

    def _runs_of_generated_statements(self, tree):
        runs = []
        self.kept_draws = []  # (first line of its comment, `iter(loader)` before fit / test)
        for block in _all_blocks(tree):
            run: list = []
            draws = self._draws_before_generated(block)
            for k, stmt in enumerate(block):
                # a def, or a block holding the run only inside (`with`, `try`, `if
                # __name__`) and not in its header: its own block has the run
                if _compound(stmt) or (_holds_statements(stmt) and not self._names(stmt, True)):
                    if run:
                        runs.append(run)
                    run = []
                elif self._names(stmt, False):
                    run.append(stmt)
                elif id(stmt) in draws:  # patterns/bar_draws.py, with its comment above
                    first = block[k - 1].end_lineno + 1 if k else stmt.lineno
                    self.kept_draws.append((first, stmt))
                    run.append(stmt)
                elif run and (
                    self.puts_model_back(stmt)
                    or self.puts_model_back(stmt, "eval")
                    or self.puts_model_back(stmt, names=self._held)
                ):
                    run.append(stmt)  # `model.to(device)`, `model.eval()` after fit
                elif run:
                    runs.append(run)
                    run = []
            if run:
                runs.append(run)
        return runs

    def _draws_before_generated(self, block) -> set[int]:
        """The `iter(loader)` statements standing right before a generated one (`fit`,
        `test`): a dropped tqdm.auto bar's draw, kept there (patterns/bar_draws.py)."""
        found: set[int] = set()
        before_generated = False
        for stmt in reversed(block):
            if _iter_statement(stmt):
                if before_generated:
                    found.add(id(stmt))
            else:
                before_generated = self._names(stmt, False)
        return found

    def _names(self, stmt, header_only: bool) -> bool:
        """Whether `stmt` (only its header, not its blocks, if `header_only`) reads a
        generated name."""
        parts = [stmt]
        if header_only:
            parts = [
                value
                for field, value in ast.iter_fields(stmt)
                if field not in ("body", "orelse", "finalbody", "handlers", "cases")
            ]
        return any(
            isinstance(n, ast.Name) and n.id in self._generated
            for part in parts
            for node in (part if isinstance(part, list) else [part])
            if isinstance(node, ast.AST)
            for n in ast.walk(node)
        )


def _inlined_why(helper: ast.FunctionDef, output_tree: ast.Module) -> str:
    """Why an inlined helper's lines moved: where its code went, and whether its `def` is
    still in the output (other code of the script calls it)."""
    kept = any(
        isinstance(node, ast.FunctionDef) and node.name == helper.name
        for node in ast.walk(output_tree)
    )
    what = f"`{helper.name}()` inlined where the loop called it: its code runs in the methods below"
    if kept:
        return what + "; its `def` kept for the script's other calls"
    return what + "; its `def` removed (nothing else calls it)"


_BACK_TO_EVAL = (
    "the model put back in eval mode, where the script's last evaluation pass left it "
    "(Lightning restores train mode after each pass; the code after it runs the model)"
)


def _holds_statements(stmt) -> bool:
    return isinstance(getattr(stmt, "body", None), list) and bool(stmt.body)


def _worker_signature(src, output_tree, epoch, add) -> None:
    """The function holding the loop lost a leading parameter: the rank `mp.spawn` passed."""
    holders = [
        fn for fn in ast.walk(src.tree) if isinstance(fn, ast.FunctionDef) and _contains(fn, epoch)
    ]
    if not holders:
        return
    holder = holders[-1]  # the innermost
    for fn in output_tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == holder.name:
            before = [a.arg for a in holder.args.args]
            after = [a.arg for a in fn.args.args]
            rest = iter(before[1:])
            if before and all(any(a == b for b in rest) for a in after):  # a subsequence
                # parameters beyond the rank: a port only the removed group start read
                also = [f"`{p}`" for p in before[1:] if p not in after]
                add(
                    _header(holder),
                    _header(fn),
                    f"`{before[0]}` parameter dropped: the Trainer starts one process per "
                    "device and gives each its rank (`trainer.global_rank`)"
                    + (
                        f"; {', '.join(also)} too: only the process group's start (the "
                        "Trainer's now) read it"
                        if also
                        else ""
                    ),
                )
            return


def _iter_statement(stmt) -> bool:
    """`iter(x)` as a statement of its own."""
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
        and stmt.value.func.id == "iter"
        and len(stmt.value.args) == 1
    )


def _compound(stmt) -> bool:
    return isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))


def _assigns(stmt, name: str | None) -> bool:
    return isinstance(stmt, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == name for t in stmt.targets
    )


def _all_blocks(tree):
    yield tree.body
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef,)):
            continue
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if (
                isinstance(block, list)
                and block
                and isinstance(block[0], ast.stmt)
                and node is not tree
            ):
                yield block


# --- spans -----------------------------------------------------------------------------------


def _span(node) -> tuple[int, int] | None:
    if node is None:
        return None
    if isinstance(node, list):
        if not node:
            return None
        return (node[0].lineno, max(n.end_lineno for n in node))
    if isinstance(node, tuple):  # a header: (line, line)
        return node
    return (node.lineno, node.end_lineno)


def _header(stmt) -> tuple[int, int]:
    """The header line(s) of a compound statement, up to its first body statement."""
    return (stmt.lineno, max(stmt.lineno, stmt.body[0].lineno - 1))


def _union(stmts) -> list | None:
    stmts = [s for s in stmts if s is not None]
    if not stmts:
        return None
    first = min(stmts, key=lambda s: s.lineno)
    last = max(stmts, key=lambda s: s.end_lineno)
    return [first, last] if first is not last else [first]
