# corpus: research-repo Engine with a step budget: for step in range(max_steps) with next(data_iter) / StopIteration re-creating the iterator, EMA of weights (ModelEMA class), eval of the EMA model every N steps, best.pth by metric, argparse parse_args([]), tqdm-free prints
import argparse
import copy
import math
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--max_steps", type=int, default=60)
    p.add_argument("--eval_every", type=int, default=15)
    p.add_argument("--bs", type=int, default=24)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--ema_decay", type=float, default=0.95)
    p.add_argument("--seed", type=int, default=3407)
    p.add_argument("--workdir", type=str, default="work_dirs/engine_ema")
    return p.parse_args([])


def set_seed(seed: int):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


class ModelEMA:
    """Exponential moving average of model weights (as in yolov5 / timm)."""

    def __init__(self, model, decay=0.999):
        self.ema = copy.deepcopy(model).eval()
        self.decay = decay
        self.updates = 0
        for p in self.ema.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        self.updates += 1
        d = self.decay * (1 - math.exp(-self.updates / 20))
        msd = model.state_dict()
        for k, v in self.ema.state_dict().items():
            if v.dtype.is_floating_point:
                v *= d
                v += (1.0 - d) * msd[k].detach()


class ConvRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(2, 16, 5, padding=2)
        self.c2 = nn.Conv1d(16, 16, 5, padding=2)
        self.bn = nn.BatchNorm1d(16)
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        h = F.silu(self.c1(x))
        h = F.silu(self.bn(self.c2(h)))
        return self.head(h.mean(-1)).squeeze(-1)


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    t = torch.linspace(0, 1, 32)
    freq = torch.rand(n, 1, generator=g) * 4 + 1
    phase = torch.rand(n, 1, generator=g) * 6.28
    sig = torch.sin(2 * math.pi * freq * t + phase)
    noise = 0.1 * torch.randn(n, 32, generator=g)
    x = torch.stack([sig + noise, noise], dim=1)
    return TensorDataset(x, freq.squeeze(1))


class Engine:
    def __init__(self, args):
        self.args = args
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model = ConvRegressor().to(self.device)
        self.ema = ModelEMA(self.model, decay=args.ema_decay)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr)
        self.train_loader = DataLoader(make_data(200, 0), batch_size=args.bs, shuffle=True, drop_last=True)
        self.val_loader = DataLoader(make_data(64, 1), batch_size=64)
        self.best_mae = float("inf")
        os.makedirs(args.workdir, exist_ok=True)

    @torch.no_grad()
    def evaluate(self, model):
        model.eval()
        err, n = 0.0, 0
        for x, y in self.val_loader:
            x, y = x.to(self.device), y.to(self.device)
            err += (model(x) - y).abs().sum().item()
            n += y.numel()
        return err / n

    def save(self, name, step):
        torch.save({
            "step": step,
            "model": self.model.state_dict(),
            "ema": self.ema.ema.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "best_mae": self.best_mae,
        }, os.path.join(self.args.workdir, name))

    def run(self):
        data_iter = iter(self.train_loader)
        running = 0.0
        for step in range(1, self.args.max_steps + 1):
            try:
                x, y = next(data_iter)
            except StopIteration:
                data_iter = iter(self.train_loader)
                x, y = next(data_iter)
            x, y = x.to(self.device), y.to(self.device)

            self.model.train()
            pred = self.model(x)
            loss = F.smooth_l1_loss(pred, y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.ema.update(self.model)
            running += loss.item()

            if step % self.args.eval_every == 0:
                mae = self.evaluate(self.model)
                ema_mae = self.evaluate(self.ema.ema)
                print(f"[step {step:4d}] loss {running / self.args.eval_every:.4f} "
                      f"val_mae {mae:.4f} ema_val_mae {ema_mae:.4f}")
                running = 0.0
                if ema_mae < self.best_mae:
                    self.best_mae = ema_mae
                    self.save("best.pth", step)
                    print(f"  new best ema mae {ema_mae:.4f}, saved")
        self.save("last.pth", self.args.max_steps)
        print(f"finished, best ema mae {self.best_mae:.4f}")


if __name__ == "__main__":
    args = get_args()
    set_seed(args.seed)
    Engine(args).run()
