# corpus: research-repo DDP classifier: `--world-size` (default 2) and `--port` (29500 + pid offset) argparse, mp.spawn(train, args=(args.world_size, args), nprocs=args.world_size), setup()/cleanup(), train + val DistributedSampler (val shuffle=False), per-epoch `dist.all_reduce` of a [loss_sum, correct, total] tensor for train and val logging, rank-0 prints through a `log()` helper, best-acc checkpoint of model.module on rank 0 + dist.barrier(), StepLR, gloo on CPU
import argparse
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--world-size", type=int, default=2, help="number of processes")
    p.add_argument("--port", type=int, default=29500 + os.getpid() % 1000)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--bs", type=int, default=24)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--out", default="best_model.pth")
    return p.parse_args()


def setup(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group(backend="gloo", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


def log(rank, *msg):
    if rank == 0:
        print(*msg, flush=True)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(12, 48),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Linear(48, 3),
        )

    def forward(self, x):
        return self.net(x)


def make_data():
    # same data on every rank (fixed generator); the sampler splits it
    g = torch.Generator().manual_seed(7)
    x = torch.randn(480, 12, generator=g)
    y = (x[:, 0] + x[:, 1] * x[:, 2] > 0).long() + (x[:, 3] > 1).long()
    return TensorDataset(x[:384], y[:384]), TensorDataset(x[384:], y[384:])


def train(rank, world_size, args):
    setup(rank, world_size, args.port)
    torch.manual_seed(0)

    train_set, val_set = make_data()
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank)
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.bs, sampler=train_sampler)
    val_loader = DataLoader(val_set, batch_size=args.bs, sampler=val_sampler)

    model = MLP()
    model = DDP(model)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

    best_acc = 0.0
    for epoch in range(1, args.epochs + 1):
        train_sampler.set_epoch(epoch)
        model.train()
        stats = torch.zeros(3)  # loss_sum, correct, total
        for x, y in train_loader:
            optimizer.zero_grad()
            out = model(x)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
            stats[0] += loss.item() * x.size(0)
            stats[1] += (out.argmax(1) == y).sum().item()
            stats[2] += x.size(0)
        scheduler.step()
        dist.all_reduce(stats, op=dist.ReduceOp.SUM)
        train_loss, train_acc = stats[0] / stats[2], stats[1] / stats[2]

        model.eval()
        vstats = torch.zeros(3)
        with torch.no_grad():
            for x, y in val_loader:
                out = model(x)
                vstats[0] += criterion(out, y).item() * x.size(0)
                vstats[1] += (out.argmax(1) == y).sum().item()
                vstats[2] += x.size(0)
        dist.all_reduce(vstats, op=dist.ReduceOp.SUM)
        val_loss, val_acc = vstats[0] / vstats[2], vstats[1] / vstats[2]

        log(rank, f"[{epoch}/{args.epochs}] lr {scheduler.get_last_lr()[0]:.4f} "
                  f"train loss {train_loss:.4f} acc {train_acc:.3f} | val loss {val_loss:.4f} acc {val_acc:.3f}")

        if val_acc > best_acc:
            best_acc = val_acc.item()
            if rank == 0:
                torch.save(model.module.state_dict(), args.out)
                print(f"  new best {best_acc:.3f}, saved to {args.out}")
        dist.barrier()

    log(rank, f"best val acc: {best_acc:.3f}")
    cleanup()


if __name__ == "__main__":
    args = parse_args()
    mp.spawn(train, args=(args.world_size, args), nprocs=args.world_size, join=True)
