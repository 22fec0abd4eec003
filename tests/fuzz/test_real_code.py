"""Real code: migrate every .py file of the installed torch and lightning packages.

Thousands of files written by others, almost none with a training loop: no traceback, every
converted output compiles and is a fixed point, and every file without a `backward(` call
(so without a training loop) comes back byte-identical. Runs on a process pool; prints the
file count, the time and the files it did change, for a human to review.
"""

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

PACKAGES = ("torch", "lightning")


def package_files() -> list[Path]:
    files = []
    for name in PACKAGES:
        module = __import__(name)
        root = Path(module.__file__).parent
        files += sorted(root.rglob("*.py"))
    return files


def migrate_one(path: str):
    """(path, outcome, detail, seconds) for one file; never raises (the traceback is data)."""
    import traceback

    from torchlift.migrator import migrate_source

    try:
        source = Path(path).read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError) as exc:
        return path, "unreadable", str(exc), 0.0
    started = time.perf_counter()
    try:
        result = migrate_source(source, path=path, target="runtime")
    except Exception:
        return path, "exception", traceback.format_exc(), time.perf_counter() - started
    elapsed = time.perf_counter() - started
    if result.error is not None:
        try:  # a file for a newer Python (torch ships py312_intrinsics.py) is rightly rejected
            compile(source, path, "exec", dont_inherit=True)
        except SyntaxError:
            return path, "error", "empty file", elapsed
        return path, "error", result.error.cause, elapsed
    if not result.changed:
        identical = result.output == source
        return path, "unchanged" if identical else "bytes differ", "", elapsed
    try:
        compile(result.output, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return path, "output does not compile", str(exc), elapsed
    again = migrate_source(result.output, path=path, target="runtime")
    if again.output != result.output:
        return path, "not a fixed point", "", elapsed
    if "backward(" not in source:
        return path, "changed without a training loop", "", elapsed
    return path, "converted", "", elapsed


@pytest.mark.slow
def test_every_file_of_torch_and_lightning(capsys):
    files = package_files()
    started = time.perf_counter()
    workers = max(1, min(4, os.cpu_count() or 1))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        outcomes = list(pool.map(migrate_one, map(str, files), chunksize=16))
    wall = time.perf_counter() - started
    by_kind: dict[str, list] = {}
    for outcome in outcomes:
        by_kind.setdefault(outcome[1], []).append(outcome)
    lines = sum(1 for f in files for _ in open(f, "rb"))
    slowest = sorted(outcomes, key=lambda o: -o[3])[:3]
    with capsys.disabled():
        print(
            f"\nreal code: {len(files)} files, {lines} lines of {', '.join(PACKAGES)} in "
            f"{wall:.1f} s on {workers} processes ({lines / wall:.0f} lines/s); "
            + ", ".join(f"{kind}: {len(items)}" for kind, items in sorted(by_kind.items()))
        )
        print("  slowest: " + ", ".join(f"{Path(p).name} {s:.2f} s" for p, _, _, s in slowest))
        for path, kind, _, _ in by_kind.get("converted", []):
            print(f"  converted: {path}")
    problems = [o for o in outcomes if o[1] not in ("unchanged", "converted", "error")]
    assert not problems, "\n\n".join(f"{p}: {kind}\n{detail}" for p, kind, detail, _ in problems)
    # Installed files compile (those that do not under this Python count as "empty file"
    # here), so the only acceptable input error is the empty file (an empty __init__.py),
    # which the CLI contract reports as such.
    errors = [o for o in by_kind.get("error", []) if o[2] != "empty file"]
    assert not errors, "\n".join(f"{p}: {detail}" for p, _, detail, _ in errors)


if __name__ == "__main__":  # python tests/fuzz/test_real_code.py: the same, without pytest
    sys.exit(pytest.main([__file__, "-q", "-s"]))
