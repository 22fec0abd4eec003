"""How much a trainer costs over a plain PyTorch loop: torchlift.runtime vs Lightning.

    python benchmarks/runtime_overhead.py                 # 7 rounds, 200 steps per epoch
    python benchmarks/runtime_overhead.py --rounds 11 --steps 400

One epoch of the same MLP (784-128-10, batch 64, synthetic data, SGD, one CPU thread), run by:
  raw                 a hand-written loop (zero_grad / forward / backward / step)
  <trainer> bare      Trainer with progress bar, logger, checkpointing, model summary off
  <trainer> defaults  Trainer(max_epochs=1) as a user writes it (bar, logger, checkpoint, summary)
The LightningModule calls `self.log("train_loss", loss, prog_bar=True)` every step, as converted
scripts do. Rounds are interleaved (every variant once per round, order rotated) so machine
load drifts hit all variants alike; the table shows medians and ratios to raw. Each timing
covers building the Trainer plus `fit` (what a user waits for), after one untimed warm-up round.

Both wall-clock and CPU time (`time.process_time`, this process only) are recorded. On a
shared machine other processes stretch wall time by whatever share of the cores they take, so
the ratios and the summary use CPU time, which counts only the work this process did; the wall
medians are printed next to them.

Import cost is measured in fresh interpreters: the time `import torchlift.runtime` (and touching
Trainer / LightningModule / callbacks / loggers, as a converted script does) and `import lightning`
add on top of `import torch`. The last line printed is a one-line summary.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import torch
from torch.utils.data import DataLoader, TensorDataset

BATCH = 64
TARGET_BARE, TARGET_DEFAULTS, TARGET_IMPORT = 1.05, 1.15, 0.15


def make_data(steps: int) -> TensorDataset:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(steps * BATCH, 784, generator=g)
    y = torch.randint(0, 10, (steps * BATCH,), generator=g)
    return TensorDataset(x, y)


def make_mlp() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))


def module_class(L):
    """The same LightningModule source for either engine (`L` is the imported package)."""

    class MLP(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = make_mlp()

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.cross_entropy(self.net(x), y)
            self.log("train_loss", loss, prog_bar=True)
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    return MLP


def run_raw(data: TensorDataset) -> None:
    torch.manual_seed(0)
    model = make_mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    model.train()
    for x, y in DataLoader(data, batch_size=BATCH, shuffle=True):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def run_trainer(L, data: TensorDataset, bare: bool) -> None:
    torch.manual_seed(0)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True)
    with tempfile.TemporaryDirectory() as root:
        if bare:
            kwargs = dict(
                enable_progress_bar=False,
                logger=False,
                enable_checkpointing=False,
                enable_model_summary=False,
            )
        else:
            kwargs = {}
        trainer = L.Trainer(max_epochs=1, default_root_dir=root, **kwargs)
        trainer.fit(module_class(L)(), loader)


def import_overhead(statement: str, repeats: int) -> float:
    """Median CPU seconds `statement` adds after `import torch`, each in a fresh interpreter."""
    code = (
        "import time; import torch; t1 = time.process_time();\n"
        f"{statement}\n"
        "print(time.process_time() - t1)"
    )
    samples = []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        samples.append(float(out.strip().splitlines()[-1]))
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds (default 7)")
    parser.add_argument("--steps", type=int, default=200, help="optimizer steps per epoch")
    parser.add_argument("--import-repeats", type=int, default=5)
    parser.add_argument("--no-lightning", action="store_true", help="skip Lightning's runs")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    import logging

    logging.disable(logging.WARNING)  # Lightning's "GPU available: False" etc.

    import torchlift.runtime as ours

    engines = {"torchlift": ours}
    if not args.no_lightning:
        try:
            import lightning.pytorch as lightning

            engines["lightning"] = lightning
        except ImportError:
            print("lightning is not installed: measuring torchlift only", file=sys.stderr)

    data = make_data(args.steps)
    variants = {"raw": lambda: run_raw(data)}
    for name, L in engines.items():
        variants[f"{name} bare"] = lambda L=L: run_trainer(L, data, bare=True)
        variants[f"{name} defaults"] = lambda L=L: run_trainer(L, data, bare=False)

    wall: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    with open(os.devnull, "w") as devnull:
        for round_index in range(args.rounds + 1):  # round 0 warms up and is not recorded
            order = names[round_index % len(names) :] + names[: round_index % len(names)]
            for name in order:
                gc.collect()
                with contextlib.redirect_stdout(devnull), contextlib.redirect_stderr(devnull):
                    start_wall, start_cpu = time.perf_counter(), time.process_time()
                    variants[name]()
                    elapsed_cpu = time.process_time() - start_cpu
                    elapsed_wall = time.perf_counter() - start_wall
                if round_index:
                    wall[name].append(elapsed_wall)
                    cpu[name].append(elapsed_cpu)

    medians = {name: statistics.median(samples) for name, samples in cpu.items()}
    wall_medians = {name: statistics.median(samples) for name, samples in wall.items()}
    raw, raw_wall = medians["raw"], wall_medians["raw"]
    print(
        f"runtime overhead: MLP 784-128-10, batch {BATCH}, {args.steps} steps, 1 thread,"
        f" median of {args.rounds} interleaved rounds (Trainer construction + fit)"
    )
    header = ("run", "cpu s", "cpu ms/step", "ratio (cpu)", "wall s", "ratio (wall)")
    print(
        f"{header[0]:<20}{header[1]:>8}{header[2]:>13}{header[3]:>13}{header[4]:>9}{header[5]:>14}"
    )
    for name in names:
        per_step = 1000 * medians[name] / args.steps
        print(
            f"{name:<20}{medians[name]:>8.3f}{per_step:>13.3f}{medians[name] / raw:>12.2f}x"
            f"{wall_medians[name]:>9.3f}{wall_medians[name] / raw_wall:>13.2f}x"
        )

    ours_import = import_overhead(
        "import torchlift.runtime as L; L.Trainer; L.LightningModule;"
        " L.callbacks.ModelCheckpoint; L.loggers.CSVLogger",
        args.import_repeats,
    )
    line = f"import over torch (cpu): torchlift.runtime +{ours_import:.3f} s"
    lightning_import = None
    if "lightning" in engines:
        lightning_import = import_overhead("import lightning", args.import_repeats)
        line += f", lightning +{lightning_import:.3f} s"
    print(line)

    ratio_bare = medians["torchlift bare"] / raw
    ratio_defaults = medians["torchlift defaults"] / raw
    ok = (
        ratio_bare <= TARGET_BARE
        and ratio_defaults <= TARGET_DEFAULTS
        and ours_import < TARGET_IMPORT
    )
    summary = (
        f"RESULT (cpu time) torchlift bare {ratio_bare:.2f}x (target <= {TARGET_BARE}),"
        f" defaults {ratio_defaults:.2f}x (<= {TARGET_DEFAULTS}),"
        f" import +{ours_import:.3f}s (< {TARGET_IMPORT})"
    )
    if "lightning" in engines:
        summary += (
            f"; lightning bare {medians['lightning bare'] / raw:.2f}x,"
            f" defaults {medians['lightning defaults'] / raw:.2f}x,"
            f" import +{lightning_import:.2f}s"
        )
    summary += "; targets met" if ok else "; TARGETS MISSED"
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
