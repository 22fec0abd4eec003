# corpus: 2024 rectified-flow / flow-matching repo: @dataclass Config, a Trainer class with train_step(batch) -> dict and fit() as a step loop (while self.step < max_steps) re-creating the loader iterator on StopIteration, tqdm(total=...) with set_postfix(**logs), AdamW + LambdaLR linear warmup, clip_grad_norm_ logged, EMA via AveragedModel(get_ema_multi_avg_fn), @torch.inference_mode() evaluate every eval_every steps, Euler sampler, torch.set_float32_matmul_precision("high"), checkpoint in save()
import os
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
from torch.utils.data import DataLoader, TensorDataset
from tqdm.auto import tqdm


@dataclass
class Config:
    dim: int = 4
    n_classes: int = 3
    hidden: int = 64
    batch_size: int = 48
    max_steps: int = 40
    lr: float = 1e-3
    warmup_steps: int = 8
    ema_decay: float = 0.98
    eval_every: int = 20
    sample_steps: int = 8
    grad_clip: float = 1.0
    results_folder: str = "./results_rf"
    betas: tuple = field(default=(0.9, 0.99))


class VelocityNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.class_emb = nn.Embedding(cfg.n_classes + 1, cfg.hidden)  # last index = null class
        self.in_proj = nn.Linear(cfg.dim + 1, cfg.hidden)
        self.net = nn.Sequential(nn.SiLU(), nn.Linear(cfg.hidden, cfg.hidden), nn.SiLU(), nn.Linear(cfg.hidden, cfg.dim))

    def forward(self, x, t, y):
        h = self.in_proj(torch.cat([x, t[:, None]], dim=-1)) + self.class_emb(y)
        return self.net(h)


class RectifiedFlow(nn.Module):
    def __init__(self, model, n_classes, p_uncond=0.1):
        super().__init__()
        self.model = model
        self.n_classes = n_classes
        self.p_uncond = p_uncond

    def forward(self, x1, y):
        b = x1.shape[0]
        t = torch.rand(b, device=x1.device)
        x0 = torch.randn_like(x1)
        xt = (1 - t[:, None]) * x0 + t[:, None] * x1
        drop = torch.rand(b, device=x1.device) < self.p_uncond
        y = torch.where(drop, torch.full_like(y, self.n_classes), y)
        v = self.model(xt, t, y)
        return F.mse_loss(v, x1 - x0)

    @torch.no_grad()
    def sample(self, y, steps, dim):
        x = torch.randn(y.shape[0], dim, device=y.device)
        dt = 1.0 / steps
        for i in range(steps):
            t = torch.full((y.shape[0],), i * dt, device=y.device)
            x = x + self.model(x, t, y) * dt
        return x


class Trainer:
    def __init__(self, cfg: Config, flow: RectifiedFlow, train_ds, val_ds, device):
        self.cfg = cfg
        self.device = device
        self.flow = flow.to(device)
        self.ema = AveragedModel(self.flow, multi_avg_fn=get_ema_multi_avg_fn(cfg.ema_decay))
        self.opt = torch.optim.AdamW(self.flow.parameters(), lr=cfg.lr, betas=cfg.betas, weight_decay=0.0)
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lambda s: min(1.0, (s + 1) / cfg.warmup_steps))
        self.train_dl = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True, drop_last=True)
        self.val_dl = DataLoader(val_ds, batch_size=cfg.batch_size)
        self.step = 0
        os.makedirs(cfg.results_folder, exist_ok=True)

    def train_step(self, batch):
        x, y = (t.to(self.device) for t in batch)
        self.flow.train()
        loss = self.flow(x, y)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(self.flow.parameters(), self.cfg.grad_clip)
        self.opt.step()
        self.sched.step()
        self.ema.update_parameters(self.flow)
        return {"loss": loss.item(), "grad_norm": grad_norm.item(), "lr": self.sched.get_last_lr()[0]}

    @torch.inference_mode()
    def evaluate(self):
        ema_flow = self.ema.module
        ema_flow.eval()
        total, n = 0.0, 0
        for x, y in self.val_dl:
            x, y = x.to(self.device), y.to(self.device)
            total += ema_flow(x, y).item() * x.shape[0]
            n += x.shape[0]
        samples = ema_flow.sample(torch.arange(self.cfg.n_classes, device=self.device), self.cfg.sample_steps, self.cfg.dim)
        return total / n, samples

    def save(self, milestone):
        data = {
            "step": self.step,
            "model": self.flow.state_dict(),
            "ema": self.ema.state_dict(),
            "opt": self.opt.state_dict(),
        }
        torch.save(data, os.path.join(self.cfg.results_folder, f"model-{milestone}.pt"))

    def fit(self):
        data_iter = iter(self.train_dl)
        with tqdm(total=self.cfg.max_steps, initial=self.step) as pbar:
            while self.step < self.cfg.max_steps:
                try:
                    batch = next(data_iter)
                except StopIteration:
                    data_iter = iter(self.train_dl)
                    batch = next(data_iter)
                logs = self.train_step(batch)
                self.step += 1
                pbar.set_postfix(**{k: f"{v:.4f}" for k, v in logs.items()})
                pbar.update(1)

                if self.step % self.cfg.eval_every == 0:
                    val_loss, samples = self.evaluate()
                    tqdm.write(f"step {self.step}: val flow loss (ema) {val_loss:.4f}, sample means {samples.mean(-1).tolist()}")
                    self.save(self.step // self.cfg.eval_every)
        print("training complete")


def make_data(n, cfg, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, cfg.n_classes, (n,), generator=g)
    centers = torch.tensor([[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, -2.0, 1.0]])
    x = centers[y] + 0.3 * torch.randn(n, cfg.dim, generator=g)
    return TensorDataset(x, y)


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_float32_matmul_precision("high")
    cfg = Config()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    flow = RectifiedFlow(VelocityNet(cfg), cfg.n_classes)
    trainer = Trainer(cfg, flow, make_data(480, cfg, 1), make_data(96, cfg, 2), device)
    trainer.fit()
