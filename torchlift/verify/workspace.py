"""Temporary run directories that look like the script's own folder, so nothing is written there.

Each run gets a fresh directory holding a symlink to every entry of the script's folder plus
the script to run (the original copy or the converted code) under the script's file name. The
script then runs with that directory as working directory and as `sys.path[0]`: relative data
paths, `__file__`-relative paths and sibling imports all resolve as in the user's folder.
Writing through a link would reach the user's files, so each run also gets `run_env`: the
trace's write guard (trace/_torchlift_write_guard.py) turns what the script changes into the
run's own copies (copy on write), and no bytecode is cached next to linked modules.
"""

from __future__ import annotations

import os
from pathlib import Path


def make_run_dir(parent: Path, name: str, script: Path, code: str) -> Path:
    """Create `parent/name` mirroring `script`'s folder, with `code` as the script; return the
    path of the script inside it."""
    run_dir = parent / name
    run_dir.mkdir()
    folder = script.parent
    for entry in _entries(folder):
        if entry.name == script.name or entry.name == "__pycache__":
            continue
        try:
            (run_dir / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
        except OSError:
            continue  # an entry we cannot link is one the script is unlikely to need
    target = run_dir / script.name
    target.write_text(code, encoding="utf-8")
    return target


def _entries(folder: Path) -> list[Path]:
    try:
        return [folder / name for name in sorted(os.listdir(folder))]
    except OSError:
        return []


def run_env(run_dir: Path, script: Path) -> dict[str, str]:
    """Environment entries that keep a run's writes inside `run_dir`."""
    return {
        "TORCHLIFT_RUN_DIR": str(run_dir),
        "TORCHLIFT_USER_DIR": str(script.parent),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
