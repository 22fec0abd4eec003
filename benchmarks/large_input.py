"""How much does `migrate` spend on a huge module with no training loop?

    python benchmarks/large_input.py            # a 30 MB generated module of constants
    python benchmarks/large_input.py --mb 5     # smaller
    python benchmarks/large_input.py --with-ast # also the cost of the `ast` parse it avoids
                                                # (about a minute and 4 GB at 30 MB)

Each measurement is a fresh process, timed by the wall clock, its peak RSS read from
wait4(): (a) the baseline, a Python process that only reads the file; (b) `migrate --check`
on it; (c) with --with-ast, a process that reads it and builds its `ast` (what `migrate` did
before the text prefilter ran first). Target (issue 13): (b) under 5 s and 500 MB at 30 MB.
The last line is the one-line result, with (b)'s ratios to the baseline.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def write_module(path: Path, megabytes: float) -> None:
    """Generated constants, as code generators write them: no loop, no backward. Written line
    by line: this process must stay small, since a child's peak RSS counts from the fork."""
    size, index = 0, 0
    with path.open("w") as out:
        out.write('"""Generated lookup tables."""\nimport math\n\n')
        while size < megabytes * 1_000_000:
            line = f"ENTRY_{index} = {{'name': 'item{index}', 'scale': {index * 0.5}, 'ids': [{index}]}}\n"
            out.write(line)
            size += len(line)
            index += 1


def measure(command: list[str]) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, exit code) of one fresh process."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )
    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    return seconds, usage.ru_maxrss / 1024, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=30.0, help="size of the generated module")
    parser.add_argument("--with-ast", action="store_true", help="also measure the ast parse")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="torchlift-bench-") as tmp:
        module = Path(tmp) / "tables.py"
        write_module(module, args.mb)
        read_only = [sys.executable, "-c", f"open({str(module)!r}, 'rb').read()"]
        migrate = [sys.executable, "-m", "torchlift", "migrate", "--check", "-q", str(module)]
        parse = [
            sys.executable,
            "-c",
            f"import ast; ast.parse(open({str(module)!r}).read())",
        ]
        base_s, base_mb, _ = measure(read_only)
        print(f"baseline (read the file):  {base_s:6.2f} s  {base_mb:7.0f} MB peak RSS")
        mig_s, mig_mb, code = measure(migrate)
        print(
            f"migrate --check:           {mig_s:6.2f} s  {mig_mb:7.0f} MB peak RSS  (exit {code})"
        )
        if args.with_ast:
            ast_s, ast_mb, _ = measure(parse)
            print(f"ast parse (avoided):       {ast_s:6.2f} s  {ast_mb:7.0f} MB peak RSS")
    print(
        f"large_input {args.mb:g} MB, no loop: migrate {mig_s:.2f} s / {mig_mb:.0f} MB = "
        f"{mig_s / base_s:.1f}x time, {mig_mb / base_mb:.1f}x memory of reading the file "
        f"(target < 5 s, < 500 MB)"
    )


if __name__ == "__main__":
    main()
