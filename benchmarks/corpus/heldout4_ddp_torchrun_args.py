# corpus: torchrun DDP in the references style: init_distributed_mode(args) sets args.distributed from RANK/WORLD_SIZE, local_rank = int(os.environ["LOCAL_RANK"]), DistributedSampler, model_without_ddp = model.module, dist.all_reduce of the eval metric, rank-0 torch.save
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def init_distributed_mode(args):
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        args.rank = int(os.environ["RANK"])
        args.world_size = int(os.environ["WORLD_SIZE"])
        args.gpu = int(os.environ["LOCAL_RANK"])
    else:
        print("Not using distributed mode")
        args.distributed = False
        return
    args.distributed = True
    args.dist_backend = "nccl" if torch.cuda.is_available() else "gloo"
    if torch.cuda.is_available():
        torch.cuda.set_device(args.gpu)
    print(f"| distributed init (rank {args.rank})", flush=True)
    dist.init_process_group(backend=args.dist_backend, world_size=args.world_size, rank=args.rank)
    dist.barrier()


def is_main_process():
    return not dist.is_available() or not dist.is_initialized() or dist.get_rank() == 0


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--output", default="ddp_ckpt.pt")
    return parser.parse_args()


def main(args):
    init_distributed_mode(args)
    local_rank = int(os.environ["LOCAL_RANK"]) if args.distributed else 0
    device = torch.device(f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)

    train_set = TensorDataset(torch.randn(128, 20), torch.randint(0, 3, (128,)))
    val_set = TensorDataset(torch.randn(64, 20), torch.randint(0, 3, (64,)))
    if args.distributed:
        train_sampler = DistributedSampler(train_set)
        val_sampler = DistributedSampler(val_set, shuffle=False)
    else:
        train_sampler = torch.utils.data.RandomSampler(train_set)
        val_sampler = torch.utils.data.SequentialSampler(val_set)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler)

    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 3)).to(device)
    model_without_ddp = model
    if args.distributed:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank] if torch.cuda.is_available() else None)
        model_without_ddp = model.module
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    for epoch in range(args.epochs):
        if args.distributed:
            train_sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        model.eval()
        correct = torch.zeros(1, device=device)
        total = torch.zeros(1, device=device)
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                correct += (model(x).argmax(1) == y).sum()
                total += y.numel()
        if args.distributed:
            dist.all_reduce(correct)
            dist.all_reduce(total)
        if is_main_process():
            print(f"epoch {epoch} loss {loss.item():.4f} val acc {(correct / total).item():.4f}")

    if not args.distributed or dist.get_rank() == 0:
        torch.save({"model": model_without_ddp.state_dict(), "epoch": args.epochs}, args.output)
    if args.distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main(get_args())
