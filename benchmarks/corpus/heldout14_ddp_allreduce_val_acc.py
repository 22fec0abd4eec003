# corpus: research-repo DDP classifier: mp.spawn(train_worker, nprocs=args.world_size, args=(args,)), train and val DistributedSamplers, validation accuracy and loss summed with dist.all_reduce(op=ReduceOp.SUM) then divided by world_size, rank-0 logging and best-checkpoint saving
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed import ReduceOp
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--world-size", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32, help="per-process batch size")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--port", type=str, default="12373")
    parser.add_argument("--out", type=str, default="best_ddp.pth")
    parser.add_argument("--sync-bn", action="store_true", help="SyncBatchNorm (GPU only)")
    return parser.parse_args()


class MLP(nn.Module):
    def __init__(self, in_dim=32, hidden=64, n_cls=4):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.fc2 = nn.Linear(hidden, n_cls)

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x))))


def make_data(seed):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(4, 32, generator=g) * 0.3
    y = torch.randint(0, 4, (640,), generator=g)
    x = centers[y] + torch.randn(640, 32, generator=g)
    return TensorDataset(x[:512], y[:512]), TensorDataset(x[512:], y[512:])


def reduce_mean(value, world_size):
    t = torch.tensor([value], dtype=torch.float64)
    dist.all_reduce(t, op=ReduceOp.SUM)
    return (t / world_size).item()


@torch.no_grad()
def validate(model, loader, world_size):
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    for x, y in loader:
        out = model(x)
        loss_sum += F.cross_entropy(out, y, reduction="sum").item()
        correct += (out.argmax(1) == y).sum().item()
        total += y.size(0)
    acc = reduce_mean(correct / total, world_size)
    val_loss = reduce_mean(loss_sum / total, world_size)
    return acc, val_loss


def train_worker(rank, args):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = args.port
    dist.init_process_group(backend="gloo", init_method="env://", world_size=args.world_size, rank=rank)
    torch.manual_seed(args.seed)

    train_set, val_set = make_data(args.seed)
    train_sampler = DistributedSampler(train_set, num_replicas=args.world_size, rank=rank)
    val_sampler = DistributedSampler(val_set, num_replicas=args.world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, num_workers=0)
    val_loader = DataLoader(val_set, batch_size=64, sampler=val_sampler)

    model = MLP()
    if args.sync_bn:
        model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = DistributedDataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2], gamma=0.1)

    best_acc = 0.0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        running = 0.0
        for i, (x, y) in enumerate(train_loader):
            out = model(x)
            loss = F.cross_entropy(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
        scheduler.step()
        train_loss = reduce_mean(running / len(train_loader), args.world_size)

        acc, val_loss = validate(model, val_loader, args.world_size)
        if rank == 0:
            print(
                f"epoch {epoch} train_loss {train_loss:.4f} val_loss {val_loss:.4f} "
                f"val_acc {acc:.4f} lr {scheduler.get_last_lr()[0]:.4f} ({time.time() - t0:.1f}s)"
            )
            if acc > best_acc:
                best_acc = acc
                torch.save({"epoch": epoch, "state_dict": model.module.state_dict(), "acc": acc}, args.out)
        dist.barrier()

    if rank == 0:
        print(f"best val acc {best_acc:.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    args = get_args()
    mp.spawn(train_worker, nprocs=args.world_size, args=(args,))
