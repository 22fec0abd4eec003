# corpus: research-code DDP with a model whose auxiliary head is only used after a warmup epoch, so DDP(model, find_unused_parameters=True); mp.spawn(main_worker, args=(world_size, cfg), nprocs=world_size) with `world_size = 2`, MASTER_PORT = 29500 + an offset from the parent pid, setup/cleanup, torch.cuda.amp.GradScaler / autocast with enabled=False on CPU, DistributedSampler + set_epoch, `if rank == 0:` logging every N iterations, rank-0 checkpoint dict with model.module.state_dict()
import os
import random

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

cfg = dict(
    epochs=3,
    aux_start_epoch=1,
    aux_weight=0.4,
    batch_size=16,
    lr=5e-3,
    print_freq=5,
    seed=3407,  # "torch.manual_seed(3407) is all you need"
    work_dir=".",
)


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def setup(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


class RandomSeqDataset(Dataset):
    def __init__(self, n=192, length=10, dim=8):
        g = torch.Generator().manual_seed(11)
        self.x = torch.randn(n, length, dim, generator=g)
        self.y = (self.x.mean(dim=(1, 2)) > 0).long()
        self.aux = self.x[:, -1, :2].sum(dim=1, keepdim=True)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx], self.aux[idx]


class GRUClassifier(nn.Module):
    def __init__(self, dim=8, hidden=24):
        super().__init__()
        self.gru = nn.GRU(dim, hidden, batch_first=True)
        self.cls_head = nn.Linear(hidden, 2)
        self.aux_head = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x, with_aux=False):
        _, h = self.gru(x)
        h = h[-1]
        logits = self.cls_head(h)
        if with_aux:
            return logits, self.aux_head(h)
        return logits


def main_worker(rank, world_size, cfg, port):
    setup(rank, world_size, port)
    set_seed(cfg["seed"])

    dataset = RandomSeqDataset()
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=cfg["seed"])
    loader = DataLoader(dataset, batch_size=cfg["batch_size"], sampler=sampler, drop_last=True)

    model = GRUClassifier()
    # aux_head gets no gradient during the warmup epoch
    model = DDP(model, device_ids=None, find_unused_parameters=True)

    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
    ce = nn.CrossEntropyLoss()
    mse = nn.MSELoss()

    global_step = 0
    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        model.train()
        use_aux = epoch >= cfg["aux_start_epoch"]
        for it, (x, y, aux_t) in enumerate(loader):
            with torch.cuda.amp.autocast(enabled=torch.cuda.is_available()):
                if use_aux:
                    logits, aux_pred = model(x, with_aux=True)
                    loss = ce(logits, y) + cfg["aux_weight"] * mse(aux_pred, aux_t)
                else:
                    logits = model(x)
                    loss = ce(logits, y)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            global_step += 1
            if rank == 0 and it % cfg["print_freq"] == 0:
                print(f"epoch {epoch} iter {it}/{len(loader)} step {global_step} loss {loss.item():.4f} aux={use_aux}")

    if rank == 0:
        ckpt = {
            "epoch": cfg["epochs"],
            "global_step": global_step,
            "state_dict": model.module.state_dict(),
            "optimizer": optimizer.state_dict(),
        }
        torch.save(ckpt, os.path.join(cfg["work_dir"], "latest.pth"))
        print("checkpoint written")
    cleanup()


if __name__ == "__main__":
    world_size = 2
    port = 29500 + os.getpid() % 2000
    mp.spawn(main_worker, args=(world_size, cfg, port), nprocs=world_size, join=True)
