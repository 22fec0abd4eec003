"""DDP on CPU, 2 gloo processes: raw torch DDP vs torchlift.runtime vs Lightning's strategy="ddp".

    python benchmarks/ddp_cpu.py                 # 3 interleaved rounds, 200 steps each
    python benchmarks/ddp_cpu.py --rounds 5 --steps 400

Same MLP (784-128-10), batch 64 per process, synthetic data, 1 thread per process, the same
shuffled DistributedSampler order everywhere. Each variant runs as a fresh
`python ddp_cpu.py --worker VARIANT` command, exactly as a user would start it:
- raw:       torch.multiprocessing.spawn + init_process_group + DistributedDataParallel + loop
- torchlift: Trainer(accelerator="cpu", devices=2, strategy="ddp") - rank 0 re-runs the script
- lightning: the same with lightning.pytorch (same launch mechanism)
Reported: median wall time per optimizer step on rank 0 after warm-up, mean CPU time per step
of rank 0 (robust when the machine is shared), and wall time of the whole command (interpreter
start, imports, launch, rendezvous, training, exit; "launch s" = wall - steps x ms/step).
Ratios are to raw.
Both trainers log the loss every step (`self.log`), progress bar/logger/checkpointing off.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

BATCH = 64
WARMUP = 20
HIDDEN = 128


def make_data(steps: int):
    import torch
    from torch.utils.data import TensorDataset

    generator = torch.Generator().manual_seed(0)
    n = 2 * BATCH * min(steps, 50)  # several epochs for long runs; keeps memory small
    return TensorDataset(
        torch.randn(n, 784, generator=generator), torch.randint(0, 10, (n,), generator=generator)
    )


def make_net():
    import torch

    return torch.nn.Sequential(
        torch.nn.Linear(784, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, 10)
    )


def now() -> tuple[float, float]:
    # Wall clock, and this process's CPU time: the latter does not count time the machine gave
    # to other programs, so it stays meaningful on a shared machine.
    return time.perf_counter(), time.process_time()


def report(times: list[tuple[float, float]]) -> None:
    """Rank 0: per-step durations from end-of-step timestamps."""
    wall = [b[0] - a[0] for a, b in zip(times, times[1:])][WARMUP:]
    cpu = [b[1] - a[1] for a, b in zip(times, times[1:])][WARMUP:]
    result = {"step_ms": 1000 * statistics.median(wall), "cpu_ms": 1000 * statistics.mean(cpu)}
    print("RESULT " + json.dumps(result), flush=True)


# --- raw torch ------------------------------------------------------------------------------
def raw_worker(rank: int, steps: int, port: int) -> None:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    from torch.utils.data import DataLoader, DistributedSampler

    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    torch.manual_seed(0)
    model = DistributedDataParallel(make_net())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    dataset = make_data(steps)
    sampler = DistributedSampler(dataset, num_replicas=2, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=BATCH, sampler=sampler)
    times, epoch = [], 0
    while len(times) < steps:
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            times.append(now())
            if len(times) == steps:
                break
        epoch += 1
    if rank == 0:
        report(times)
    dist.destroy_process_group()


def run_raw(steps: int) -> None:
    import torch.multiprocessing as mp

    from torchlift.runtime.environments import find_free_port

    mp.spawn(raw_worker, args=(steps, find_free_port()), nprocs=2)


# --- trainers -------------------------------------------------------------------------------
def run_trainer(pl, steps: int) -> None:
    import torch
    from torch.utils.data import DataLoader

    torch.set_num_threads(1)

    class Net(pl.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = make_net()

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.cross_entropy(self.net(x), y)
            self.log("train_loss", loss)
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    class StepClock(pl.Callback):
        def __init__(self) -> None:
            self.times: list[tuple[float, float]] = []

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
            self.times.append(now())

    pl.seed_everything(0, verbose=False)
    clock = StepClock()
    trainer = pl.Trainer(
        accelerator="cpu",
        devices=2,
        strategy="ddp",
        max_steps=steps,
        callbacks=[clock],
        enable_progress_bar=False,
        enable_checkpointing=False,
        enable_model_summary=False,
        logger=False,
        num_sanity_val_steps=0,
    )
    trainer.fit(Net(), DataLoader(make_data(steps), batch_size=BATCH, shuffle=True))
    if trainer.is_global_zero:
        report(clock.times)


def worker(variant: str, steps: int) -> None:
    if variant == "raw":
        run_raw(steps)
    elif variant == "torchlift":
        import torchlift.runtime as pl

        run_trainer(pl, steps)
    else:
        import lightning.pytorch as pl

        run_trainer(pl, steps)


# --- driver ---------------------------------------------------------------------------------
def measure(variant: str, steps: int) -> tuple[float, float, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE")}
    env.update(OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--worker", variant, "--steps", str(steps)],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"{variant} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    result = json.loads(lines[-1][len("RESULT ") :])
    return result["step_ms"], result["cpu_ms"], wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--worker", choices=("raw", "torchlift", "lightning"))
    parser.add_argument("--variants", default="raw,torchlift,lightning")
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.steps)
    variants = args.variants.split(",")
    step_ms: dict[str, list[float]] = {v: [] for v in variants}
    cpu_ms: dict[str, list[float]] = {v: [] for v in variants}
    wall_s: dict[str, list[float]] = {v: [] for v in variants}
    for round_index in range(args.rounds):  # interleaved, so drifting machine load hits all alike
        for variant in variants:
            step, cpu, wall = measure(variant, args.steps)
            step_ms[variant].append(step)
            cpu_ms[variant].append(cpu)
            wall_s[variant].append(wall)
            print(
                f"round {round_index + 1}: {variant:<10} {step:7.3f} ms/step "
                f"{cpu:7.3f} cpu-ms/step {wall:6.2f} s wall",
                flush=True,
            )
    base_step = statistics.median(step_ms["raw"]) if "raw" in step_ms else None
    base_cpu = statistics.median(cpu_ms["raw"]) if "raw" in cpu_ms else None
    base_wall = statistics.median(wall_s["raw"]) if "raw" in wall_s else None
    print(f"\n2 gloo processes, {args.steps} steps, medians of {args.rounds} rounds")
    header = ("variant", "ms/step", "x raw", "cpu-ms/step", "x raw", "wall s", "x raw", "launch s")
    print("{:<10} {:>8} {:>6} {:>11} {:>6} {:>7} {:>6} {:>8}".format(*header))

    def ratio(value: float, base: float | None) -> str:
        return f"{value / base:6.2f}" if base else "     -"

    for variant in variants:
        step = statistics.median(step_ms[variant])
        cpu = statistics.median(cpu_ms[variant])
        wall = statistics.median(wall_s[variant])
        launch = wall - args.steps * step / 1000  # start-up, rendezvous and exit
        print(
            f"{variant:<10} {step:8.3f} {ratio(step, base_step)} {cpu:11.3f} "
            f"{ratio(cpu, base_cpu)} {wall:7.2f} {ratio(wall, base_wall)} {launch:8.2f}"
        )


if __name__ == "__main__":
    main()
