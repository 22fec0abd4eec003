"""One harness for every pattern's table of cases (pyupgrade's and Fixit's habit).

Each `<pattern>_cases.py` beside this file belongs to `torchlift/migrator/patterns/<pattern>.py`
and holds two tables, each loop written after rule.EXAMPLE_HEADER (model, loader, optimizer,
criterion):

    CONVERTS   name -> (loop, fragments the conversion holds, fragments it no longer holds)
    UNCHANGED  name -> (loop, the rule code reported)      the file must come back as it was

A new pattern brings its module and its cases file; nothing here changes.
"""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

from torchlift.migrator import migrate_source
from torchlift.migrator.registry import PATTERNS, RULE_OWNERS, SHAPES
from torchlift.migrator.rule import EXAMPLE_HEADER

HERE = Path(__file__).parent


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"pattern_cases_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TABLES = {
    path.stem[: -len("_cases")]: _load(path)
    for path in sorted(HERE.glob("*_cases.py"))
    if not path.name.startswith("test_")
}
CONVERTS = [
    (pattern, name, *case)
    for pattern, table in TABLES.items()
    for name, case in getattr(table, "CONVERTS", {}).items()
]
UNCHANGED = [
    (pattern, name, *case)
    for pattern, table in TABLES.items()
    for name, case in getattr(table, "UNCHANGED", {}).items()
]


def _source(loop: str) -> str:
    return EXAMPLE_HEADER + textwrap.dedent(loop).lstrip("\n")


def _report(result) -> str:
    return "\n".join(map(str, result.findings))


def test_every_registered_pattern_has_its_table_of_cases():
    names = [module.rsplit(".", 1)[1] for module in PATTERNS]
    # a shape may have one too, also one that plans no loop itself (trainer_class)
    shapes = [
        module.rsplit(".", 1)[1]
        for module in [*SHAPES, *RULE_OWNERS]
        if module.startswith("torchlift.migrator.shapes.")
    ]
    assert set(names) <= set(TABLES) <= set(names) | set(shapes)


@pytest.mark.parametrize(
    "pattern, name, loop, present, absent", CONVERTS, ids=[f"{c[0]}:{c[1]}" for c in CONVERTS]
)
def test_converts(pattern, name, loop, present, absent):
    source = _source(loop)
    result = migrate_source(source, f"{name}.py")
    assert result.changed, _report(result)
    for fragment in present:
        assert textwrap.dedent(fragment).strip("\n") in result.output, fragment
    for fragment in absent:
        assert fragment not in result.output, fragment
    compile(result.output, name, "exec")
    assert migrate_source(result.output, f"{name}.py").output == result.output


@pytest.mark.parametrize(
    "pattern, name, loop, code", UNCHANGED, ids=[f"{c[0]}:{c[1]}" for c in UNCHANGED]
)
def test_left_unchanged(pattern, name, loop, code):
    source = _source(loop)
    result = migrate_source(source, f"{name}.py")
    assert result.output == source
    assert code in [f.code for f in result.findings], _report(result)
