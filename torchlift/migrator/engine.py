"""migrate_source: input checks, pre-filter, gather, transform, re-parse. Never raises."""

from __future__ import annotations

import traceback

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import MetadataWrapper, PositionProvider

from .apply_plans import ApplyPlans, RemoveUnusedBindings
from .emit_module_class import ClassBuilder, build_trainer_statements
from .gather_loops import METADATA, LoopPlanner, find_loop_candidates, _single_assign
from .inputs import decode_source, validate_text
from .names import collect_names
from .prefilter import may_contain_training_loop
from .result import Finding, MigrationResult
from .rules import Unsupported

TARGET_MODULES = {
    "runtime": "torchlift.runtime",
    "lightning": "lightning.pytorch",
    "pytorch_lightning": "pytorch_lightning",
}


def migrate_source(
    source: str | bytes, path: str = "<stdin>", target: str = "runtime"
) -> MigrationResult:
    text, error = decode_source(source, path)
    if error is not None:
        raw = source.decode("latin-1") if isinstance(source, bytes) else source
        return MigrationResult(path, raw, raw, [], error)
    error = validate_text(text, path)
    if error is not None:
        return MigrationResult(path, text, text, [], error)
    if target not in TARGET_MODULES:
        raise ValueError(f"unknown target {target!r}; expected one of {sorted(TARGET_MODULES)}")
    if not may_contain_training_loop(text):
        return MigrationResult(path, text, text, [_info(path, "TL002")])
    try:
        return _migrate_parsed(text, path, target)
    except Exception as exc:  # never a traceback for the user: report and keep the file
        where = traceback.extract_tb(exc.__traceback__)[-1]
        message = (
            f"internal error ({type(exc).__name__}: {exc} at "
            f"{where.filename.rsplit('/', 1)[-1]}:{where.lineno}); file left unchanged"
        )
        return MigrationResult(path, text, text, [Finding(path, 1, 0, "TL900", message, "warning")])


def _info(path: str, code: str, line: int = 1, message: str | None = None) -> Finding:
    from .rules import RULES

    return Finding(path, line, 0, code, message or RULES[code], "info")


