"""Transform (complete plans only): the edits of every planned loop, applied in one pass.

For each plan: the generated class (inserted after the last top-level definition it needs),
the Trainer statements replacing the loop (and the test pass), the statements the Trainer now
owns removed, device moves stripped; then helpers nothing calls any more and device bindings
nothing reads are dropped, and the Lightning import is added. Generated names avoid every
name of the file (symtable), never words of its comments.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.names import file_identifiers, reads_among
from ..analysis.statements import single_assign
from ..changelog import facts_of
from ..outcomes import ALIAS_TAKEN, CONVERTED
from ..patterns.device_helpers import choice_reports
from ..patterns.device_intent import (
    device_if_binding,
    device_if_reports,
    prefer_kept_device_name,
)
from ..result import Finding
from ..shapes.wrappers import replace_wrapper
from ..source.hoisted_defaults import restore
from ..source.tuple_bindings import rejoin
from .apply import ApplyPlans, RemoveUnusedBindings
from .black_config import project_black_mode
from .imports import add_import
from .module_class import ClassBuilder
from .trainer_call import build_early_trainer, build_test_statements, build_trainer_statements
from .unused_imports import drop_unused_imports


def _unique(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    return name


def transform(
    module, text, planned, import_name, lines, path, findings, facts=None, splits=(), hoists=()
) -> str:
    """The module's new text with every planned loop converted (`planned`: (context, plan)
    pairs); one TL001 finding per loop, or TL118 and the text unchanged. `facts`, if given,
    receives each converted loop's LoopFacts (for the change log); `splits`, the tuple
    bindings split for the analysis, are written back as tuples where nothing changed them;
    `hoists`, the defaults bound before their `def`, are put back where only the `def` reads
    them. Generated code follows the black settings of the script's project."""
    with project_black_mode(path):
        return _transform(
            module, text, planned, import_name, lines, path, findings, facts, splits, hoists
        )


def _transform(
    module, text, planned, import_name, lines, path, findings, facts, splits, hoists
) -> str:
    # names we add must not collide with a name of any scope of the file (words in comments,
    # strings and attribute names do not count)
    taken = file_identifiers(text, path) | {name for h in hoists for name in h.names}
    # the Lightning alias: `L`, or `pl` beside a name `L` of the script's; never shadowing one
    alias = next((name for name in ("L", "pl") if name not in taken), None)
    if alias is None:
        line, column = lines.position(planned[0][1].epoch_loop, (1, 0))
        findings.append(
            Finding(
                path,
                line,
                column,
                ALIAS_TAKEN.code,
                "the names `L` and `pl` are both used in this file",
                "warning",
            )
        )
        return text  # unchanged (the module may hold split tuple bindings)
    replacements, removals, strips, inserts, moved = {}, set(), {}, {}, set()
    device_bindings: set = set()
    for ctx, plan in planned:
        model_class = plan.model.class_name if len(plan.models) == 1 else None
        base = f"Lit{model_class}" if model_class else "LitModel"
        class_name = _unique(base, taken)
        taken.add(class_name)
        lit_name = _unique("lit_model", taken)
        trainer_name = _unique("trainer", taken | {lit_name})
        taken |= {lit_name, trainer_name}
        uses = ctx.uses
        builder = ClassBuilder(plan, class_name, module, alias)
        cls = builder.build()
        cls = cls.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
        prefer_kept_device_name(ctx, plan)
        trainer_stmts = build_trainer_statements(
            plan, class_name, lit_name, trainer_name, module, uses, alias
        )
        if plan.trainer_at is not None:
            early = build_early_trainer(plan, trainer_name, module, alias)
            replacements[id(plan.trainer_at)] = early
        if plan.wrapper is None:
            replacements[id(plan.epoch_loop)] = trainer_stmts
        else:
            replacements[id(plan.wrapper)] = replace_wrapper(plan.wrapper, trainer_stmts)
        if plan.test is not None:
            first, *rest = plan.test_stmts
            replacements[id(first)] = build_test_statements(plan, lit_name, trainer_name, module)
            removals |= {id(s) for s in rest}
        removals |= {id(s) for s in plan.remove_stmts}
        moved |= {id(s) for s in plan.remove_stmts}  # their comments describe removed code
        for optimizer in plan.optimizers:
            for stmt in (optimizer.stmt, optimizer.scheduler_stmt):
                if stmt is not None:
                    removals.add(id(stmt))
                    moved.add(id(stmt))
        for stmt in plan.strip_stmts:
            strips[id(stmt)] = plan.device_names
        for stmt, replacement in plan.rewrite_stmts:
            replacements[id(stmt)] = [replacement]
        where, anchor = _insertion_point(module, ctx, plan, builder.code)
        inserted = inserts.setdefault(id(anchor), (where, []))[1]
        for code in plan.helper_defs:  # what the loader statements need, before the class
            helper = cst.parse_module(code).body[0]
            inserted.append(helper.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()]))
        inserted.append(cls)
        for stmt in ctx.scope_before:
            assign = single_assign(stmt)
            name = assign[0] if assign else device_if_binding(ctx, stmt, complete=False)
            if name in plan.device_names and not (
                device_if_reports(stmt) if assign is None else choice_reports(ctx, assign[1])
            ):
                code = module.code_for_node(stmt.with_changes(leading_lines=[])).strip()
                device_bindings.add((name, code))
        line, column = lines.position(plan.epoch_loop, (1, 0))
        if facts is not None:
            facts.append(facts_of(plan, lines, class_name, lit_name, trainer_name))
        notes = "; ".join(dict.fromkeys(plan.notes))
        message = f"training loop converted to {class_name} + {alias}.Trainer" + (
            f" ({notes})" if notes else ""
        )
        findings.append(Finding(path, line, column, CONVERTED.code, message, "info"))
    withs = {id(stmt) for _, plan in planned for stmt in plan.withs}
    applier = ApplyPlans(replacements, removals, strips, inserts, moved, withs)
    new = applier.apply(module)
    helpers = {name for _, plan in planned for name in plan.inlined_helpers}
    if helpers:
        unused_helpers = helpers - reads_among(helpers, *new.body)
        if unused_helpers:
            new = RemoveUnusedBindings(set(), unused_helpers).apply(new)
    closures: dict[str, set[str]] = {}  # function -> its inlined closures
    for _, plan in planned:
        for name, owner in plan.inlined_closures.items():
            closures.setdefault(owner, set()).add(name)
    if closures:
        new = RemoveUnusedBindings(set(), nested=_unused_closures(new, closures)).apply(new)
    unused = _unused_bindings(new, device_bindings)
    if unused:
        new = RemoveUnusedBindings(unused).apply(new)
    new = rejoin(new, splits)
    new = restore(new, hoists)
    new = drop_unused_imports(text, new, path)
    for name in sorted({name for _, plan in planned for name in plan.imports}):
        new = add_import(new, name, name)
    new = add_import(new, import_name, alias)
    return _keep_final_newline(text, new.code, new.default_newline)


