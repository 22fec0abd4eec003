"""How fast is `migrate`, next to the cheapest thing a libcst tool can do?

    python benchmarks/migrate_speed.py             # fixtures + every .py file of torch
    python benchmarks/migrate_speed.py --limit 200 # a quicker look at torch

For (a) the fixture scripts (training loops to convert) and (b) every .py file of the installed
torch package (real code, almost none of it a training loop), it times
`torchlift.migrator.migrate_source` and a bare `libcst.parse_module(src).code` round trip over
the same files, in one process, and prints lines per second and the ratio. Over torch it also
counts tracebacks (migrate_source raising, or reporting an internal error) and bytes changed:
both must be 0, since none of torch is a training script the migrator should touch.
Times are CPU time of this process (time.process_time), so a busy machine skews them less.
Targets (issue 3): loop files <= 3x the round trip, files without loops <= 1.2x.
The last line is the one-line result.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path

import libcst

from torchlift.migrator import migrate_source

REPO = Path(__file__).resolve().parents[1]
INTERNAL_ERROR_CODES = {"TL900"}  # the migrator's "internal error, file left unchanged"


@dataclass
class Tally:
    files: int = 0
    lines: int = 0
    migrate_s: float = 0.0
    roundtrip_s: float = 0.0
    tracebacks: list[str] = field(default_factory=list)
    changed_files: int = 0
    changed_paths: list[str] = field(default_factory=list)
    changed_bytes: int = 0
    input_errors: int = 0  # InputError results (empty files, syntax newer than this Python)
    empty_files: int = 0
    not_parsable: int = 0  # files libcst itself cannot parse: left out of the ratio

    def ratio(self) -> float:
        return self.migrate_s / self.roundtrip_s if self.roundtrip_s else float("nan")

    def rate(self, seconds: float) -> float:
        return self.lines / seconds if seconds else float("nan")


def read_sources(paths: list[Path]) -> list[tuple[str, str]]:
    sources = []
    for path in paths:
        try:
            sources.append((str(path), path.read_bytes().decode("utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return sources


def bytes_changed(before: str, after: str) -> int:
    a, b = before.encode(), after.encode()
    return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))


def measure(sources: list[tuple[str, str]], repeats: int = 1) -> Tally:
    tally = Tally()
    for path, text in sources:
        try:
            start = time.process_time()
            for _ in range(repeats):
                libcst.parse_module(text).code
            roundtrip = (time.process_time() - start) / repeats
        except Exception:
            roundtrip = None
        try:
            start = time.process_time()
            for _ in range(repeats):
                result = migrate_source(text, path=path, target="runtime")
            migrate = (time.process_time() - start) / repeats
        except Exception as exc:
            tally.tracebacks.append(f"{path}: {type(exc).__name__}: {exc}")
            continue
        if any(f.code in INTERNAL_ERROR_CODES for f in result.findings):
            tally.tracebacks.append(f"{path}: internal error reported by the migrator")
        if result.error is not None:
            tally.input_errors += 1
            tally.empty_files += result.error.cause == "empty file"
        if result.output != text:
            tally.changed_files += 1
            tally.changed_bytes += bytes_changed(text, result.output)
            tally.changed_paths.append(path)
        if roundtrip is None:
            tally.not_parsable += 1
            continue
        tally.files += 1
        tally.lines += text.count("\n") + 1
        tally.migrate_s += migrate
        tally.roundtrip_s += roundtrip
    return tally


def describe(name: str, tally: Tally, target: float) -> str:
    return (
        f"{name}: {tally.files} files, {tally.lines} lines | migrate "
        f"{tally.rate(tally.migrate_s):,.0f} lines/s, libcst round trip "
        f"{tally.rate(tally.roundtrip_s):,.0f} lines/s | ratio {tally.ratio():.2f}x "
        f"(target <= {target}x)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N torch files")
    parser.add_argument("--repeats", type=int, default=5, help="timing repeats per fixture")
    args = parser.parse_args(argv)

    import torch

    fixtures = read_sources(sorted(REPO.glob("fixtures/*/input.py")))
    torch_files = sorted(Path(torch.__file__).parent.rglob("*.py"))
    if args.limit:
        torch_files = torch_files[: args.limit]
    migrate_source(fixtures[0][1], path=fixtures[0][0])  # warm up imports and caches

    loops = measure(fixtures, repeats=args.repeats)
    print(describe("fixtures (training loops)", loops, 3.0), flush=True)
    print(f"  converted {loops.changed_files} of {len(fixtures)} fixture scripts", flush=True)

    plain = measure(read_sources(torch_files))
    print(describe("torch package (no loops)", plain, 1.2))
    print(
        f"  tracebacks {len(plain.tracebacks)}, files changed {plain.changed_files}, "
        f"bytes changed {plain.changed_bytes}, input errors {plain.input_errors} "
        f"({plain.empty_files} empty files), "
        f"not parsable by libcst {plain.not_parsable}"
    )
    for line in plain.tracebacks[:10]:
        print("  " + line)
    for path in plain.changed_paths[:10]:
        print(f"  changed: {path}")
    correct = not plain.tracebacks and not plain.changed_bytes and not loops.tracebacks
    ok = correct and loops.ratio() <= 3.0 and plain.ratio() <= 1.2
    print(
        f"migrate_speed: fixtures {loops.rate(loops.migrate_s):,.0f} lines/s "
        f"({loops.ratio():.2f}x libcst round trip), torch {plain.rate(plain.migrate_s):,.0f} "
        f"lines/s ({plain.ratio():.3f}x), torch tracebacks {len(plain.tracebacks)}, "
        f"torch changed bytes {plain.changed_bytes} -> {'PASS' if ok else 'FAIL'}"
    )
    return 0 if correct else 1  # a missed speed target is reported, not an error


if __name__ == "__main__":
    raise SystemExit(main())