def _migrate_parsed(text: str, path: str, target: str) -> MigrationResult:
    try:
        module = cst.parse_module(text)
    except Exception as exc:  # valid for CPython but not for libcst's grammar
        finding = Finding(path, 1, 0, "TL002", f"not analysed: libcst cannot parse it ({exc})")
        return MigrationResult(path, text, text, [finding])
    loops, uses_lightning = find_loop_candidates(module)
    if uses_lightning:
        return MigrationResult(path, text, text, [_info(path, "TL003")])
    if not loops:
        return MigrationResult(path, text, text, [_info(path, "TL002")])
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    meta = wrapper.resolve_many(METADATA)
    findings: list[Finding] = []
    planned = []
    for loop in loops:
        planner = LoopPlanner(meta, module, loop)
        try:
            planned.append((planner, planner.plan()))
        except Unsupported as why:
            node = why.node if why.node is not None else loop
            pos = meta[PositionProvider].get(node) or meta[PositionProvider][loop]
            findings.append(
                Finding(path, pos.start.line, pos.start.column, why.code, why.reason, "warning")
            )
    if not planned:
        return MigrationResult(path, text, text, findings)
    output = _transform(module, planned, target, meta, path, findings)
    try:
        compile(output, path, "exec")
        cst.parse_module(output)
    except SyntaxError as exc:
        findings.append(
            Finding(
                path,
                1,
                0,
                "TL900",
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


def _transform(module, planned, target, meta, path, findings) -> str:
    taken = collect_names(module).all()
    if "L" in taken:
        # `L` must be the Lightning alias; any other binding would be shadowed
        pos = meta[PositionProvider][planned[0][1].epoch_loop]
        findings.append(
            Finding(
                path,
                pos.start.line,
                0,
                "TL108",
                "the name `L` is already used in this file",
                "warning",
            )
        )
        return module.code
    replacements, removals, strips, inserts, moved = {}, set(), {}, {}, set()
    device_bindings: set[str] = set()
    for planner, plan in planned:
        base = f"Lit{plan.model_class}" if plan.model_class else "LitModel"
        class_name = _unique(base, taken)
        taken.add(class_name)
        lit_name = _unique("lit_model", taken)
        trainer_name = _unique("trainer", taken | {lit_name})
        from .resolve_names import resolve_names

        uses = resolve_names(plan, planner.scope)
        cls = ClassBuilder(plan, class_name, module).build()
        cls = cls.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
        replacements[id(plan.epoch_loop)] = build_trainer_statements(
            plan, class_name, lit_name, trainer_name, module, uses
        )
        removals |= {id(s) for s in plan.remove_stmts}
        for stmt in (plan.optimizer_stmt, plan.scheduler_stmt):
            if stmt is not None:
                removals.add(id(stmt))
                moved.add(id(stmt))
        for stmt in plan.strip_stmts:
            strips[id(stmt)] = plan.device_names
        where, anchor = _insertion_point(module, planner, plan, cls)
        inserts.setdefault(id(anchor), (where, []))[1].append(cls)
        for stmt in planner.scope_before:
            assign = _single_assign(stmt)
            if assign and assign[0] in plan.device_names:
                device_bindings.add(
                    (assign[0], module.code_for_node(stmt.with_changes(leading_lines=[])).strip())
                )
        pos = meta[PositionProvider][plan.epoch_loop]
        notes = "; ".join(plan.notes)
        message = f"training loop converted to {class_name} + L.Trainer" + (
            f" ({notes})" if notes else ""
        )
        findings.append(Finding(path, pos.start.line, pos.start.column, "TL001", message, "info"))
    new = module.visit(ApplyPlans(replacements, removals, strips, inserts, moved))
    helpers = {name for _, plan in planned for name in plan.inlined_helpers}
    if helpers:
        calls = {
            c.func.value
            for c in m.findall(new, m.Call(func=m.Name()))
            if isinstance(c.func, cst.Name)
        }
        unused_helpers = helpers - calls - _referenced_names(new, helpers)
        if unused_helpers:
            new = new.visit(RemoveUnusedBindings(set(), unused_helpers))
    unused = _unused_bindings(new, device_bindings)
    if unused:
        new = new.visit(RemoveUnusedBindings(unused))
    context = CodemodContext()
    AddImportsVisitor.add_needed_import(context, TARGET_MODULES[target], asname="L")
    new = AddImportsVisitor(context).transform_module(new)
    return new.code


def _unused_bindings(module: cst.Module, bindings) -> set[str]:
    """Codes of `name = ...` statements (bindings) whose name nothing in its scope reads."""
    unused = set()
    for name, code in bindings:
        owner = _owner_of(module, code)
        if owner is None:
            continue
        reads = set()
        for stmt in owner.body:
            if isinstance(stmt, cst.FunctionDef):
                if owner is module:  # a function reading the global (not its own local)
                    use = collect_names(stmt.body)
                    params = {p.name.value for p in m.findall(stmt.params, m.Param())}
                    if name not in params and name not in use.writes:
                        reads |= use.reads
                continue
            reads |= collect_names(stmt).reads
        if name not in reads:
            unused.add(code)
    return unused


def _owner_of(module: cst.Module, code: str):
    """The module or function body holding the statement whose code is `code`."""
    blank = cst.Module(body=[])

    def matches(stmt) -> bool:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        return blank.code_for_node(stmt.with_changes(leading_lines=[])).strip() == code

    if any(matches(s) for s in module.body):
        return module
    for func in m.findall(module, m.FunctionDef()):
        if any(matches(s) for s in func.body.body):
            return func.body
    for block in m.findall(module, m.If()):
        if any(matches(s) for s in block.body.body):
            return module  # `if __name__ == "__main__":` shares the module scope
    return None


def _referenced_names(module: cst.Module, names: set[str]) -> set[str]:
    """Which of `names` (module-level functions) are read anywhere."""
    found = set()
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            use = collect_names(stmt.body)
            params = {p.name.value for p in m.findall(stmt.params, m.Param())}
            found |= (use.reads - params) & names
        else:
            found |= collect_names(stmt).reads & names
    return found


def _insertion_point(module, planner, plan, cls):
    """After the last top-level definition the class needs (model class, helpers, imports)."""
    top = planner.top_stmt
    body = list(module.body)
    index = next(i for i, s in enumerate(body) if s is top)
    needed = collect_names(cls).reads | ({plan.model_class} if plan.model_class else set())
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