def _unused_closures(module: cst.Module, closures: dict[str, set[str]]) -> dict[str, set[str]]:
    """function -> the inlined closures defined in its body that nothing there reads now."""
    unused = {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in closures:
            names = closures[stmt.name.value]
            unused[stmt.name.value] = names - reads_among(names, *stmt.body.body)
    return unused


def _keep_final_newline(original: str, output: str, newline: str) -> str:
    """libcst drops the last line break of a file whose lines end in a lone CR: put it back,
    so a converted CR-only file ends as the original did."""
    if original.endswith(("\r", "\n")) and not output.endswith(("\r", "\n")):
        return output + newline
    return output


def _unused_bindings(module: cst.Module, bindings) -> set[str]:
    """Codes of `name = ...` statements (bindings) whose name nothing in its scope reads."""
    unused = set()
    for name, code in bindings:
        owner = _owner_of(module, code)
        if owner is None:
            continue
        # a def's reads are its free names (the scope's), not its own locals
        if not reads_among({name}, *owner.body):
            unused.add(code)
    return unused


def _owner_of(module: cst.Module, code: str):
    """The module or function body holding the statement whose code is `code`."""

    def matches(stmt) -> bool:
        if not isinstance(stmt, (cst.SimpleStatementLine, cst.If)):
            return False
        return module.code_for_node(stmt.with_changes(leading_lines=[])).strip() == code

    if any(matches(s) for s in module.body):
        return module
    for stmt in module.body:
        block = getattr(stmt, "body", None)
        if isinstance(block, cst.IndentedBlock) and any(matches(s) for s in block.body):
            return module if isinstance(stmt, cst.If) else block
    return None


def _insertion_point(module, ctx, plan, cls_code: str):
    """After the last top-level definition the class needs (model class, helpers, imports)."""
    top = ctx.top_stmt
    body = list(module.body)
    index = next(i for i, s in enumerate(body) if s is top)
    needed = file_identifiers(cls_code, "<generated class>")  # names, not words of comments
    needed |= {model.class_name for model in plan.models if model.class_name}
    anchor = None
    last_import = None
    for stmt in body[:index]:
        if isinstance(stmt, (cst.ClassDef, cst.FunctionDef)) and stmt.name.value in needed:
            anchor = stmt
        elif isinstance(stmt, cst.SimpleStatementLine) and any(
            isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
        ):
            last_import = stmt
    if anchor is None:
        anchor = last_import
    if anchor is None:
        return "before", top
    return "after", anchor
