# corpus: DDP tutorial as copied into a research repo: setup(rank, world_size) / cleanup() setting MASTER_ADDR / MASTER_PORT (a free port found with a socket in __main__), argparse, `world_size = 2` constant, mp.spawn(main_worker, args=(world_size, args), nprocs=world_size), DistributedSampler + set_epoch, DDP(model, device_ids=None) on CPU, `if rank == 0:` prints, rank-0 save of model.module.state_dict(), dist.barrier(), gloo, 2 processes
import argparse
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def find_free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        return str(s.getsockname()[1])


def setup(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    # MASTER_PORT is set in __main__ so that every process gets the same one
    os.environ.setdefault("MASTER_PORT", "12355")
    # initialize the process group
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


class Net(nn.Module):
    def __init__(self, in_dim=20, hidden=32, n_classes=4):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, n_classes)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def get_dataset(n=256):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 20, generator=g)
    w = torch.randn(20, 4, generator=g)
    y = (x @ w).argmax(dim=1)
    return TensorDataset(x, y)


def main_worker(rank, world_size, args):
    print(f"Running DDP on rank {rank}.")
    setup(rank, world_size)
    torch.manual_seed(args.seed)

    dataset = get_dataset()
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=0)

    model = Net()
    ddp_model = DDP(model, device_ids=None)  # CPU: no device_ids

    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=args.lr, momentum=0.9)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        ddp_model.train()
        total_loss = 0.0
        for i, (inputs, labels) in enumerate(loader):
            optimizer.zero_grad()
            outputs = ddp_model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
            if rank == 0 and i % args.log_interval == 0:
                print("Epoch: {} [{}/{}]\tLoss: {:.6f}".format(epoch, i, len(loader), loss.item()))
        if rank == 0:
            print(f"==> epoch {epoch} avg loss {total_loss / len(loader):.4f}")

    if rank == 0:
        torch.save(ddp_model.module.state_dict(), args.save_path)
        print("saved", args.save_path)
    # make sure rank 0 has finished writing before anybody exits
    dist.barrier()
    cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="DDP example")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--log-interval", type=int, default=4)
    parser.add_argument("--save-path", type=str, default="ddp_net.pt")
    args = parser.parse_args()

    world_size = 2
    os.environ["MASTER_PORT"] = find_free_port()
    mp.spawn(main_worker, args=(world_size, args), nprocs=world_size, join=True)
