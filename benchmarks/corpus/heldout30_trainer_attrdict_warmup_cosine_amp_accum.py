# corpus: research-repo Trainer class: EasyDict-like AttrDict config, set_seed, logging.basicConfig, build_model/build_optimizer/build_scheduler factories, warmup+cosine LambdaLR per iteration, autocast+GradScaler(enabled=use_amp) off on CPU, grad accumulation, save_checkpoint/resume, best.pth
import logging
import math
import os
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

logging.basicConfig(
    format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
    datefmt="%m/%d/%Y %H:%M:%S",
    level=logging.INFO,
)
logger = logging.getLogger(__name__)


class AttrDict(dict):
    """dict with attribute access, like easydict"""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for k, v in self.items():
            if isinstance(v, dict):
                self[k] = AttrDict(v)

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name)

    def __setattr__(self, name, value):
        self[name] = value


cfg = AttrDict({
    "seed": 42,
    "output_dir": "outputs/exp1",
    "data": {"n_train": 320, "n_val": 96, "in_dim": 20, "num_classes": 4},
    "model": {"name": "mlp", "hidden": 64, "dropout": 0.1},
    "optim": {"name": "adamw", "lr": 3e-3, "weight_decay": 0.05, "betas": (0.9, 0.999)},
    "sched": {"warmup_steps": 6, "min_lr_ratio": 0.1},
    "train": {"epochs": 4, "batch_size": 16, "grad_accum": 2, "clip": 1.0, "amp": True, "log_every": 5},
})


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


