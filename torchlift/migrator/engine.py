"""migrate_source: input checks, pre-filter, gather, transform, re-check. Never raises.

Cost model (issue 3 benchmark): a file without a training loop costs a CPython `ast` parse
and a regex; a file with one costs one libcst parse, work proportional to the loop, and one
codegen. No libcst metadata providers: each is a full-tree Python pass costing more than the
parse itself; qualified names come from the file's imports, lines from the ast.
"""

from __future__ import annotations

import traceback

import libcst as cst
import libcst.matchers as m

from .apply_plans import ApplyPlans, RemoveUnusedBindings
from .emit_module_class import ClassBuilder, build_test_statements, build_trainer_statements
from .find_loops import LineIndex, find_candidates, pair_loops
from .gather_loops import LoopPlanner, _single_assign
from .inputs import decode_source, import_table, parse_text
from .names import clear_cache, collect_names, file_identifiers
from .outcomes import (
    ALIAS_TAKEN,
    ALREADY_LIGHTNING,
    CONVERTED,
    INTERNAL_ERROR,
    NO_TRAINING_LOOP,
    uses_lightning_text,
    why_no_training_loop,
)
from .prefilter import may_contain_training_loop
from .result import Finding, InputError, MigrationResult
from .rule import Refused, Rule

TARGET_MODULES = {
    "runtime": "torchlift.runtime",
    "lightning": "lightning.pytorch",
    "pytorch_lightning": "pytorch_lightning",
}


def migrate_source(
    source: str | bytes, path: str = "<stdin>", target: str = "runtime"
) -> MigrationResult:
    """Migrate one file's text. Raises only ValueError for an unknown `target` (a usage
    error); every input, however broken, gives a MigrationResult."""
    if target not in TARGET_MODULES:
        raise ValueError(f"unknown target {target!r}; expected one of {sorted(TARGET_MODULES)}")
    try:
        return _migrate(source, path, target)
    except Exception as exc:  # last resort: decoding or validation itself failed oddly
        raw = source if isinstance(source, str) else source.decode("latin-1")
        return MigrationResult(path, raw, raw, [], InputError(path, 1, f"cannot process ({exc})"))


def _migrate(source: str | bytes, path: str, target: str) -> MigrationResult:
    text, error = decode_source(source, path)
    if error is not None:
        raw = source.decode("latin-1") if isinstance(source, bytes) else source
        return MigrationResult(path, raw, raw, [], error)
    tree, error = parse_text(text, path)
    if error is not None:
        return MigrationResult(path, text, text, [], error)
    if not may_contain_training_loop(text):
        return MigrationResult(path, text, text, [_nothing_to_convert(path, text)])
    try:
        return _migrate_parsed(text, tree, path, target)
    except Exception as exc:  # never a traceback for the user: report and keep the file
        where = traceback.extract_tb(exc.__traceback__)[-1]
        message = (
            f"internal error ({type(exc).__name__}: {exc} at "
            f"{where.filename.rsplit('/', 1)[-1]}:{where.lineno}); file left unchanged"
        )
        finding = Finding(path, 1, 0, INTERNAL_ERROR.code, message, "warning")
        return MigrationResult(path, text, text, [finding])
    finally:
        clear_cache()


def _info(path: str, rule: Rule, message: str | None = None) -> Finding:
    return Finding(path, 1, 0, rule.code, message or rule.title, "info")


def _nothing_to_convert(path: str, text: str) -> Finding:
    """The prefilter's answer, from the text alone: already Lightning, or why no loop."""
    if uses_lightning_text(text):
        return _info(path, ALREADY_LIGHTNING)
    return _info(path, NO_TRAINING_LOOP, why_no_training_loop(text))


def _migrate_parsed(text: str, tree, path: str, target: str) -> MigrationResult:
    candidates, uses_lightning = find_candidates(tree, text)
    if uses_lightning:
        return MigrationResult(path, text, text, [_info(path, ALREADY_LIGHTNING)])
    if not candidates:
        return MigrationResult(path, text, text, [_nothing_to_convert(path, text)])
    try:
        module = cst.parse_module(text)
    except Exception as exc:  # valid for CPython but not for libcst's grammar
        message = f"not analysed: libcst cannot parse it ({exc})"
        finding = Finding(path, 1, 0, NO_TRAINING_LOOP.code, message)
        return MigrationResult(path, text, text, [finding])
    loops = pair_loops(module, candidates, tree)
    lines = LineIndex(module, tree)
    imports = import_table(tree)
    findings: list[Finding] = []
    planned = []
    for loop in loops:
        planner = LoopPlanner(imports, module, loop)
        try:
            planned.append((planner, planner.plan()))
        except Refused as refused:  # every reason, each once, in source order
            default = lines.position(loop, (1, 0))
            found = {}
            for why in refused.blockers:
                where = lines.position(why.node, default) if why.node is not None else default
                found.setdefault((*where, why.code, why.reason), None)
            for line, column, code, reason in sorted(found):
                findings.append(Finding(path, line, column, code, reason, "warning"))
    if not planned:
        return MigrationResult(path, text, text, findings)
    output = _transform(module, text, planned, target, lines, path, findings)
    if output == text:
        return MigrationResult(path, text, text, findings)
    try:  # valid Python always: the output is compiled before it is returned
        compile(output, path, "exec", dont_inherit=True, flags=0x400)  # PyCF_ONLY_AST
    except SyntaxError as exc:
        findings.append(
            Finding(
                path,
                1,
                0,
                INTERNAL_ERROR.code,
                f"generated code did not parse ({exc}); file left unchanged",
                "warning",
            )
        )
        return MigrationResult(path, text, text, findings)
    return MigrationResult(path, text, output, findings)


