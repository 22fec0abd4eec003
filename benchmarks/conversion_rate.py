"""How many training scripts of our local corpus convert, and train identically once converted?

    python benchmarks/conversion_rate.py                      # --target runtime, every script
    python benchmarks/conversion_rate.py --target lightning   # the same, on real Lightning
    python benchmarks/conversion_rate.py --only gan_two_optimizers --verbose
    python benchmarks/conversion_rate.py --jobs 2             # two scripts at a time

`benchmarks/corpus/` is a local proxy of the public training scripts the maintainers measure
the migrator on (issue 9): one self-contained script per style people write. For every script
this runs `torchlift.migrator.migrate_source` in-process; when it converts, it runs
`migrate --verify SCRIPT --steps N --target T` in a subprocess (the CLI, so a hang or a crash of
either run cannot take the benchmark down) and reads its verdict line. One row per script:

    name | converted? (or the refusal codes + first message) | verify verdict | seconds

then a summary line `converted X/N, identical Y/N, failed-to-run Z` (identical counts the verify
exit code 0: bit-identical or within --rtol; failed-to-run counts converted scripts that
crashed, timed out or never trained, within the verified steps or when run to their end, which
this also does for every verified conversion: verify stops after --steps steps, so the code
after training is only exercised by that full run) and the refusal codes counted (the first code of each
refused script, i.e. its first blocker, then every warning code seen).

It prints results; it asserts nothing (not collected by pytest). Run it from anywhere; the
worktree it lives in is put first on PYTHONPATH of the verify subprocesses.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parent / "corpus"
TARGETS = ("runtime", "lightning", "pytorch_lightning")


@dataclass
class Row:
    name: str
    converted: bool = False
    codes: list[str] = field(default_factory=list)  # warning codes of a refused script, in order
    refusal: str = ""  # first warning message (or the migrator's error)
    verdict: str = ""  # short verify verdict
    outcome: str = ""  # refused | identical | close | diverged | failed | original-failed | error
    seconds: float = 0.0
    verify_output: str = ""
    output: str = ""  # the converted source
    full_run: str = ""  # "" (not run) | "ok" | why the converted script failed to run to its end


def corpus_scripts(corpus: Path, only: list[str]) -> list[Path]:
    scripts = sorted(p for p in corpus.glob("*.py") if not p.name.startswith("_"))
    if only:
        wanted = {name.removesuffix(".py") for name in only}
        unknown = wanted - {p.stem for p in scripts}
        if unknown:
            sys.exit(f"--only: no such corpus script: {', '.join(sorted(unknown))}")
        scripts = [p for p in scripts if p.stem in wanted]
    return scripts


def migrate(path: Path, target: str, row: Row) -> None:
    """Fill the conversion columns of `row` from an in-process migrate_source call."""
    try:
        from torchlift.migrator import migrate_source

        result = migrate_source(path.read_text(encoding="utf-8"), path=str(path), target=target)
    # a migrator crash is a finding, not the end of the benchmark
    except Exception as exc:  # noqa: BLE001
        row.outcome, row.codes = "error", ["CRASH"]
        row.refusal = f"migrate_source raised {type(exc).__name__}: {exc}"
        return
    if result.error is not None:
        row.outcome, row.codes, row.refusal = "error", ["INPUT"], str(result.error)
        return
    warnings = [f for f in result.findings if f.severity == "warning"]
    if result.changed:
        row.converted = True
        row.output = result.output
        row.codes = [f.code for f in warnings]  # partial refusals next to a conversion
        return
    row.outcome = "refused"
    row.codes = [f.code for f in warnings] or [f.code for f in result.findings] or ["NONE"]
    first = warnings or result.findings
    row.refusal = f"L{first[0].line} {first[0].message}" if first else "no training loop found"


VERDICT = re.compile(r"^verdict: (.*)$", re.MULTILINE)


def verify_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def verify(path: Path, args, row: Row) -> None:
    env = verify_env()
    command = [
        sys.executable,
        "-m",
        "torchlift",
        "migrate",
        "--verify",
        str(path),
        "--steps",
        str(args.steps),
        "--timeout",
        str(args.timeout),
        "--target",
        args.target,
    ]
    try:
        done = subprocess.run(
            command,
            check=False,
            cwd=path.parent,
            env=env,
            capture_output=True,
            text=True,
            timeout=2 * args.timeout + 120,
        )
    except subprocess.TimeoutExpired:
        row.outcome, row.verdict = "failed", "migrate --verify itself timed out"
        return
    output = done.stdout + done.stderr
    row.verify_output = output
    found = VERDICT.findall(output)
    if not found:
        last = [line for line in output.splitlines() if line.strip()]
        row.outcome = "error"
        row.verdict = f"no verdict (exit {done.returncode}): {last[-1] if last else '-'}"
        return
    text = found[-1]
    if text.startswith("identical"):
        row.outcome, row.verdict = "identical", "identical"
    elif text.startswith("equal within rtol"):
        match = re.search(r"max relative difference (\S+)", text)
        row.outcome, row.verdict = (
            "close",
            f"close (max rel {match.group(1) if match else '?'})",
        )
    elif text.startswith("diverged at step"):
        match = re.match(r"diverged at step (\d+) - (.*)", text)
        row.outcome = "diverged"
        row.verdict = f"diverged at step {match.group(1)}: {match.group(2)}" if match else text
    elif text.startswith("diverged"):
        row.outcome, row.verdict = "diverged", text
    elif text.startswith("the converted script"):
        row.outcome = "failed"
        row.verdict = (
            "converted script " + text.removeprefix("the converted script ").split(" - ")[0]
        )
    elif text.startswith("the original script"):
        row.outcome = "original-failed"
        row.verdict = "ORIGINAL script " + text.removeprefix("the original script ")
    else:  # nothing to verify (no backward, no torch, unchanged)
        row.outcome = "failed" if "converted" in text else "error"
        row.verdict = text


def run_to_end(path: Path, args, row: Row) -> None:
    """Run the converted script to its end (verify stops after --steps steps, so code after
    training - prints, saves, a test pass - is only exercised here), in a temporary folder
    mirroring the script's own, like verify does."""
    from torchlift.verify.diagnose import error_line
    from torchlift.verify.workspace import make_run_dir

    env = verify_env()
    env["PYTHONHASHSEED"] = "0"
    env["CUDA_VISIBLE_DEVICES"] = ""
    with tempfile.TemporaryDirectory(prefix="conversion-rate-") as tmp:
        script = make_run_dir(Path(tmp), "converted", path.resolve(), row.output)
        try:
            done = subprocess.run(
                [sys.executable, script.name],
                check=False,
                cwd=script.parent,
                env=env,
                capture_output=True,
                text=True,
                timeout=args.timeout,
            )
        except subprocess.TimeoutExpired:
            row.full_run = f"timed out after {args.timeout:g} s"
            return
    if done.returncode == 0:
        row.full_run = "ok"
    else:
        row.full_run = f"exit {done.returncode}: {error_line(done.stderr)}"


