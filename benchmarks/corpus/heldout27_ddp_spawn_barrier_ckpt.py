# corpus: PyTorch DDP tutorial stitched together (ddp_tutorial + "Writing Distributed Applications"): setup(rank, world_size) with MASTER_ADDR/MASTER_PORT env + init_process_group("gloo"), cleanup(), ToyModel, DDP(model), DistributedSampler(num_replicas, rank, shuffle=True, seed=42), sampler.set_epoch(epoch), `if rank == 0:` prints every few steps, CHECKPOINT_PATH = tempfile-free "model.checkpoint" saved by rank 0 then `dist.barrier()` and map_location load on every rank, run_demo(demo_fn, world_size) via mp.spawn(join=True), 2 processes on CPU
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

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

CHECKPOINT_PATH = "model.checkpoint"
EPOCHS = 4


def setup(rank, world_size):
    os.environ['MASTER_ADDR'] = 'localhost'
    os.environ['MASTER_PORT'] = '12371'

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


def make_dataset():
    g = torch.Generator().manual_seed(1234)
    x = torch.randn(256, 10, generator=g)
    w = torch.randn(10, 5, generator=g)
    y = x @ w + 0.1 * torch.randn(256, 5, generator=g)
    return TensorDataset(x, y)


def demo_checkpoint(rank, world_size):
    print(f"Running DDP checkpoint example on rank {rank}.")
    setup(rank, world_size)

    torch.manual_seed(0)
    # create model and move it to GPU with id rank  (CPU here: no device_ids)
    model = ToyModel()
    ddp_model = DDP(model)

    dataset = make_dataset()
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=42)
    loader = DataLoader(dataset, batch_size=16, sampler=sampler)

    loss_fn = nn.MSELoss()
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.01)

    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        ddp_model.train()
        running = 0.0
        for step, (inputs, labels) in enumerate(loader):
            optimizer.zero_grad()
            outputs = ddp_model(inputs)
            loss = loss_fn(outputs, labels)
            loss.backward()
            optimizer.step()
            running += loss.item()
            if rank == 0 and step % 4 == 0:
                print(f"[rank {rank}] epoch {epoch} step {step} loss {loss.item():.5f}")
        if rank == 0:
            print(f"epoch {epoch} done, mean loss on rank 0: {running / len(loader):.5f}")

        if rank == 0:
            # All processes should see same parameters as they all start from same
            # random parameters and gradients are synchronized in backward passes.
            # Therefore, saving it in one process is sufficient.
            torch.save(ddp_model.state_dict(), CHECKPOINT_PATH)

        # Use a barrier() to make sure that process 1 loads the model after process
        # 0 saves it.
        dist.barrier()

    # configure map_location properly
    map_location = {'cuda:%d' % 0: 'cuda:%d' % rank} if torch.cuda.is_available() else 'cpu'
    ddp_model.load_state_dict(
        torch.load(CHECKPOINT_PATH, map_location=map_location, weights_only=True))

    with torch.no_grad():
        x, y = dataset.tensors
        full = loss_fn(ddp_model(x), y).item()
    if rank == 0:
        print(f"reloaded checkpoint, full-data loss {full:.5f}")

    # Not necessary to use a dist.barrier() to guard the file deletion below
    # as the AllReduce ops in the backward pass of DDP already served as
    # a synchronization.

    # (the tutorial removes CHECKPOINT_PATH here; we keep it)
    cleanup()
    print(f"Finished running DDP checkpoint example on rank {rank}.")


def run_demo(demo_fn, world_size):
    mp.spawn(demo_fn,
             args=(world_size,),
             nprocs=world_size,
             join=True)


if __name__ == "__main__":
    n_gpus = torch.cuda.device_count()
    world_size = 2  # assert n_gpus >= 2 in the tutorial; 2 CPU processes here
    print(f"world_size = {world_size} (gpus: {n_gpus})")
    run_demo(demo_checkpoint, world_size)
