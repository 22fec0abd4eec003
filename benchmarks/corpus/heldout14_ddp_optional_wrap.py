# corpus: one script for 1 or N processes: `if world_size > 1:` init_process_group + DDP wrap + DistributedSampler (else a shuffled loader), `unwrap = model.module if hasattr(model, "module") else model`, eval and save on rank 0 only, mp.spawn only when world_size > 1
import os
import random

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

CONFIG = {
    "world_size": 2,
    "epochs": 3,
    "batch_size": 25,
    "lr": 1e-3,
    "seed": 0,
    "save_path": "regressor.pt",
}


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def build_datasets():
    rng = np.random.default_rng(123)
    X = rng.normal(size=(500, 8)).astype(np.float32)
    w = rng.normal(size=(8, 1)).astype(np.float32)
    y = np.tanh(X @ w) + 0.05 * rng.normal(size=(500, 1)).astype(np.float32)
    X, y = torch.from_numpy(X), torch.from_numpy(y)
    return TensorDataset(X[:400], y[:400]), TensorDataset(X[400:], y[400:])


def evaluate(model, dataset):
    model.eval()
    with torch.no_grad():
        X, y = dataset.tensors
        mse = nn.functional.mse_loss(model(X), y).item()
    model.train()
    return mse


def run(rank, world_size, cfg):
    if world_size > 1:
        os.environ["MASTER_ADDR"] = "localhost"
        os.environ["MASTER_PORT"] = "12375"
        dist.init_process_group("gloo", rank=rank, world_size=world_size)
    set_seed(cfg["seed"])

    train_ds, val_ds = build_datasets()
    if world_size > 1:
        sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank, shuffle=True)
        train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], sampler=sampler)
    else:
        sampler = None
        train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)

    model = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 1))
    if world_size > 1:
        model = DDP(model)
    unwrap = model.module if hasattr(model, "module") else model
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    loss_fn = nn.MSELoss()

    losses = []
    for epoch in range(1, cfg["epochs"] + 1):
        if sampler is not None:
            sampler.set_epoch(epoch)
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        if rank == 0:
            val_mse = evaluate(unwrap, val_ds)
            print(f"[rank {rank}] epoch {epoch}: train {np.mean(losses[-len(train_loader):]):.4f}  val mse {val_mse:.4f}")

    if rank == 0:
        torch.save(unwrap.state_dict(), cfg["save_path"])
        np.save("train_losses_rank0.npy", np.array(losses))
        print(f"saved {cfg['save_path']} ({len(losses)} steps on rank 0)")

    if world_size > 1:
        dist.destroy_process_group()


def main():
    world_size = CONFIG["world_size"]
    if world_size > 1:
        mp.spawn(run, args=(world_size, CONFIG), nprocs=world_size, join=True)
    else:
        run(0, 1, CONFIG)


if __name__ == "__main__":
    main()
