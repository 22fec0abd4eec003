# corpus: research-code Trainer class holding model/optimizer/scaler/loaders, train_step(batch) returning a dict of floats, fit() calling it and evaluate() every epoch, autocast + GradScaler(enabled=args.amp) (off on CPU), history written as JSON
import argparse
import json
import os
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class SyntheticRegression(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n, 12, generator=g)
        w = torch.linspace(-1, 1, 12)
        self.y = (self.x @ w).unsqueeze(1) + 0.1 * torch.randn(n, 1, generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"x": self.x[i], "y": self.y[i]}


class MLP(nn.Module):
    def __init__(self, d_in=12, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.GELU(), nn.Dropout(0.1), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, args, model, train_loader, val_loader):
        self.args = args
        self.device = torch.device(args.device)
        self.model = model.to(self.device)
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr, weight_decay=args.wd)
        self.scheduler = torch.optim.lr_scheduler.ExponentialLR(self.optimizer, gamma=0.9)
        self.scaler = torch.cuda.amp.GradScaler(enabled=args.amp)
        self.global_step = 0
        self.epoch = 0
        self.best_val = float("inf")
        self.history = defaultdict(list)
        os.makedirs(args.save_dir, exist_ok=True)

    def _to_device(self, batch):
        return {k: v.to(self.device, non_blocking=True) for k, v in batch.items()}

    def compute_loss(self, batch):
        pred = self.model(batch["x"])
        mse = F.mse_loss(pred, batch["y"])
        l1 = F.l1_loss(pred, batch["y"])
        return mse + 0.1 * l1, {"mse": mse.item(), "l1": l1.item()}

    def train_step(self, batch):
        self.model.train()
        batch = self._to_device(batch)
        with torch.autocast(device_type=self.device.type, enabled=self.args.amp):
            loss, logs = self.compute_loss(batch)
        self.optimizer.zero_grad(set_to_none=True)
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.global_step += 1
        logs["loss"] = loss.item()
        return logs

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        totals = defaultdict(float)
        n = 0
        for batch in self.val_loader:
            batch = self._to_device(batch)
            _, logs = self.compute_loss(batch)
            bs = batch["x"].size(0)
            for k, v in logs.items():
                totals[k] += v * bs
            n += bs
        return {f"val_{k}": v / n for k, v in totals.items()}

    def save(self, name):
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "scaler": self.scaler.state_dict(), "epoch": self.epoch, "step": self.global_step},
                   os.path.join(self.args.save_dir, name))

    def fit(self):
        for epoch in range(self.args.epochs):
            self.epoch = epoch
            running = defaultdict(float)
            for i, batch in enumerate(self.train_loader):
                logs = self.train_step(batch)
                for k, v in logs.items():
                    running[k] += v
                if self.global_step % self.args.log_every == 0:
                    print(f"[ep {epoch} it {i}] step {self.global_step} loss {logs['loss']:.4f}")
            self.scheduler.step()
            train_logs = {k: v / len(self.train_loader) for k, v in running.items()}
            val_logs = self.evaluate()
            for k, v in {**train_logs, **val_logs}.items():
                self.history[k].append(v)
            print(f"epoch {epoch}: train {train_logs['loss']:.4f} val_mse {val_logs['val_mse']:.4f} "
                  f"lr {self.scheduler.get_last_lr()[0]:.5f}")
            if val_logs["val_mse"] < self.best_val:
                self.best_val = val_logs["val_mse"]
                self.save("best.pt")
        self.save("last.pt")
        return self.history


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--wd", type=float, default=0.0)
    p.add_argument("--amp", action="store_true", default=torch.cuda.is_available())
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--save-dir", default="runs_trainer")
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args()


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    train_loader = DataLoader(SyntheticRegression(512, 0), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(SyntheticRegression(128, 1), batch_size=64)
    trainer = Trainer(args, MLP(), train_loader, val_loader)
    history = trainer.fit()
    with open(os.path.join(args.save_dir, "history.json"), "w") as f:
        json.dump(history, f, indent=2)
    print("best val mse", round(trainer.best_val, 5))


if __name__ == "__main__":
    main()
