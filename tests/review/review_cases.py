"""A fixture's conversion with a change log built from the code itself (by statement, not by
line number), for testing the review page apart from the migrator's own change log."""

from __future__ import annotations

import ast
from pathlib import Path

from torchlift.migrator import migrate_source
from torchlift.migrator.result import Change, MigrationResult

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _span(node: ast.AST) -> tuple[int, int]:
    return (node.lineno, node.end_lineno)


def _calls(tree: ast.AST, method: str):
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Expr)
        and isinstance(n.value, ast.Call)
        and isinstance(n.value.func, ast.Attribute)
        and n.value.func.attr == method
    ]


def seed_review_result() -> MigrationResult:
    """seed_simple_model_validation, converted, with changes for its step sequence and class."""
    case = FIXTURES / "seed_simple_model_validation"
    source = (case / "input.py").read_text()
    result = migrate_source(source, path="train.py")
    assert result.changed, result.findings
    original, converted = ast.parse(source), ast.parse(result.output)
    step_lines = [
        line
        for name in ("zero_grad", "backward", "step")
        for call in _calls(original, name)
        for line in _span(call)
    ]
    cls, training_step = next(
        (c, f)
        for c in converted.body
        if isinstance(c, ast.ClassDef)
        for f in c.body
        if getattr(f, "name", "") == "training_step"
    )
    returned = next(n for n in ast.walk(training_step) if isinstance(n, ast.Return))
    loop = next(n for n in original.body if isinstance(n, ast.For))
    result.changes = [
        Change(
            "TL001",
            (min(step_lines), max(step_lines)),
            _span(returned),
            "zero_grad/backward/step -> the loss returned by training_step",
        ),
        Change("TL001", _span(loop), _span(cls), "training loop -> LightningModule"),
    ]
    return result
