"""migrate_source: the pipeline, and only that. Never raises.

    decode -> parse -> prefilter -> find -> plan (shape + patterns, resolve) -> emit/apply
    -> re-parse -> check

Each stage is a module of its own: inputs.py, prefilter.py, source/, shapes/ + patterns/ (in
registry.py's order), resolve_names.py, emit/. A loop in a hand-written trainer class is first
inlined into a flat script (shapes/trainer_inline.py), which the same pipeline converts; so is
a step in a function called once per iteration (shapes/step_inline.py; a trainer class's step
method is such a function once the class is inlined). The last stage, `check`, receives the original
and the converted text and returns findings that refuse the conversion (the file then stays
byte-identical): CHECKS lists the functions run there. A loop refused at a tuple assignment
(`G, D = Gen().to(device), Disc().to(device)`) is planned again with it split one binding per
name where that keeps its meaning (source/tuple_bindings.py), put back as written where the
conversion leaves every element as it was; one naming a helper's default (`train_state=
TrainState()`) with the default bound to a module name before the `def`
(source/hoisted_defaults.py), put back where nothing but the `def` reads it; one naming an
`if distributed: <sampler + loader> else: <loader>` with the branches joined in the one-line
form `s = DistributedSampler(...) if distributed else None` (source/flag_branch_loaders.py).

Cost model (issue 3 benchmark): a file without a training loop costs a CPython `ast` parse
and a regex; a file with one costs one libcst parse, work proportional to the loop, and one
codegen. No libcst metadata provider runs on the whole tree (each is a full-tree Python pass
costing more than the parse itself): qualified names come from the file's imports, lines from
the ast, and the ScopeProvider only sees the few statements of a loop that open a nested scope
(analysis/names.py). Patterns add no pass of their own: they read the loop's parts.
"""

from __future__ import annotations

import dataclasses
import traceback
from collections.abc import Callable

import libcst as cst
import libcst.matchers as m

from . import static_check
from .analysis.names import clear_cache
from .analysis.qualnames import Qualnames
from .changelog import LoopFacts, import_change, loop_changes
from .emit.transform import transform
from .inputs import decode_source, import_table, parse_text
from .outcomes import (
    ALREADY_LIGHTNING,
    CONVERTED,
    INTERNAL_ERROR,
    NO_TRAINING_LOOP,
    uses_lightning_text,
    why_no_training_loop,
)
from .patterns.helpers import HELPER_SHAPE
from .prefilter import may_contain_training_loop, worth_a_syntax_check
from .result import Finding, InputError, MigrationResult
from .rule import Refused, Rule, Unsupported
from .shapes import plan_loop
from .shapes.context import LoopContext
from .shapes.model_class import (
    INLINED_MODEL,
    calls_as_method,
    inline_model_class,
    refuse_called_module,
)
from .shapes.model_method import hoist_training_method, is_torch_module, remap_hoisted
from .shapes.step_inline import INLINED_STEP, inline_step
from .shapes.trainer_bases import FLATTENED, flatten_bases
from .shapes.trainer_callbacks import CALLBACKS_INLINED, inline_callbacks
from .shapes.trainer_clashes import RENAMED_CLASH, rename_clashes
from .shapes.trainer_class import class_holding
from .shapes.trainer_inline import inline_trainer_class, remap, remap_lines
from .shapes.trainer_records import RECORD_READS, pass_attributes
from .shapes.trainer_renames import RENAMED, rename_clashing
from .source.closure_into_loop import MOVED_CLOSURE, closure_into_loop
from .source.closure_phase import closure_phases
from .source.find_loops import LineIndex, find_candidates, pair_loops
from .source.flag_branch_loaders import join_flag_loaders
from .source.hoisted_defaults import hoist_changes, hoist_defaults
from .source.step_helpers import (
    DrivenStep,
    driven_step_class,
    per_batch_step_function,
    per_step_helper,
    per_step_method_loop,
)
from .source.tuple_bindings import split_tuple_bindings
from .upgrade import mentions_lightning, upgrade_lightning

TARGET_MODULES = {
    "runtime": "torchlift.runtime",
    "lightning": "lightning.pytorch",
    "pytorch_lightning": "pytorch_lightning",
}

# The check stage: check(original_text, converted_text, path) -> findings; any finding with
# severity "warning" refuses the conversion.
CHECKS: list[Callable[[str, str, str], list[Finding]]] = [static_check.check]