def run_one(path: Path, args) -> Row:
    row = Row(path.stem)
    started = time.monotonic()
    migrate(path, args.target, row)
    if row.converted and not args.no_verify:
        verify(path, args, row)
        if args.full_run and row.outcome in ("identical", "close", "diverged"):
            run_to_end(path, args, row)
            if row.full_run != "ok":
                row.outcome = "failed"
                row.verdict += (
                    f"; but the converted script fails when run to its end: {row.full_run}"
                )
    elif row.converted:
        row.outcome, row.verdict = "converted", "(not verified)"
    row.seconds = time.monotonic() - started
    return row


def format_row(row: Row, width: int) -> str:
    if row.converted:
        conv = "yes" + (f" (also {','.join(row.codes)})" if row.codes else "")
    else:
        conv = f"no  {','.join(dict.fromkeys(row.codes))}: {row.refusal}"
    verdict = row.verdict or "-"
    return f"{row.name:<{width}}  {row.seconds:6.1f}s  {conv}" + (
        f"\n{'':<{width}}           -> {verdict}" if row.converted or row.outcome == "error" else ""
    )


def summary(rows: list[Row], target: str) -> list[str]:
    n = len(rows)
    converted = sum(r.converted for r in rows)
    equal = sum(r.outcome in ("identical", "close") for r in rows)
    bit = sum(r.outcome == "identical" for r in rows)
    failed = sum(r.outcome == "failed" for r in rows)
    diverged = sum(r.outcome == "diverged" for r in rows)
    lines = [
        f"[{target}] converted {converted}/{n}, identical {equal}/{n}, failed-to-run {failed}"
        f"  (bit-identical {bit}, within rtol {equal - bit}, diverged {diverged}"
        + (
            f", original failed {sum(r.outcome == 'original-failed' for r in rows)}"
            if any(r.outcome == "original-failed" for r in rows)
            else ""
        )
        + (
            f", migrator/verify errors {sum(r.outcome == 'error' for r in rows)}"
            if any(r.outcome == "error" for r in rows)
            else ""
        )
        + ")"
    ]
    refused = [r for r in rows if not r.converted]
    first = Counter(r.codes[0] for r in refused if r.codes)
    every = Counter(code for r in refused for code in dict.fromkeys(r.codes))
    if first:
        lines.append(
            "refusals, first code: " + ", ".join(f"{c} x{k}" for c, k in first.most_common())
        )
        if every != first:
            lines.append(
                "refusals, every code: " + ", ".join(f"{c} x{k}" for c, k in every.most_common())
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=TARGETS, default="runtime")
    parser.add_argument(
        "--jobs", type=int, default=1, help="scripts verified at a time (default 1)"
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="only this corpus script (repeatable; with or without .py)",
    )
    # every step of a corpus script (they run in seconds): 20 steps could all fall in an
    # unconverted first loop and say nothing of the converted one after it
    parser.add_argument(
        "--steps", type=int, default=5000, help="verify: training steps compared (default: all)"
    )
    parser.add_argument("--timeout", type=float, default=180.0, help="verify: seconds per run")
    parser.add_argument("--no-verify", action="store_true", help="only run the migrator")
    parser.add_argument(
        "--no-full-run",
        dest="full_run",
        action="store_false",
        help="skip running each verified conversion to its end (verify stops after --steps)",
    )
    parser.add_argument(
        "--corpus", default=str(CORPUS), help="folder of scripts (default benchmarks/corpus)"
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print migrate --verify's output under rows that are not identical",
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))

    scripts = corpus_scripts(Path(args.corpus), args.only)
    width = max((len(p.stem) for p in scripts), default=10)
    print(
        f"conversion rate: {len(scripts)} corpus scripts, target {args.target}, "
        f"verify --steps {args.steps} --timeout {args.timeout:g}, jobs {args.jobs}",
        flush=True,
    )
    print(f"{'script':<{width}}  {'time':>7}  converted? / verify verdict", flush=True)
    rows = []
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for row in pool.map(lambda p: run_one(p, args), scripts):
            rows.append(row)
            print(format_row(row, width), flush=True)
            if args.verbose and row.verify_output and row.outcome != "identical":
                print("\n".join("      | " + line for line in row.verify_output.splitlines()))
    print()
    for line in summary(rows, args.target):
        print(line)
    print(f"total {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