def _unique(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    return name


def _transform(module, text, planned, target, lines, path, findings) -> str:
    # names we add must not collide with a name of any scope of the file (words in comments,
    # strings and attribute names do not count)
    taken = file_identifiers(text, path)
    if "L" in taken:
        # `L` must be the Lightning alias; any other binding would be shadowed
        line, column = lines.position(planned[0][1].epoch_loop, (1, 0))
        findings.append(
            Finding(
                path,
                line,
                column,
                ALIAS_TAKEN.code,
                "the name `L` is already used in this file",
                "warning",
            )
        )
        return module.code
    replacements, removals, strips, inserts, moved = {}, set(), {}, {}, set()
    device_bindings: set = set()
    from .resolve_names import resolve_names

    for planner, plan in planned:
        base = f"Lit{plan.model_class}" if plan.model_class else "LitModel"
        class_name = _unique(base, taken)
        taken.add(class_name)
        lit_name = _unique("lit_model", taken)
        trainer_name = _unique("trainer", taken | {lit_name})
        taken |= {lit_name, trainer_name}
        uses = resolve_names(plan, planner.scope)
        builder = ClassBuilder(plan, class_name, module)
        cls = builder.build()
        cls = cls.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
        replacements[id(plan.epoch_loop)] = build_trainer_statements(
            plan, class_name, lit_name, trainer_name, module, uses
        )
        if plan.test is not None:
            first, *rest = plan.test_stmts
            replacements[id(first)] = build_test_statements(plan, lit_name, trainer_name, module)
            removals |= {id(s) for s in rest}
        removals |= {id(s) for s in plan.remove_stmts}
        moved |= {id(s) for s in plan.remove_stmts}  # their comments describe removed code
        for stmt in (plan.optimizer_stmt, plan.scheduler_stmt):
            if stmt is not None:
                removals.add(id(stmt))
                moved.add(id(stmt))
        for stmt in plan.strip_stmts:
            strips[id(stmt)] = plan.device_names
        where, anchor = _insertion_point(module, planner, plan, builder.code)
        inserts.setdefault(id(anchor), (where, []))[1].append(cls)
        for stmt in planner.scope_before:
            assign = _single_assign(stmt)
            if assign and assign[0] in plan.device_names:
                code = module.code_for_node(stmt.with_changes(leading_lines=[])).strip()
                device_bindings.add((assign[0], code))
        line, column = lines.position(plan.epoch_loop, (1, 0))
        notes = "; ".join(dict.fromkeys(plan.notes))
        message = f"training loop converted to {class_name} + L.Trainer" + (
            f" ({notes})" if notes else ""
        )
        findings.append(Finding(path, line, column, CONVERTED.code, message, "info"))
    applier = ApplyPlans(replacements, removals, strips, inserts, moved)
    new = applier.apply(module)
    helpers = {name for _, plan in planned for name in plan.inlined_helpers}
    if helpers:
        calls = set()
        for stmt in new.body:
            calls |= collect_names(stmt).reads & helpers
        unused_helpers = helpers - calls
        if unused_helpers:
            new = RemoveUnusedBindings(set(), unused_helpers).apply(new)
    unused = _unused_bindings(new, device_bindings)
    if unused:
        new = RemoveUnusedBindings(unused).apply(new)
    new = add_import(new, TARGET_MODULES[target], "L")
    return new.code


def add_import(module: cst.Module, name: str, alias: str) -> cst.Module:
    """`import <name> as <alias>` after the file's leading import block (like libcst's
    AddImportsVisitor, without its extra full-tree passes); nothing if already there."""
    wanted = f"import {name} as {alias}"
    body = list(module.body)
    last = None
    for index, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine):
            small = stmt.body
            if all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in small):
                if module.code_for_node(stmt.with_changes(leading_lines=[])).strip() == wanted:
                    return module
                last = index
                continue
            if index == 0 and m.matches(stmt, m.SimpleStatementLine([m.Expr(m.SimpleString())])):
                continue  # module docstring
        break
    new_stmt = cst.parse_statement(wanted + "\n")
    at = 0 if last is None else last + 1
    if (
        last is None
        and body
        and m.matches(body[0], m.SimpleStatementLine([m.Expr(m.SimpleString())]))
    ):
        at = 1
    body.insert(at, new_stmt)
    return module.with_changes(body=body)


def _unused_bindings(module: cst.Module, bindings) -> set[str]:
    """Codes of `name = ...` statements (bindings) whose name nothing in its scope reads."""
    unused = set()
    for name, code in bindings:
        owner = _owner_of(module, code)
        if owner is None:
            continue
        # a def's reads are its free names (the scope's), not its own locals
        reads = collect_names(*owner.body).reads
        if name not in reads:
            unused.add(code)
    return unused


def _owner_of(module: cst.Module, code: str):
    """The module or function body holding the statement whose code is `code`."""

    def matches(stmt) -> bool:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        return module.code_for_node(stmt.with_changes(leading_lines=[])).strip() == code

    if any(matches(s) for s in module.body):
        return module
    for stmt in module.body:
        block = getattr(stmt, "body", None)
        if isinstance(block, cst.IndentedBlock) and any(matches(s) for s in block.body):
            return module if isinstance(stmt, cst.If) else block
    return None


def _insertion_point(module, planner, plan, cls_code: str):
    """After the last top-level definition the class needs (model class, helpers, imports)."""
    top = planner.top_stmt
    body = list(module.body)
    index = next(i for i, s in enumerate(body) if s is top)
    needed = file_identifiers(cls_code, "<generated class>")  # names, not words of comments
    needed |= {plan.model_class} if plan.model_class else set()
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
