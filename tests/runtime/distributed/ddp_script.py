"""A training script the DDP tests run as real processes (`python ddp_script.py OUT [k=v ...]`).

It trains a tiny regression model on synthetic data with `torchlift.runtime` and, on global
rank zero only, writes OUT/result.json (final weights, ranks seen, world size). Options:
    accelerator=cpu devices=2 num_nodes=1 steps=6 batch=4 accumulate=1 shuffle=0 precision=32-true
    fail_rank=-1 fail_step=-1      (raise ValueError on that rank at that step)
    ckpt_every=0 stop_at=0 resume=PATH  (checkpoint/resume)
    rank0_monitor=1               (the checkpoint monitors a metric only rank 0 logs)
    test=1                        (trainer.test() after fit in the same launch)
    collectives=1                 (call each strategy collective after fit)
    sync_log=1                    (self.log(..., sync_dist=True) of the rank, read back)
    exit_threads=1                (OUT/exit_threads_rank<R>.json: native threads left at exit)
Each rank also records its loss at every step ("losses").
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import sys
import time
from pathlib import Path

import torch
from torch.utils.data import DataLoader, TensorDataset

# TORCHLIFT_TEST_ENGINE=lightning runs the same script on real Lightning (the parity test); an
# environment variable, not an option, because the module is also imported by the tests.
L = importlib.import_module(
    "lightning.pytorch"
    if os.environ.get("TORCHLIFT_TEST_ENGINE") == "lightning"
    else "torchlift.runtime"
)


def parse(argv: list[str]) -> dict[str, str]:
    return dict(arg.split("=", 1) for arg in argv)


class Regressor(L.LightningModule):
    def __init__(self, fail_rank=-1, fail_step=-1, sync_log=False, rank0_log=False) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(8, 1)
        self.fail_rank, self.fail_step, self.sync_log = fail_rank, fail_step, sync_log
        self.rank0_log = rank0_log
        self.losses: list[float] = []  # this rank's loss at every training step

    def training_step(self, batch, batch_idx):
        if self.global_rank == self.fail_rank and self.global_step == self.fail_step:
            with open(os.path.join(self.trainer.default_root_dir, "failed_at"), "w") as handle:
                handle.write(repr(time.time()))  # the test's clock starts here
            raise ValueError(
                f"deliberate failure on rank {self.global_rank} at step {self.fail_step}"
            )
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.layer(x), y)
        self.losses.append(loss.item())
        if self.sync_log:
            self.log("rank_mean", float(self.global_rank), sync_dist=True, on_step=True)
        if self.rank0_log and self.global_rank == 0:
            self.log("only_rank0", loss)  # monitored by ModelCheckpoint: must not deadlock
        return loss

    def test_step(self, batch, batch_idx):
        x, y = batch
        self.log("test_loss", torch.nn.functional.mse_loss(self.layer(x), y), sync_dist=True)

    def configure_optimizers(self):
        # momentum: optimizer state that a lost or unsynchronised state dict would show
        return torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)


def data(n: int = 64) -> TensorDataset:
    generator = torch.Generator().manual_seed(1234)
    x = torch.randn(n, 8, generator=generator)
    return TensorDataset(
        x, x.sum(dim=1, keepdim=True) + 0.1 * torch.randn(n, 1, generator=generator)
    )


def exercise_collectives(strategy) -> dict:
    """Each strategy collective once, from every rank (run after fit, group still up)."""
    rank = strategy.global_rank
    value = torch.tensor(float(rank))
    return {
        "sum": strategy.reduce(value, "sum").item(),
        "max": strategy.reduce(value, "max").item(),
        "min": strategy.reduce(value, "min").item(),
        "mean": strategy.reduce(value, "mean").item(),
        "gathered": strategy.all_gather(torch.tensor([rank, 2.0 * rank])).tolist(),
        "broadcast": strategy.broadcast(f"from rank {rank}", src=0),
        "all": strategy.reduce_boolean_decision(rank == 0, all=True),
        "any": strategy.reduce_boolean_decision(rank == 0, all=False),
        "rank": rank,
    }


def record_threads_at_exit(out: str) -> None:
    """Registered before the trainer starts, so it runs after the runtime's own exit handlers:
    the names of this process's native threads (Linux) just before the interpreter finalizes."""

    def record() -> None:
        tasks = Path("/proc/self/task").iterdir()
        names = sorted((task / "comm").read_text().strip() for task in tasks)
        path = os.path.join(out, f"exit_threads_rank{os.environ.get('RANK', '0')}.json")
        with open(path, "w") as handle:
            json.dump(names, handle)

    atexit.register(record)


def main(argv: list[str]) -> None:
    out, opts = argv[0], parse(argv[1:])
    os.makedirs(out, exist_ok=True)
    if opts.get("exit_threads") == "1":
        record_threads_at_exit(out)
    torch.set_num_threads(1)
    L.seed_everything(int(opts.get("seed", 7)), verbose=False)
    model = Regressor(
        int(opts.get("fail_rank", -1)),
        int(opts.get("fail_step", -1)),
        opts.get("sync_log") == "1",
        opts.get("rank0_monitor") == "1",
    )
    batch = int(opts.get("batch", 4))
    loader = DataLoader(data(), batch_size=batch, shuffle=opts.get("shuffle") == "1")
    callbacks = []
    every = int(opts.get("ckpt_every", 0))
    if every:
        callbacks.append(
            L.callbacks.ModelCheckpoint(
                dirpath=os.path.join(out, "ckpt"), every_n_train_steps=every, save_top_k=-1
            )
        )
    steps = int(opts.get("stop_at", 0)) or int(opts.get("steps", 6))
    trainer = L.Trainer(
        accelerator=opts.get("accelerator", "cpu"),
        devices="auto" if opts.get("devices") == "auto" else int(opts.get("devices", 2)),
        num_nodes=int(opts.get("num_nodes", 1)),
        strategy=opts.get("strategy", "ddp"),
        max_steps=steps,
        accumulate_grad_batches=int(opts.get("accumulate", 1)),
        precision=opts.get("precision", "32-true"),
        default_root_dir=out,
        enable_progress_bar=opts.get("bar") == "1",
        enable_checkpointing=bool(every) or opts.get("default_ckpt") == "1",
        enable_model_summary=False,
        logger=opts.get("logger") == "1",
        callbacks=callbacks,
        num_sanity_val_steps=0,
    )
    trainer.fit(model, loader, ckpt_path=opts.get("resume"))
    result = {
        "world_size": trainer.world_size,
        "global_step": trainer.global_step,
        "weights": [p.detach().flatten().tolist() for p in model.parameters()],
        "losses": model.losses,
        "ranks_mean": float(trainer.callback_metrics.get("rank_mean", -1.0)),
    }
    if opts.get("collectives") == "1":
        result["collectives"] = exercise_collectives(trainer.strategy)
    if opts.get("test") == "1":
        result["test"] = trainer.test(model, DataLoader(data(16), batch_size=4), verbose=False)
    # Every rank reports to its own file; rank zero also writes result.json (the tests check it
    # is written once).
    with open(os.path.join(out, f"rank{trainer.global_rank}.json"), "w") as handle:
        json.dump(result, handle)
    if trainer.is_global_zero:
        with open(os.path.join(out, "result.json"), "a") as handle:
            handle.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
