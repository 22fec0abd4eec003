"""`migrate --verify`: prove that a migration kept training behaviour.

Contract with the CLI (torchlift/cli.py calls exactly this):

    run_verify(script, script_args, *, steps=20, rtol=1e-5, target="runtime", timeout=600.0,
               device="cpu", out=sys.stdout) -> int   # the process exit code

The backward trace both runs are measured with lives in torchlift.verify.trace.
"""

from __future__ import annotations

import sys
from typing import TextIO


def run_verify(
    script: str,
    script_args: list[str] | tuple[str, ...] = (),
    *,
    steps: int = 20,
    rtol: float = 1e-5,
    target: str = "runtime",
    timeout: float = 600.0,
    device: str = "cpu",
    out: TextIO = sys.stdout,
) -> int:
    raise NotImplementedError("migrate --verify is being built (issue: Trust: migrate --verify)")
