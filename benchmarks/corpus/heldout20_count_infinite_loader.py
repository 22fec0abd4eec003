# corpus: research LM script: infinite_loader() generator (while True: for batch in loader: yield batch), for step in itertools.count(1) with a total_steps break, warmup+inverse-sqrt lr written each step, eval() helper every eval_every, metrics.jsonl, final checkpoint
import itertools
import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

CONFIG = {
    "vocab_size": 50,
    "seq_len": 24,
    "d_model": 32,
    "n_layers": 2,
    "batch_size": 16,
    "lr": 1e-3,
    "warmup_steps": 10,
    "total_steps": 60,
    "eval_every": 20,
    "log_every": 10,
    "out_dir": "runs/lm_count",
    "seed": 0,
}


class RandomTokenWindows(Dataset):
    def __init__(self, n_tokens, seq_len, seed):
        g = torch.Generator().manual_seed(seed)
        # a weakly structured stream: token i is followed by (i * 3 + noise) % vocab
        base = torch.randint(0, CONFIG["vocab_size"], (n_tokens,), generator=g)
        self.stream = (base + torch.arange(n_tokens) % 7) % CONFIG["vocab_size"]
        self.seq_len = seq_len

    def __len__(self):
        return (len(self.stream) - 1) // self.seq_len

    def __getitem__(self, i):
        s = i * self.seq_len
        chunk = self.stream[s: s + self.seq_len + 1]
        return chunk[:-1], chunk[1:]


class LSTMLM(nn.Module):
    def __init__(self, vocab_size, d_model, n_layers):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, d_model)
        self.lstm = nn.LSTM(d_model, d_model, num_layers=n_layers, batch_first=True, dropout=0.1)
        self.drop = nn.Dropout(0.1)
        self.proj = nn.Linear(d_model, vocab_size)

    def forward(self, x):
        h, _ = self.lstm(self.drop(self.emb(x)))
        return self.proj(self.drop(h))


def infinite_loader(loader):
    while True:
        for batch in loader:
            yield batch


def lr_at(step, cfg):
    if step <= cfg["warmup_steps"]:
        return cfg["lr"] * step / cfg["warmup_steps"]
    return cfg["lr"] * math.sqrt(cfg["warmup_steps"] / step)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    tot, n = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        tot += F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), reduction="sum").item()
        n += y.numel()
    model.train()
    return tot / n


def main(cfg):
    torch.manual_seed(cfg["seed"])
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    os.makedirs(cfg["out_dir"], exist_ok=True)

    train_ds = RandomTokenWindows(6000, cfg["seq_len"], seed=1)
    val_ds = RandomTokenWindows(1200, cfg["seq_len"], seed=2)
    train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=64)

    model = LSTMLM(cfg["vocab_size"], cfg["d_model"], cfg["n_layers"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"], betas=(0.9, 0.98))

    batches = infinite_loader(train_loader)
    metrics_f = open(os.path.join(cfg["out_dir"], "metrics.jsonl"), "w")
    running = 0.0
    model.train()
    for step in itertools.count(1):
        if step > cfg["total_steps"]:
            break
        x, y = next(batches)
        x, y = x.to(device), y.to(device)

        lr = lr_at(step, cfg)
        for g in optimizer.param_groups:
            g["lr"] = lr

        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        gnorm = nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        optimizer.step()
        running += loss.item()

        if step % cfg["log_every"] == 0:
            avg = running / cfg["log_every"]
            running = 0.0
            print(f"step {step:4d} | lr {lr:.2e} | loss {avg:.4f} | ppl {math.exp(avg):8.2f} | gnorm {gnorm:.3f}")
            metrics_f.write(json.dumps({"step": step, "train_loss": avg, "lr": lr}) + "\n")
        if step % cfg["eval_every"] == 0:
            val_loss = evaluate(model, val_loader, device)
            print(f"== step {step} | val loss {val_loss:.4f} | val ppl {math.exp(val_loss):.2f}")
            metrics_f.write(json.dumps({"step": step, "val_loss": val_loss}) + "\n")

    metrics_f.close()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "config": cfg},
               os.path.join(cfg["out_dir"], "final.pt"))
    print("done")


if __name__ == "__main__":
    main(CONFIG)