class SyntheticDataset(Dataset):
    def __init__(self, n, in_dim, num_classes, seed):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n, in_dim, generator=g)
        w = torch.randn(in_dim, num_classes, generator=torch.Generator().manual_seed(1234))
        self.y = (self.x @ w + 0.3 * torch.randn(n, num_classes, generator=g)).argmax(-1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return {"inputs": self.x[idx], "labels": self.y[idx]}


class MLP(nn.Module):
    def __init__(self, in_dim, hidden, num_classes, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.GELU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.GELU(),
            nn.Linear(hidden, num_classes),
        )

    def forward(self, x):
        return self.net(x)


def build_model(cfg):
    if cfg.model.name == "mlp":
        return MLP(cfg.data.in_dim, cfg.model.hidden, cfg.data.num_classes, cfg.model.dropout)
    raise ValueError(f"unknown model {cfg.model.name}")


def build_optimizer(cfg, model):
    decay, no_decay = [], []
    for n, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if p.ndim < 2 or n.endswith(".bias"):
            no_decay.append(p)
        else:
            decay.append(p)
    groups = [
        {"params": decay, "weight_decay": cfg.optim.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    if cfg.optim.name == "adamw":
        return torch.optim.AdamW(groups, lr=cfg.optim.lr, betas=cfg.optim.betas)
    elif cfg.optim.name == "sgd":
        return torch.optim.SGD(groups, lr=cfg.optim.lr, momentum=0.9)
    raise ValueError(cfg.optim.name)


def build_scheduler(cfg, optimizer, num_training_steps):
    warmup = cfg.sched.warmup_steps
    min_ratio = cfg.sched.min_lr_ratio

    def lr_lambda(step):
        if step < warmup:
            return float(step + 1) / float(max(1, warmup))
        progress = (step - warmup) / float(max(1, num_training_steps - warmup))
        return min_ratio + (1 - min_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


class Trainer:
    def __init__(self, cfg, model, train_loader, val_loader):
        self.cfg = cfg
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device)
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = build_optimizer(cfg, self.model)
        steps_per_epoch = math.ceil(len(train_loader) / cfg.train.grad_accum)
        self.total_steps = steps_per_epoch * cfg.train.epochs
        self.scheduler = build_scheduler(cfg, self.optimizer, self.total_steps)
        self.use_amp = cfg.train.amp and self.device.type == "cuda"
        self.scaler = torch.cuda.amp.GradScaler(enabled=self.use_amp)
        self.start_epoch = 0
        self.global_step = 0
        self.best_acc = 0.0
        os.makedirs(cfg.output_dir, exist_ok=True)

    def train_epoch(self, epoch):
        self.model.train()
        total_loss, n = 0.0, 0
        self.optimizer.zero_grad(set_to_none=True)
        for it, batch in enumerate(self.train_loader):
            x = batch["inputs"].to(self.device)
            y = batch["labels"].to(self.device)
            with torch.autocast(device_type=self.device.type, dtype=torch.float16, enabled=self.use_amp):
                logits = self.model(x)
                loss = self.criterion(logits, y)
                loss = loss / self.cfg.train.grad_accum
            self.scaler.scale(loss).backward()
            total_loss += loss.item() * self.cfg.train.grad_accum * x.size(0)
            n += x.size(0)

            if (it + 1) % self.cfg.train.grad_accum == 0 or (it + 1) == len(self.train_loader):
                self.scaler.unscale_(self.optimizer)
                grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.train.clip)
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad(set_to_none=True)
                self.scheduler.step()
                self.global_step += 1
                if self.global_step % self.cfg.train.log_every == 0:
                    logger.info(
                        "epoch %d step %d/%d loss %.4f grad_norm %.3f lr %.2e",
                        epoch, self.global_step, self.total_steps, total_loss / n,
                        grad_norm.item(), self.scheduler.get_last_lr()[0],
                    )
        return total_loss / n

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        correct, total, loss_sum = 0, 0, 0.0
        for batch in self.val_loader:
            x = batch["inputs"].to(self.device)
            y = batch["labels"].to(self.device)
            logits = self.model(x)
            loss_sum += self.criterion(logits, y).item() * x.size(0)
            correct += (logits.argmax(-1) == y).sum().item()
            total += x.size(0)
        return {"val_loss": loss_sum / total, "val_acc": correct / total}

    def save_checkpoint(self, epoch, is_best=False):
        state = {
            "epoch": epoch,
            "global_step": self.global_step,
            "state_dict": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "scaler": self.scaler.state_dict(),
            "best_acc": self.best_acc,
            "cfg": dict(self.cfg),
        }
        path = os.path.join(self.cfg.output_dir, "last.pth")
        torch.save(state, path)
        if is_best:
            torch.save(state, os.path.join(self.cfg.output_dir, "best.pth"))
            logger.info("saved new best (acc=%.4f) at epoch %d", self.best_acc, epoch)

    def resume(self, path):
        if not os.path.isfile(path):
            logger.info("no checkpoint at %s, training from scratch", path)
            return
        ckpt = torch.load(path, map_location=self.device)
        self.model.load_state_dict(ckpt["state_dict"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        self.scheduler.load_state_dict(ckpt["scheduler"])
        self.scaler.load_state_dict(ckpt["scaler"])
        self.start_epoch = ckpt["epoch"] + 1
        self.global_step = ckpt["global_step"]
        self.best_acc = ckpt["best_acc"]
        logger.info("resumed from %s (epoch %d)", path, ckpt["epoch"])

    def fit(self):
        for epoch in range(self.start_epoch, self.cfg.train.epochs):
            train_loss = self.train_epoch(epoch)
            metrics = self.validate()
            is_best = metrics["val_acc"] > self.best_acc
            if is_best:
                self.best_acc = metrics["val_acc"]
            logger.info(
                "Epoch %d | train_loss %.4f | val_loss %.4f | val_acc %.4f",
                epoch, train_loss, metrics["val_loss"], metrics["val_acc"],
            )
            self.save_checkpoint(epoch, is_best)
        logger.info("done. best val_acc %.4f", self.best_acc)


def main():
    set_seed(cfg.seed)
    train_ds = SyntheticDataset(cfg.data.n_train, cfg.data.in_dim, cfg.data.num_classes, seed=0)
    val_ds = SyntheticDataset(cfg.data.n_val, cfg.data.in_dim, cfg.data.num_classes, seed=1)
    train_loader = DataLoader(train_ds, batch_size=cfg.train.batch_size, shuffle=True, drop_last=False)
    val_loader = DataLoader(val_ds, batch_size=64)
    model = build_model(cfg)
    logger.info("model params: %d", sum(p.numel() for p in model.parameters()))
    trainer = Trainer(cfg, model, train_loader, val_loader)
    trainer.resume(os.path.join(cfg.output_dir, "resume_from.pth"))
    trainer.fit()


if __name__ == "__main__":
    main()
