# corpus: flow matching train.py (2024 blog / torchcfm style): @dataclass config, itertools.cycle(loader) in a step loop, guarded wandb log dict, torch.compile guarded off, Euler sampler at the end
import itertools
import time
from dataclasses import dataclass, asdict

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

try:
    import wandb
    HAS_WANDB = True
except ImportError:
    HAS_WANDB = False


@dataclass
class Config:
    dim: int = 2
    hidden: int = 128
    batch_size: int = 128
    lr: float = 1e-3
    train_steps: int = 60
    log_every: int = 10
    sigma_min: float = 1e-4
    n_sample_steps: int = 20
    compile: bool = False
    use_wandb: bool = False
    seed: int = 42


cfg = Config()
torch.manual_seed(cfg.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def sample_target(n):
    # 8 gaussians on a circle
    centers = torch.tensor([[1, 0], [-1, 0], [0, 1], [0, -1],
                            [0.707, 0.707], [-0.707, 0.707], [0.707, -0.707], [-0.707, -0.707]]) * 2.0
    idx = torch.randint(0, 8, (n,))
    return centers[idx] + 0.1 * torch.randn(n, 2)


class VectorField(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(dim + 1, hidden), nn.SiLU(),
            nn.Linear(hidden, hidden), nn.SiLU(),
            nn.Linear(hidden, dim),
        )

    def forward(self, x, t):
        return self.net(torch.cat([x, t[:, None]], dim=-1))


def log(d, step):
    if cfg.use_wandb and HAS_WANDB:
        wandb.log(d, step=step)
    else:
        print(" | ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in d.items()))


model = VectorField(cfg.dim, cfg.hidden).to(device)
if cfg.compile and hasattr(torch, "compile"):
    model = torch.compile(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0)

dataset = TensorDataset(sample_target(2048))
loader = DataLoader(dataset, batch_size=cfg.batch_size, shuffle=True, drop_last=True)
data_iter = itertools.cycle(loader)

if cfg.use_wandb and HAS_WANDB:
    wandb.init(project="flow-matching", config=asdict(cfg))

model.train()
t0 = time.time()
for step in range(1, cfg.train_steps + 1):
    (x1,) = next(data_iter)
    x1 = x1.to(device)
    x0 = torch.randn_like(x1)
    t = torch.rand(x1.shape[0], device=device)
    xt = (1 - (1 - cfg.sigma_min) * t[:, None]) * x0 + t[:, None] * x1
    ut = x1 - (1 - cfg.sigma_min) * x0
    vt = model(xt, t)
    loss = ((vt - ut) ** 2).mean()

    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()

    if step % cfg.log_every == 0:
        log({"train/loss": loss.item(), "train/grad_norm": grad_norm.item(), "step": step}, step)


@torch.no_grad()
def euler_sample(model, n, steps):
    x = torch.randn(n, cfg.dim, device=device)
    dt = 1.0 / steps
    for i in range(steps):
        t = torch.full((n,), i * dt, device=device)
        x = x + model(x, t) * dt
    return x


model.eval()
samples = euler_sample(model, 512, cfg.n_sample_steps)
radius = samples.norm(dim=-1).mean().item()
print(f"mean radius of samples: {radius:.3f} (target 2.0)")
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": cfg.train_steps}, "fm_checkpoint.pt")
torch.save(samples.cpu(), "fm_samples.pt")
