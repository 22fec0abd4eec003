# corpus: official "Getting Started with DDP" tutorial: setup/cleanup, ToyModel, demo_basic and demo_checkpoint (rank 0 saves, dist.barrier(), map_location load), run_demo with mp.spawn
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP

# On Windows platform, the torch.distributed package only
# supports Gloo backend, FileStore and TcpStore.
# For FileStore, set init_method parameter in init_process_group
# to a local file. Example as follow:
# init_method="file:///f:/libtmp/some_file"
# dist.init_process_group(
#    "gloo",
#    rank=rank,
#    init_method=init_method,
#    world_size=world_size)
# For TcpStore, same way as on Linux.

CHECKPOINT_PATH = "ddp_tutorial_model.checkpoint"
N_STEPS = 8


def setup(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12371"

    # initialize the process group
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


class ToyModel(nn.Module):
    def __init__(self):
        super(ToyModel, self).__init__()
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(10, 5)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


def demo_basic(rank, world_size):
    print(f"Running basic DDP example on rank {rank}.")
    setup(rank, world_size)
    torch.manual_seed(0)

    # create model and move it to the process' device (CPU here)
    model = ToyModel()
    ddp_model = DDP(model)

    loss_fn = nn.MSELoss()
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)

    torch.manual_seed(100 + rank)
    for step in range(N_STEPS):
        optimizer.zero_grad()
        outputs = ddp_model(torch.randn(20, 10))
        labels = torch.randn(20, 5)
        loss = loss_fn(outputs, labels)
        loss.backward()
        optimizer.step()
        print(f"rank {rank} step {step} loss {loss.item():.4f}")

    cleanup()
    print(f"Finished running basic DDP example on rank {rank}.")


def demo_checkpoint(rank, world_size):
    print(f"Running DDP checkpoint example on rank {rank}.")
    setup(rank, world_size)
    torch.manual_seed(0)

    model = ToyModel()
    ddp_model = DDP(model)

    if rank == 0:
        # All processes should see same parameters as they all start from same
        # random parameters and gradients are synchronized in backward passes.
        # Therefore, saving it in one process is sufficient.
        torch.save(ddp_model.state_dict(), CHECKPOINT_PATH)

    # Use a barrier() to make sure that process 1 loads the model after process
    # 0 saves it.
    dist.barrier()
    # configure map_location properly
    map_location = {"cpu": "cpu"}
    ddp_model.load_state_dict(torch.load(CHECKPOINT_PATH, map_location=map_location, weights_only=True))

    loss_fn = nn.MSELoss()
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)

    torch.manual_seed(200 + rank)
    for step in range(N_STEPS):
        optimizer.zero_grad()
        outputs = ddp_model(torch.randn(20, 10))
        labels = torch.randn(20, 5)
        loss = loss_fn(outputs, labels)
        loss.backward()
        optimizer.step()
    print(f"rank {rank} final loss {loss.item():.4f}")

    # Not necessary to use a dist.barrier() to guard the file deletion below
    # as the AllReduce ops in the backward pass of DDP already served as
    # a synchronization.

    if rank == 0:
        torch.save(ddp_model.module.state_dict(), "ddp_tutorial_trained.pt")
        os.remove(CHECKPOINT_PATH)

    cleanup()
    print(f"Finished running DDP checkpoint example on rank {rank}.")


def run_demo(demo_fn, world_size):
    mp.spawn(demo_fn, args=(world_size,), nprocs=world_size, join=True)


if __name__ == "__main__":
    n_gpus = torch.cuda.device_count()
    if n_gpus >= 2:
        world_size = n_gpus
    else:
        print("Fewer than 2 GPUs, running with 2 CPU processes (gloo)", file=sys.stderr)
        world_size = 2
    run_demo(demo_basic, world_size)
    run_demo(demo_checkpoint, world_size)
