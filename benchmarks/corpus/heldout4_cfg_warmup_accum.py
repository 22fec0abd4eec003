# corpus: research script driven by a config dict (cfg["lr"]), warmup + cosine as LambdaLR stepped per optimizer step, gradient accumulation (loss / accum_steps, (i + 1) % accum_steps == 0), clip_grad_norm_ whose returned norm is logged
import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

cfg = {
    "seed": 42,
    "lr": 3e-3,
    "weight_decay": 0.05,
    "batch_size": 8,
    "accum_steps": 4,
    "epochs": 3,
    "warmup_steps": 3,
    "max_grad_norm": 0.5,
    "d_model": 32,
    "log_every": 2,
}


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class TinyEncoder(nn.Module):
    def __init__(self, d_in, d_model, n_classes):
        super().__init__()
        self.proj = nn.Linear(d_in, d_model)
        self.block = nn.Sequential(nn.LayerNorm(d_model), nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))
        self.head = nn.Linear(d_model, n_classes)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        h = self.proj(x)
        h = h + self.drop(self.block(h))
        return self.head(h.mean(dim=1))


def build_param_groups(model, weight_decay):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if p.ndim < 2 or "norm" in name or name.endswith(".bias"):
            no_decay.append(p)
        else:
            decay.append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


set_seed(cfg["seed"])
device = "cuda" if torch.cuda.is_available() else "cpu"

x = torch.randn(256, 6, 10)
y = (x.sum(dim=(1, 2)) > 0).long()
train_ds = TensorDataset(x[:192], y[:192])
val_ds = TensorDataset(x[192:], y[192:])
train_dl = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, drop_last=True)
val_dl = DataLoader(val_ds, batch_size=32)

model = TinyEncoder(10, cfg["d_model"], 2).to(device)
optimizer = torch.optim.AdamW(build_param_groups(model, cfg["weight_decay"]), lr=cfg["lr"], betas=(0.9, 0.95))

steps_per_epoch = len(train_dl) // cfg["accum_steps"]
total_steps = steps_per_epoch * cfg["epochs"]


def lr_lambda(step):
    if step < cfg["warmup_steps"]:
        return (step + 1) / cfg["warmup_steps"]
    progress = (step - cfg["warmup_steps"]) / max(1, total_steps - cfg["warmup_steps"])
    return 0.5 * (1.0 + math.cos(math.pi * progress))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

global_step = 0
history = []
for epoch in range(cfg["epochs"]):
    model.train()
    optimizer.zero_grad()
    for i, (xb, yb) in enumerate(train_dl):
        xb, yb = xb.to(device), yb.to(device)
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        (loss / cfg["accum_steps"]).backward()
        if (i + 1) % cfg["accum_steps"] == 0:
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["max_grad_norm"])
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            global_step += 1
            if global_step % cfg["log_every"] == 0:
                print(
                    f"ep {epoch} step {global_step} loss {loss.item():.4f} "
                    f"grad_norm {grad_norm.item():.3f} lr {scheduler.get_last_lr()[0]:.2e}"
                )

    model.eval()
    correct, n = 0, 0
    with torch.no_grad():
        for xb, yb in val_dl:
            xb, yb = xb.to(device), yb.to(device)
            correct += (model(xb).argmax(-1) == yb).sum().item()
            n += yb.numel()
    acc = correct / n
    history.append(acc)
    print(f"epoch {epoch}: val_acc={acc:.4f}")

print("best val acc", max(history))
