"""Helpers to run a Python script with the backward trace installed and read the trace back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

TRACE_DIR = Path(__file__).parent


@dataclass
class TracedRun:
    losses: list[float]
    returncode: int
    stdout: str
    stderr: str


def run_traced(
    script: str | os.PathLike,
    args: list[str] | tuple[str, ...] = (),
    *,
    steps: int = 0,
    cwd: str | os.PathLike | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> TracedRun:
    """Run `python script args...` in a subprocess and return every loss passed to backward()."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.jsonl"
        run_env = dict(os.environ if env is None else env)
        run_env["PYTHONPATH"] = os.pathsep.join(
            p for p in [str(TRACE_DIR), run_env.get("PYTHONPATH", "")] if p
        )
        run_env["TORCHLIFT_TRACE"] = str(trace)
        run_env["TORCHLIFT_TRACE_STEPS"] = str(steps)
        run_env.setdefault("CUDA_VISIBLE_DEVICES", "")
        proc = subprocess.run(
            [sys.executable, str(script), *args],
            cwd=cwd,
            env=run_env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        losses = []
        if trace.exists():
            losses = [json.loads(line)["loss"] for line in trace.read_text().splitlines() if line]
        return TracedRun(losses, proc.returncode, proc.stdout, proc.stderr)
