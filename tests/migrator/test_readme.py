"""The README points only to files that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_path_the_readme_names_exists():
    text = (ROOT / "README.md").read_text()
    paths = set(
        re.findall(
            r"(?<![\w./-])((?:torchlift|fixtures|tests|benchmarks|examples)" r"/[\w./-]*[\w/])",
            text,
        )
    )
    missing = sorted(p for p in paths if "<" not in p and not (ROOT / p).exists())
    assert paths and not missing, missing


def test_every_migrator_module_is_in_the_readme_layout():
    text = (ROOT / "README.md").read_text()
    layout = text[text.index("    torchlift/migrator/\n") :]
    package = ROOT / "torchlift" / "migrator"
    for path in sorted(package.glob("*.py")):
        if path.name != "__init__.py":
            assert f" {path.name} " in layout, path.name
    for folder in sorted(p for p in package.iterdir() if (p / "__init__.py").exists()):
        assert f" {folder.name}/ " in layout, folder.name
