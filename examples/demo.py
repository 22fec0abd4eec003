"""`make demo`: migrate a plain PyTorch script, show the diff, run both, prove they match.

Every step is a real command a user would type; this file only runs them in order.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRIPT = HERE / "train_classifier.py"
OUT = ROOT / "demo_out" / "train_classifier_lit.py"


def run(title: str, *argv: str, ok_codes: tuple[int, ...] = (0,)) -> None:
    print(f"\n=== {title}\n$ {' '.join(argv)}", flush=True)
    code = subprocess.call([sys.executable, *argv], cwd=ROOT)
    if code not in ok_codes:
        sys.exit(f"demo: step failed with exit code {code}: {' '.join(argv)}")


def main() -> None:
    rel = SCRIPT.relative_to(ROOT)
    out = OUT.relative_to(ROOT)
    run("1. The diff `migrate` proposes (nothing is written)", "-m", "torchlift", "migrate", str(rel))
    run("2. Write the converted script", "-m", "torchlift", "migrate", str(rel), "-o", str(out))
    run("3. The original script", str(rel))
    run("4. The converted script, on torchlift's runtime", str(out))
    run(
        "5. Proof: per-step losses of both runs, same seed",
        "-m", "torchlift", "migrate", "--verify", str(rel), "--steps", "10",
    )  # fmt: skip


if __name__ == "__main__":
    main()
