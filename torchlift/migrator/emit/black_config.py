"""The black settings generated code is formatted with: the user's project's, if it has any.

Like black itself, the project is the nearest folder above the script holding a
pyproject.toml (a `.git` folder ends the search); its `[tool.black]` table gives the line
length, string normalization, magic trailing commas and preview style. No table, no file, or
a table black cannot read: black's defaults. The rest of the file is never reformatted.
"""

from __future__ import annotations

import contextvars
import functools
from contextlib import contextmanager
from pathlib import Path

import black

DEFAULT = black.Mode()
_current: contextvars.ContextVar[black.Mode] = contextvars.ContextVar("black_mode")


def current_mode() -> black.Mode:
    return _current.get(DEFAULT)


@contextmanager
def project_black_mode(script_path: str):
    """Format generated code with the black settings of the project holding `script_path`."""
    token = _current.set(mode_for(script_path))
    try:
        yield
    finally:
        _current.reset(token)


def mode_for(script_path: str) -> black.Mode:
    path = Path(script_path)
    if script_path.startswith("<") or not path.is_file():  # <stdin>, a test's made-up path
        return DEFAULT
    return _mode_of_folder(path.resolve().parent)


@functools.lru_cache(maxsize=64)
def _mode_of_folder(folder: Path) -> black.Mode:
    for candidate in (folder, *folder.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            return _mode_from(pyproject)
        if (candidate / ".git").exists():
            break
    return DEFAULT


def _mode_from(pyproject: Path) -> black.Mode:
    try:
        config = black.parse_pyproject_toml(str(pyproject))
    except (OSError, ValueError):  # unreadable or invalid TOML: black would stop; we default
        return DEFAULT
    if not config:
        return DEFAULT
    try:
        return black.Mode(
            line_length=int(config.get("line_length", DEFAULT.line_length)),
            string_normalization=not config.get("skip_string_normalization", False),
            magic_trailing_comma=not config.get("skip_magic_trailing_comma", False),
            preview=bool(config.get("preview", False)),
        )
    except (TypeError, ValueError):
        return DEFAULT
