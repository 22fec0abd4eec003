# corpus: DDP with gradient accumulation: DistributedSampler(shuffle=True, seed=args.seed, drop_last=True), model.no_sync() on the non-final micro steps (contextlib.nullcontext on the last), loss / accum_steps, global batch = batch * accum * world_size, rank-0 prints
import argparse
import contextlib
import math
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class SeqData(Dataset):
    """Random token sequences; the target is the sum of the tokens modulo n_cls."""

    def __init__(self, n, seq_len=12, vocab=50, n_cls=5, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.tokens = torch.randint(0, vocab, (n, seq_len), generator=g)
        self.labels = self.tokens.sum(1) % n_cls

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, idx):
        return {"input_ids": self.tokens[idx], "label": self.labels[idx]}


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab=50, dim=32, n_cls=5):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, n_cls))

    def forward(self, input_ids):
        return self.head(self.emb(input_ids).mean(1))


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--micro_batch_size", type=int, default=8)
    p.add_argument("--grad_accum_steps", type=int, default=4)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--max_grad_norm", type=float, default=1.0)
    p.add_argument("--nprocs", type=int, default=2)
    return p.parse_args()


def worker(rank, world_size, args):
    os.environ.setdefault("MASTER_ADDR", "localhost")
    os.environ.setdefault("MASTER_PORT", "12374")
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    is_main = rank == 0
    torch.manual_seed(args.seed)

    dataset = SeqData(600, seed=args.seed)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=args.seed, drop_last=True)
    loader = DataLoader(dataset, batch_size=args.micro_batch_size, sampler=sampler, drop_last=True)

    model = DDP(BagOfEmbeddings())
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    criterion = nn.CrossEntropyLoss()

    global_batch = args.micro_batch_size * args.grad_accum_steps * world_size
    updates_per_epoch = math.floor(len(loader) / args.grad_accum_steps)
    if is_main:
        print(f"global batch size {global_batch}, {updates_per_epoch} updates per epoch")

    step = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        accum_loss = 0.0
        for micro_step, batch in enumerate(loader):
            is_last_micro = (micro_step + 1) % args.grad_accum_steps == 0
            ctx = contextlib.nullcontext() if is_last_micro else model.no_sync()
            with ctx:
                logits = model(batch["input_ids"])
                loss = criterion(logits, batch["label"]) / args.grad_accum_steps
                loss.backward()
            accum_loss += loss.item()
            if is_last_micro:
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                step += 1
                if is_main and step % 5 == 0:
                    print(f"epoch {epoch} step {step} loss {accum_loss:.4f} grad_norm {grad_norm:.3f}")
                accum_loss = 0.0

    if is_main:
        torch.save(model.module.state_dict(), "bag_of_embeddings.pt")
        print("saved bag_of_embeddings.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    args = parse_args()
    mp.spawn(worker, args=(args.nprocs, args), nprocs=args.nprocs, join=True)