def migrate_source(
    source: str | bytes, path: str = "<stdin>", target: str = "runtime"
) -> MigrationResult:
    """Migrate one file's text. Raises only ValueError for an unknown `target` (a usage
    error); every input, however broken, gives a MigrationResult."""
    if target not in TARGET_MODULES:
        raise ValueError(f"unknown target {target!r}; expected one of {sorted(TARGET_MODULES)}")
    if isinstance(source, str) and source.startswith("\ufeff"):
        # text read with encoding="utf-8" keeps the BOM: migrate what follows it, give it back
        result = migrate_source(source[1:], path, target)
        result.source, result.output = "\ufeff" + result.source, "\ufeff" + result.output
        return result
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
    lightning = mentions_lightning(text)  # a Lightning 1.x file has no loop but may upgrade
    if not lightning and not may_contain_training_loop(text):  # before any parse: prefilter.py
        error = parse_text(text, path)[1] if worth_a_syntax_check(text) else None
        if error is not None:
            return MigrationResult(path, text, text, [], error)
        return MigrationResult(path, text, text, [_nothing_to_convert(path, text)])
    tree, error = parse_text(text, path)
    if error is not None:
        return MigrationResult(path, text, text, [], error)
    if lightning:
        upgraded = upgrade_lightning(text, path, TARGET_MODULES[target], tree)  # 1.x -> 2.x
        if upgraded is not None:
            return upgraded
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


def _nothing_to_convert(path: str, text: str, step_function=None) -> Finding:
    """The prefilter's answer, from the text alone: already Lightning, or why no loop."""
    if uses_lightning_text(text):
        return _info(path, ALREADY_LIGHTNING)
    return _info(path, NO_TRAINING_LOOP, why_no_training_loop(text, step_function))


