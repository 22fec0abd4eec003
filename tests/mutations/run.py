"""`make mutate`: plant each bug of mutations.py in a temporary copy of the repository, run the
tests meant to catch it, and print a table. Not part of `make test` (minutes, not seconds).

    python tests/mutations/run.py                 # every mutation (and a baseline run first)
    python tests/mutations/run.py -k clipping     # the mutations whose name contains "clipping"
    python tests/mutations/run.py --no-baseline   # skip the unmutated runs of the same tests
    python tests/mutations/run.py -v              # also the first assertion lines of each run

A mutation is *caught* when its tests fail (pytest exit code 1), *MISSED* when they pass,
*stale* when its anchor text is not in the file exactly once, and an *error* for any other
exit code (no test selected, collection error). The baseline runs the same test selections on
the unmutated copy: they must pass, or a catch would prove nothing. Exit code 0 only when
every mutation is caught and every baseline passes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mutations import MUTATIONS, Mutation

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 1200


def copy_repository(dest: Path) -> None:
    """Tracked and untracked-but-not-ignored files, as they are in the working tree."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def apply(mutation: Mutation, repo: Path) -> bool:
    """Plant the bug; False when the anchor is not there exactly once (a stale mutation)."""
    path = repo / mutation.path
    text = path.read_text()
    if not mutation.old:
        path.write_text(text + mutation.new)
        return True
    if text.count(mutation.old) != 1:
        return False
    path.write_text(text.replace(mutation.old, mutation.new))
    return True


def run_tests(repo: Path, tests: tuple[str, ...]) -> tuple[int, str]:
    env = dict(
        os.environ,
        PYTHONPATH=str(repo),
        CI="true",  # derandomized hypothesis: the same examples on every run
        OMP_NUM_THREADS="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]
    try:
        proc = subprocess.run(
            command, cwd=repo, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        return -1, ""
    return proc.returncode, proc.stdout


def verdict(code: int) -> str:
    return {0: "MISSED", 1: "caught", -1: "error (timeout)"}.get(code, f"error (exit {code})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only mutations whose name contains this")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="show why each was caught")
    args = parser.parse_args(argv)
    selected = [m for m in MUTATIONS if args.k.lower() in m.name.lower()]
    failures = 0
    with tempfile.TemporaryDirectory(prefix="torchlift-mutate-") as tmp:
        pristine = Path(tmp) / "pristine"
        copy_repository(pristine)
        if not args.no_baseline:
            for tests in dict.fromkeys(m.tests for m in selected):
                code, _ = run_tests(pristine, tests)
                if code != 0:
                    failures += 1
                    print(f"baseline FAILS (exit {code}): pytest {' '.join(tests)}", flush=True)
        print("| mutation | tests | result | time |\n|---|---|---|---|", flush=True)
        for mutation in selected:
            repo = Path(tmp) / "mutant"
            shutil.copytree(pristine, repo)
            start = time.monotonic()
            if apply(mutation, repo):
                code, output = run_tests(repo, mutation.tests)
                result = verdict(code)
                if args.verbose:
                    why = [line for line in output.splitlines() if line.startswith("E ")]
                    print("\n".join(why[:6]), flush=True)
            else:
                result = "stale (anchor not found once)"
            elapsed = time.monotonic() - start
            failures += result != "caught"
            tests = " ".join(mutation.tests).replace("|", "\\|")
            print(f"| {mutation.name} | `{tests}` | {result} | {elapsed:.0f} s |", flush=True)
            shutil.rmtree(repo)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
