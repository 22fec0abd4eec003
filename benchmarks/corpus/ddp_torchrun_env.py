# corpus: torchrun-style DDP reading RANK/LOCAL_RANK/WORLD_SIZE from the env (plain single process when absent), master_process prints
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

ddp = int(os.environ.get("RANK", -1)) != -1  # is this a ddp run?
if ddp:
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    init_process_group(backend=backend)
    ddp_rank = int(os.environ["RANK"])
    ddp_local_rank = int(os.environ["LOCAL_RANK"])
    ddp_world_size = int(os.environ["WORLD_SIZE"])
    if torch.cuda.is_available():
        device = f"cuda:{ddp_local_rank}"
        torch.cuda.set_device(device)
    else:
        device = "cpu"
    master_process = ddp_rank == 0
else:
    ddp_rank = 0
    ddp_world_size = 1
    master_process = True
    device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(1337)
epochs = 3
batch_size = 16

dataset = TensorDataset(torch.randn(128, 12), torch.randint(0, 4, (128,)))
sampler = DistributedSampler(dataset) if ddp else None
loader = DataLoader(dataset, batch_size=batch_size, shuffle=(sampler is None), sampler=sampler)

model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4)).to(device)
if ddp:
    model = DDP(model, device_ids=[ddp_local_rank] if torch.cuda.is_available() else None)
raw_model = model.module if ddp else model
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)

for epoch in range(epochs):
    if ddp:
        sampler.set_epoch(epoch)
    model.train()
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if master_process and step % 4 == 0:
            print(f"epoch {epoch} step {step}: loss {loss.item():.4f}")

if master_process:
    torch.save(raw_model.state_dict(), "torchrun_mlp.pt")
if ddp:
    destroy_process_group()