def _migrate_parsed(text: str, tree, path: str, target: str) -> MigrationResult:
    candidates, uses_lightning = find_candidates(tree, text)
    if uses_lightning:
        return MigrationResult(path, text, text, [_info(path, ALREADY_LIGHTNING)])
    module = None
    if not candidates:  # the step may be in a closure defined before its loop
        moved = closure_into_loop(tree, text)
        if moved is not None:
            moved_tree, error = parse_text(moved.text, path)
            if error is not None:  # never expected: the same statements, re-indented
                raise RuntimeError(f"moved closure did not parse: {error}")
            result = _migrate_parsed(moved.text, moved_tree, path, target)
            at, code, message = moved.at, MOVED_CLOSURE.code, moved.message
            return remap_lines(result, moved.origin, moved.indent, text, at, code, message)
    if not candidates:  # or in a function or method called once per iteration
        method_loop = per_step_method_loop(tree)
        driven = driven_step_class(tree) if method_loop is None else None
        if method_loop is not None:  # the trainer class is inlined first, its method then
            candidates = [method_loop]
        elif driven is not None:  # the loop trains through an object's methods
            return _migrate_driven(text, tree, driven, path, target)
        elif per_step_helper(tree, text) is not None:
            module, refused = _parse_cst(text, path)
            if refused is not None:
                return refused
            try:
                inlined = inline_step(module, path)
            except Unsupported as why:
                at = LineIndex(module, tree).position(why.node, (1, 0))
                finding = Finding(path, *at, why.code, why.reason, "warning")
                return MigrationResult(path, text, text, [finding])
            if inlined is not None:
                flat_tree, error = parse_text(inlined.text, path)
                if error is not None:  # never expected: the flat script is generated code
                    raise RuntimeError(f"inlined step function did not parse: {error}")
                result = _migrate_parsed(inlined.text, flat_tree, path, target)
                return remap_lines(
                    result,
                    inlined.origin,
                    inlined.indent,
                    text,
                    inlined.at,
                    INLINED_STEP.code,
                    inlined.message,
                )
        if not candidates:
            found = per_step_helper(tree, text)  # a module function holding the step: TL111
            if found is not None:
                finding = Finding(path, found[0], 0, HELPER_SHAPE.code, found[1], "warning")
                return MigrationResult(path, text, text, [finding])
            step_function = per_batch_step_function(tree)  # a method: named in TL002's reason
            finding = _nothing_to_convert(path, text, step_function)
            return MigrationResult(path, text, text, [finding])
    if module is None:
        module, refused = _parse_cst(text, path)
        if refused is not None:
            return refused
    loops = pair_loops(module, candidates, tree)
    lines = LineIndex(module, tree)
    imports = import_table(tree)
    findings: list[Finding] = []
    trainer_class = class_holding(module, loops)
    if trainer_class is not None:  # inlined, then converted as a flat script (TL170)
        at = lines.position(trainer_class, (1, 0))
        try:
            if is_torch_module(trainer_class):  # a model training itself (TL198)
                flat, tell = hoist_training_method(module, trainer_class, loops), remap_hoisted
            else:
                # the class's callbacks inlined first, functions given the instance given its
                # attributes (trainer_callbacks.py, trainer_records.py), then the class
                staged = _before_inlining(module, trainer_class, loops)
                if staged is not None:
                    staged_text, origin, indent, staged_at, code, message = staged
                    staged_tree, error = parse_text(staged_text, path)
                    if error is not None:  # never expected: generated code
                        raise RuntimeError(f"inlined callbacks did not parse: {error}")
                    result = _migrate_parsed(staged_text, staged_tree, path, target)
                    return remap_lines(result, origin, indent, text, staged_at, code, message)
                flat, tell = inline_trainer_class(module, trainer_class, loops), remap
        except Unsupported as why:
            where = lines.position(why.node, at) if why.node is not None else at
            findings.append(Finding(path, *where, why.code, why.reason, "warning"))
            inner = {id(n) for n in m.findall(trainer_class, m.For() | m.While())}
            loops = [loop for loop in loops if id(loop) not in inner]
        else:
            flat_tree, error = parse_text(flat.text, path)
            if error is not None:  # never expected: the flat script is generated code
                raise RuntimeError(f"inlined trainer class did not parse: {error}")
            result = _migrate_parsed(flat.text, flat_tree, path, target)
            return tell(result, flat, text, at)
    # a refusal naming a tuple assignment (`G, D = Gen().to(device), Disc().to(device)`) is
    # planned again with it split one binding per name, when that keeps its meaning
    # and one naming a helper's default (`train_state=TrainState()`) with the default bound
    # to a module name right before the `def`, which the inlined call can read; and one naming
    # a loader built in both branches of `if distributed:` with them joined in the one-line
    # form (source/flag_branch_loaders.py), put back where the conversion leaves it as it was
    splits, hoists = [], []
    while True:
        planned, refusals, blamed = _plan_loops(imports, module, loops, lines, path)
        module, more = split_tuple_bindings(module, lines, blamed)
        module, joined = join_flag_loaders(module, lines, blamed, Qualnames(imports))
        more += joined
        module, hoisted = hoist_defaults(module, lines, blamed, hoists)
        if not more and not hoisted:
            break
        splits += more
        hoists += hoisted
    findings += refusals
    if not planned:
        return MigrationResult(path, text, text, findings)
    facts: list[LoopFacts] = []
    output = transform(
        module, text, planned, TARGET_MODULES[target], lines, path, findings, facts, splits, hoists
    )
    if output == text:
        return MigrationResult(path, text, text, findings)
    try:  # valid Python always: the output is compiled before it is returned
        output_tree = compile(output, path, "exec", dont_inherit=True, flags=0x400)  # an ast
    except SyntaxError as exc:
        message = f"generated code did not parse ({exc}); file left unchanged"
        findings.append(Finding(path, 1, 0, INTERNAL_ERROR.code, message, "warning"))
        return MigrationResult(path, text, text, findings)
    refusals = check(text, output, path)
    if refusals:
        # reported at the converted loops: the problems' own lines are in code never written
        at = [(f.line, f.column) for f in findings if f.code == CONVERTED.code] or [(1, 0)]
        kept = [f for f in findings if f.code != CONVERTED.code]
        moved = [dataclasses.replace(f, line=at[0][0], column=at[0][1]) for f in refusals]
        return MigrationResult(path, text, text, kept + moved)
    # a closure-stepped phase (LBFGS after Adam) left as written beside the conversion
    findings += closure_phases(module, [ctx.loop for ctx, _ in planned], lines, path)
    changes = [change for loop in facts for change in loop_changes(tree, output_tree, loop)]
    changes += hoist_changes(tree, output_tree, hoists, HELPER_SHAPE.code)
    changes += import_change(output_tree, TARGET_MODULES[target])
    for name in sorted({name for _, plan in planned for name in plan.imports}):
        changes += import_change(output_tree, name, "the generated code reads it")
    changes.sort(key=lambda c: (c.source_lines or c.output_lines)[0])  # in reading order
    return MigrationResult(path, text, output, findings, changes=changes)


