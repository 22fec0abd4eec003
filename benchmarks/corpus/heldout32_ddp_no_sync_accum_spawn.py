# corpus: DDP gradient accumulation as in forum answers / blog posts: `accumulation_steps = 4`, `model.no_sync()` (via contextlib.nullcontext on the step that syncs) for the micro-batches that do not step, loss divided by accumulation_steps, optimizer.step() every N micro-batches, mp.spawn with a free port from a socket passed through args, setup/cleanup, DistributedSampler + set_epoch, per-epoch loss averaged with dist.all_reduce(op=SUM) / world_size, rank-0 prints and `torch.save(ddp_model.module.state_dict())`, gloo, 2 processes
import contextlib
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

accumulation_steps = 4
num_epochs = 2
micro_batch_size = 8


def get_free_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def setup(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


def run(rank, world_size, port):
    setup(rank, world_size, port)
    torch.manual_seed(0)  # same init everywhere (DDP broadcasts rank 0's weights anyway)

    data = torch.randn(256, 10)
    targets = torch.sin(data.sum(dim=1, keepdim=True))
    dataset = TensorDataset(data, targets)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=micro_batch_size, sampler=sampler)

    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
    ddp_model = DDP(model)
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.Adam(ddp_model.parameters(), lr=1e-3)

    for epoch in range(num_epochs):
        sampler.set_epoch(epoch)
        ddp_model.train()
        optimizer.zero_grad()
        running = 0.0
        for i, (x, y) in enumerate(loader):
            do_step = (i + 1) % accumulation_steps == 0
            # skip the gradient all-reduce on the micro-batches that do not step
            ctx = ddp_model.no_sync() if not do_step else contextlib.nullcontext()
            with ctx:
                out = ddp_model(x)
                loss = loss_fn(out, y) / accumulation_steps
                loss.backward()
            running += loss.item()
            if do_step:
                optimizer.step()
                optimizer.zero_grad()
                if rank == 0:
                    print(f"epoch {epoch} step {(i + 1) // accumulation_steps} loss {running:.5f}")
                running = 0.0

        epoch_loss = torch.tensor([loss.item() * accumulation_steps])
        dist.all_reduce(epoch_loss, op=dist.ReduceOp.SUM)
        epoch_loss /= world_size
        if rank == 0:
            print(f"epoch {epoch} done, last micro-batch loss (mean over ranks) {epoch_loss.item():.5f}")

    if rank == 0:
        torch.save(ddp_model.module.state_dict(), "accum_model.pt")
    cleanup()


def main():
    world_size = 2
    port = get_free_port()
    print(f"spawning {world_size} processes, port {port}", file=sys.stderr)
    mp.spawn(run, args=(world_size, port), nprocs=world_size, join=True)


if __name__ == "__main__":
    main()
