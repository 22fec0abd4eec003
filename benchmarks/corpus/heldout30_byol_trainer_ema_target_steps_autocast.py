# corpus: self-supervised BYOL-style Trainer class, step-based (max_steps with next(data_iter) and StopIteration re-creating the iterator), online/target networks with momentum (EMA) update of the target, warmup+cosine lr computed by a cosine_scheduler array and set per step, torch.autocast(device_type=..., enabled=use_amp) + torch.amp.GradScaler(enabled=use_amp), linear-probe eval every N steps, save_checkpoint/resume with latest.pth and best.pth
import argparse
import copy
import math
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


def parse_args():
    parser = argparse.ArgumentParser(description="BYOL (tiny)")
    parser.add_argument("--max-steps", type=int, default=40)
    parser.add_argument("--warmup-steps", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--base-lr", type=float, default=0.05)
    parser.add_argument("--final-lr", type=float, default=0.0)
    parser.add_argument("--momentum-base", type=float, default=0.99)
    parser.add_argument("--eval-every", type=int, default=20)
    parser.add_argument("--amp", action="store_true", default=True)
    parser.add_argument("--out", type=str, default="ckpt_byol")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args([])


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def cosine_scheduler(base_value, final_value, total_steps, warmup_steps=0, start_warmup_value=0):
    warmup_schedule = np.array([])
    if warmup_steps > 0:
        warmup_schedule = np.linspace(start_warmup_value, base_value, warmup_steps)
    iters = np.arange(total_steps - warmup_steps)
    schedule = final_value + 0.5 * (base_value - final_value) * (1 + np.cos(np.pi * iters / len(iters)))
    schedule = np.concatenate((warmup_schedule, schedule))
    assert len(schedule) == total_steps
    return schedule


class TwoViewDataset(Dataset):
    """vectors with 4 latent classes; a 'view' is noise + random feature dropout"""

    def __init__(self, n=256, dim=24, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.centers = torch.randn(4, dim, generator=torch.Generator().manual_seed(100)) * 2
        self.labels = torch.randint(0, 4, (n,), generator=g)
        self.x = self.centers[self.labels] + torch.randn(n, dim, generator=g)

    def __len__(self):
        return len(self.x)

    def augment(self, x):
        mask = (torch.rand_like(x) > 0.2).float()
        return x * mask + 0.3 * torch.randn_like(x)

    def __getitem__(self, i):
        x = self.x[i]
        return self.augment(x), self.augment(x), self.labels[i]


def mlp(in_dim, hidden, out):
    return nn.Sequential(nn.Linear(in_dim, hidden), nn.BatchNorm1d(hidden), nn.ReLU(inplace=True), nn.Linear(hidden, out))


class BYOL(nn.Module):
    def __init__(self, in_dim=24, feat_dim=32, proj_dim=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, feat_dim))
        self.projector = mlp(feat_dim, 64, proj_dim)
        self.predictor = mlp(proj_dim, 64, proj_dim)
        self.target_encoder = copy.deepcopy(self.encoder)
        self.target_projector = copy.deepcopy(self.projector)
        for p in list(self.target_encoder.parameters()) + list(self.target_projector.parameters()):
            p.requires_grad = False

    @torch.no_grad()
    def update_target(self, m):
        for online, target in ((self.encoder, self.target_encoder), (self.projector, self.target_projector)):
            for p_o, p_t in zip(online.parameters(), target.parameters()):
                p_t.data.mul_(m).add_((1 - m) * p_o.detach().data)

    def loss_fn(self, p, z):
        p = F.normalize(p, dim=-1)
        z = F.normalize(z, dim=-1)
        return 2 - 2 * (p * z).sum(dim=-1)

    def forward(self, x1, x2):
        p1 = self.predictor(self.projector(self.encoder(x1)))
        p2 = self.predictor(self.projector(self.encoder(x2)))
        with torch.no_grad():
            z1 = self.target_projector(self.target_encoder(x1))
            z2 = self.target_projector(self.target_encoder(x2))
        return (self.loss_fn(p1, z2) + self.loss_fn(p2, z1)).mean()


class Trainer:
    def __init__(self, args):
        self.args = args
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.use_amp = args.amp and self.device.type == "cuda"
        self.model = BYOL().to(self.device)
        params = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.SGD(params, lr=args.base_lr, momentum=0.9, weight_decay=1e-4)
        self.scaler = torch.amp.GradScaler(self.device.type, enabled=self.use_amp)
        self.lr_schedule = cosine_scheduler(args.base_lr, args.final_lr, args.max_steps, args.warmup_steps)
        self.momentum_schedule = cosine_scheduler(args.momentum_base, 1.0, args.max_steps)
        self.train_set = TwoViewDataset(256, seed=0)
        self.probe_train = TwoViewDataset(128, seed=1)
        self.probe_test = TwoViewDataset(128, seed=2)
        self.loader = DataLoader(self.train_set, batch_size=args.batch_size, shuffle=True, drop_last=True)
        self.start_step = 0
        self.best_acc = 0.0
        os.makedirs(args.out, exist_ok=True)

    def save_checkpoint(self, step, name):
        torch.save({
            "step": step,
            "state_dict": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scaler": self.scaler.state_dict(),
            "best_acc": self.best_acc,
        }, os.path.join(self.args.out, name))

    def resume(self):
        path = os.path.join(self.args.out, "latest.pth")
        if self.args.resume and os.path.exists(path):
            ckpt = torch.load(path, map_location=self.device)
            self.model.load_state_dict(ckpt["state_dict"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            self.scaler.load_state_dict(ckpt["scaler"])
            self.start_step = ckpt["step"]
            self.best_acc = ckpt["best_acc"]
            print(f"resumed at step {self.start_step}")

    @torch.no_grad()
    def embed(self, ds):
        self.model.eval()
        feats = self.model.encoder(ds.x.to(self.device))
        self.model.train()
        return feats, ds.labels.to(self.device)

    def validate(self):
        """nearest class-mean probe on frozen features"""
        ftr, ytr = self.embed(self.probe_train)
        fte, yte = self.embed(self.probe_test)
        ftr, fte = F.normalize(ftr, dim=1), F.normalize(fte, dim=1)
        means = torch.stack([ftr[ytr == c].mean(0) for c in range(4)])
        pred = (fte @ means.t()).argmax(1)
        return (pred == yte).float().mean().item()

    def train(self):
        self.resume()
        self.model.train()
        data_iter = iter(self.loader)
        for step in range(self.start_step, self.args.max_steps):
            try:
                x1, x2, _ = next(data_iter)
            except StopIteration:
                data_iter = iter(self.loader)
                x1, x2, _ = next(data_iter)
            x1, x2 = x1.to(self.device), x2.to(self.device)

            for g in self.optimizer.param_groups:
                g["lr"] = self.lr_schedule[step]

            with torch.autocast(device_type=self.device.type, enabled=self.use_amp):
                loss = self.model(x1, x2)

            self.optimizer.zero_grad(set_to_none=True)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.model.update_target(self.momentum_schedule[step])

            if step % 5 == 0:
                print(f"step {step:03d} loss {loss.item():.4f} lr {self.lr_schedule[step]:.4f} "
                      f"m {self.momentum_schedule[step]:.4f}")
            if (step + 1) % self.args.eval_every == 0:
                acc = self.validate()
                print(f"step {step + 1}: probe acc {acc:.3f}")
                self.save_checkpoint(step + 1, "latest.pth")
                if acc > self.best_acc:
                    self.best_acc = acc
                    self.save_checkpoint(step + 1, "best.pth")
        print(f"best probe acc {self.best_acc:.3f}")


def main():
    args = parse_args()
    set_seed(args.seed)
    trainer = Trainer(args)
    trainer.train()


if __name__ == "__main__":
    main()
