"""Repeat a 2-process gloo DDP run on CPU and count aborts at exit (std::terminate, code -6).

    python benchmarks/exit_abort_loop.py                     # 10 runs on torchlift.runtime
    python benchmarks/exit_abort_loop.py --runs 50 --engine lightning

Each run is a fresh `python exit_abort_loop.py --worker ENGINE DIR` (rank 0 re-runs it for rank 1,
as a user's script), training a tiny model for a few steps with Trainer(devices=2,
strategy="ddp"), OMP_NUM_THREADS=1. Reported: aborts ("terminate called without an active
exception"), other failures, runs in which a gloo or store thread was still alive after every
exit handler (what lets the abort happen, strategies/group_teardown.py), seconds per run. The
abort is rare and load-dependent (about 1 run in 9 on a loaded CI machine), so the thread count
is the deterministic signal; the abort count needs many runs.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ABORT = "terminate called without an active exception"


def worker(engine: str, out: str) -> None:
    def record_threads() -> None:  # registered first: runs after the trainer's exit handlers
        names = [(task / "comm").read_text().strip() for task in Path("/proc/self/task").iterdir()]
        left = [name for name in names if "gloo" in name or "tcpstore" in name]
        Path(out, f"threads{os.environ.get('RANK', '0')}.json").write_text(json.dumps(left))

    if Path("/proc/self/task").is_dir():
        atexit.register(record_threads)
    import torch

    L = __import__(
        "lightning.pytorch" if engine == "lightning" else "torchlift.runtime", fromlist=["_"]
    )

    class Model(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(8, 1)

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.layer(x), y)
            self.log("loss", loss)
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    torch.manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(64, 8), torch.randn(64, 1))
    trainer = L.Trainer(
        accelerator="cpu",
        devices=2,
        strategy="ddp",
        max_epochs=2,
        default_root_dir=out,
        enable_progress_bar=False,
        enable_model_summary=False,
        logger=False,
    )
    trainer.fit(Model(), torch.utils.data.DataLoader(data, batch_size=8, shuffle=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--engine", choices=["runtime", "lightning"], default="runtime")
    parser.add_argument("--worker", nargs=2, metavar=("ENGINE", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(*args.worker)
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)
    aborts = failures = threads_left = 0
    started = time.monotonic()
    for run in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="exit-abort-") as out:
            command = [sys.executable, os.path.abspath(__file__), "--worker", args.engine, out]
            proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
            left = [json.loads(p.read_text()) for p in Path(out).glob("threads*.json")]
        if ABORT in proc.stderr:
            aborts += 1
            print(f"run {run}: abort at exit (code {proc.returncode})", flush=True)
        elif proc.returncode != 0:
            failures += 1
            print(f"run {run}: failed (code {proc.returncode})\n{proc.stderr[-1500:]}", flush=True)
        threads_left += any(left)
    seconds = (time.monotonic() - started) / args.runs
    print(
        f"{args.engine}: {args.runs} runs, {aborts} aborts at exit, {failures} other failures, "
        f"{threads_left} runs with gloo threads alive at finalization, {seconds:.1f} s per run"
    )


if __name__ == "__main__":
    main()
