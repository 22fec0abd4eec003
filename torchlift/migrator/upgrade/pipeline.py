"""The upgrade of one file: gather every row family's edits, retarget imports, apply, check."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from ..result import Finding, MigrationResult
from . import callbacks, calls_and_imports, epoch_end_hooks, trainer_flags
from .context import FileUpgrade
from .edits import ApplyEdits
from .retarget import (
    choose_root,
    lightning_imports,
    record_imports,
    record_path_renames,
)

FAMILIES = (trainer_flags, epoch_end_hooks, calls_and_imports, callbacks)
_VISITORS = (
    trainer_flags.TrainerFlags,
    epoch_end_hooks.EpochEndHooks,
    calls_and_imports.CallsAndImports,
    callbacks.Callbacks,
)
_TARGETS = {"torchlift.runtime": "runtime", "lightning.pytorch": "lightning"}


def upgrade(text: str, path: str, target_module: str) -> MigrationResult | None:
    try:
        module = cst.parse_module(text)
    except Exception:  # noqa: BLE001 - valid for CPython, not for libcst: the engine decides
        return None
    state = FileUpgrade(module, path, _TARGETS.get(target_module, "pytorch_lightning"))
    imports = lightning_imports(state)
    for family in _VISITORS:
        state.wrapper.visit(family(state))
    record_path_renames(state, imports)
    if not state.findings:
        return None  # no 1.x construct: the engine's answer (TL003 / TL002) stands
    if not any(f.severity == "info" for f in state.findings):
        return MigrationResult(path, text, text, _sorted(state.findings))
    root = choose_root(state, imports, target_module)
    record_imports(state, imports, root)
    new = module.visit(ApplyEdits(state.edits))
    if state.needed_imports:
        context = CodemodContext()
        for where, name in sorted(state.needed_imports):
            if where.startswith("torchmetrics"):  # left Lightning: imported as itself
                AddImportsVisitor.add_needed_import(context, where, name or None)
            else:
                AddImportsVisitor.add_needed_import(context, f"{root}.{where}".rstrip("."), name)
        new = AddImportsVisitor(context).transform_module(new)
    output = new.code
    try:  # valid Python always
        compile(output, path, "exec", dont_inherit=True, flags=0x400)
    except SyntaxError as exc:
        failure = Finding(
            path,
            1,
            0,
            "TL900",
            f"upgraded code did not parse ({exc}); file left unchanged",
            "warning",
        )
        return MigrationResult(path, text, text, _sorted(state.findings) + [failure])
    return MigrationResult(path, text, output, _sorted(state.findings))


def _sorted(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.line, f.column, f.code))