def _migrate_driven(text: str, tree, driven: DrivenStep, path: str, target: str):
    """A loop training through an object's methods (shapes/model_class.py): its class inlined
    where the script creates it, then the flat script converted; or the reason it is not."""
    module, refused = _parse_cst(text, path)
    if refused is not None:
        return refused
    cls = next(s for s in module.body if m.matches(s, m.ClassDef(name=m.Name(driven.cls.name))))
    module, cls = calls_as_method(module, cls)  # `loss_scaler(...)`: its `__call__`
    lines = LineIndex(module, tree)
    at = lines.position(cls, (1, 0))
    try:
        if driven.called:  # a torch module's `forward` holding the step (MAML's `Meta`)
            raise refuse_called_module(driven)
        inlined = inline_model_class(module, cls, path)
    except Unsupported as why:
        where = lines.position(why.node, at) if why.node is not None else driven.loop
        finding = Finding(path, *where, why.code, why.reason, "warning")
        return MigrationResult(path, text, text, [finding])
    flat_tree, error = parse_text(inlined.text, path)
    if error is not None:  # never expected: the flat script is generated code
        raise RuntimeError(f"inlined model class did not parse: {error}")
    result = _migrate_parsed(inlined.text, flat_tree, path, target)
    return remap_lines(
        result, inlined.origin, inlined.indent, text, at, INLINED_MODEL.code, inlined.message
    )


def _before_inlining(module, trainer_class, loops):
    """(text, origin, indent, at, code, message) of the script rewritten by the first stage
    that applies to the trainer class before it is inlined, or None."""
    flat = flatten_bases(module, trainer_class)  # first: a base class defined in the file
    if flat is not None:
        return (*flat[:4], FLATTENED.code, flat[4])
    renamed = rename_clashing(module, trainer_class)  # the class's names the script spells
    if renamed is not None:
        return (*renamed[:4], RENAMED.code, renamed[4])
    callbacks = inline_callbacks(module, trainer_class)
    if callbacks is not None:
        return (
            callbacks.text,
            callbacks.origin,
            callbacks.indent,
            callbacks.at,
            CALLBACKS_INLINED.code,
            callbacks.message,
        )
    given = pass_attributes(module, trainer_class)
    if given is not None:
        return (*given[:4], RECORD_READS.code, given[4])
    # last: the class's attributes and methods named like another name where it is inlined
    clashing = rename_clashes(module, trainer_class, loops)
    if clashing is not None:
        return (*clashing[:4], RENAMED_CLASH.code, clashing[4])
    return None


def _plan_loops(imports, module, loops, lines, path: str):
    """(planned (context, plan) pairs, findings of the refused loops, the nodes they name)."""
    planned, findings, blamed = [], [], []
    for loop in loops:
        ctx = LoopContext(imports, module, loop)
        try:
            planned.append((ctx, plan_loop(ctx)))
        except Refused as refused:  # every reason, each once, in source order
            default = lines.position(loop, (1, 0))
            found = {}
            inlined_at = ctx.found.get("inlined_at", {})  # helpers.py's argument bindings
            for why in refused.blockers:
                node = inlined_at.get(id(why.node), why.node)
                where = lines.position(node, default) if node is not None else default
                found.setdefault((*where, why.code, why.reason), None)
                if node is not None:
                    blamed.append(node)
            for line, column, code, reason in sorted(found):
                findings.append(Finding(path, line, column, code, reason, "warning"))
    return planned, findings, blamed


def _parse_cst(text: str, path: str):
    """(libcst module, None), or (None, the result refusing a file libcst cannot parse)."""
    try:
        return cst.parse_module(text), None
    except Exception as exc:  # valid for CPython but not for libcst's grammar
        message = f"not analysed: libcst cannot parse it ({exc})"
        finding = Finding(path, 1, 0, NO_TRAINING_LOOP.code, message)
        return None, MigrationResult(path, text, text, [finding])


def check(original: str, converted: str, path: str) -> list[Finding]:
    """The last stage: every CHECKS function's findings that refuse the conversion."""
    refusals = []
    for run_check in CHECKS:
        refusals += [f for f in run_check(original, converted, path) if f.severity == "warning"]
    return refusals
