# corpus: torchrun-style research script: LOCAL_RANK / RANK / WORLD_SIZE read from the environment with a single-process fallback when absent (so `python train.py` works; `torchrun --nproc_per_node=2 train.py` for 2 processes), init_process_group("gloo") only when distributed, DistributedSampler else a shuffled loader, `sampler.set_epoch(epoch)` behind `if distributed`, tqdm only on rank 0, dist.all_reduce of the epoch loss for logging, config dict, rank-0 checkpoint of the unwrapped model
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm

config = {
    "epochs": 3,
    "batch_size": 32,
    "lr": 3e-3,
    "weight_decay": 1e-4,
    "seed": 1234,
    "ckpt": "checkpoint_last.pt",
}


def get_dist_info():
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        rank = int(os.environ["RANK"])
        world_size = int(os.environ["WORLD_SIZE"])
        local_rank = int(os.environ.get("LOCAL_RANK", 0))
        return True, rank, world_size, local_rank
    return False, 0, 1, 0


distributed, rank, world_size, local_rank = get_dist_info()
if distributed:
    dist.init_process_group(backend="gloo")
device = torch.device("cpu")
is_master = rank == 0

torch.manual_seed(config["seed"])

# toy regression problem
X = torch.randn(512, 16)
true_w = torch.randn(16, 1)
Y = X @ true_w + 0.1 * torch.randn(512, 1)
train_ds = TensorDataset(X, Y)

if distributed:
    train_sampler = DistributedSampler(train_ds)
    train_loader = DataLoader(train_ds, batch_size=config["batch_size"], sampler=train_sampler)
else:
    train_sampler = None
    train_loader = DataLoader(train_ds, batch_size=config["batch_size"], shuffle=True)

model = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 1)).to(device)
if distributed:
    model = DDP(model)

optimizer = torch.optim.AdamW(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])
loss_fn = nn.MSELoss()

if is_master:
    n_params = sum(p.numel() for p in model.parameters())
    print(f"world_size={world_size} distributed={distributed} params={n_params}")

start = time.time()
for epoch in range(config["epochs"]):
    if distributed:
        train_sampler.set_epoch(epoch)
    model.train()
    epoch_loss = torch.zeros(1, device=device)
    n_batches = 0
    pbar = tqdm(train_loader, desc=f"epoch {epoch}", disable=not is_master)
    for xb, yb in pbar:
        xb, yb = xb.to(device), yb.to(device)
        pred = model(xb)
        loss = loss_fn(pred, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.detach()
        n_batches += 1
        if is_master:
            pbar.set_postfix(loss=f"{loss.item():.4f}")
    epoch_loss /= n_batches
    if distributed:
        dist.all_reduce(epoch_loss, op=dist.ReduceOp.SUM)
        epoch_loss /= world_size
    if is_master:
        print(f"epoch {epoch}: train_mse={epoch_loss.item():.5f}")

if is_master:
    raw_model = model.module if distributed else model
    torch.save({"model": raw_model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": config["epochs"]}, config["ckpt"])
    print(f"done in {time.time() - start:.1f}s, saved {config['ckpt']}")

if distributed:
    dist.barrier()
    dist.destroy_process_group()
