# corpus: tiny DDPM notebook-turned-script — top-level code, linear beta schedule, random timesteps, EMA of weights, sampling with the EMA model
import copy
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm.auto import tqdm

torch.manual_seed(42)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

# ---------------- hyperparams ----------------
T = 50
n_epochs = 6
batch_size = 64
lr = 2e-3
ema_decay = 0.95
out_dir = 'ddpm_ckpt'
os.makedirs(out_dir, exist_ok=True)

# ---------------- data: 2d swiss-roll-ish ----------------
t_ = torch.rand(512) * 3 * math.pi
X = torch.stack([t_ * torch.cos(t_), t_ * torch.sin(t_)], dim=1) / 5.0
X = X + 0.05 * torch.randn_like(X)
loader = torch.utils.data.DataLoader(X, batch_size=batch_size, shuffle=True)

# ---------------- schedule ----------------
betas = torch.linspace(1e-4, 0.05, T)
alphas = 1. - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
sqrt_ac = torch.sqrt(alphas_cumprod).to(device)
sqrt_1mac = torch.sqrt(1. - alphas_cumprod).to(device)


def q_sample(x0, t, noise):
    return sqrt_ac[t][:, None] * x0 + sqrt_1mac[t][:, None] * noise


class SinusoidalEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, t):
        half = self.dim // 2
        freqs = torch.exp(-math.log(10000) * torch.arange(half, device=t.device) / half)
        args = t.float()[:, None] * freqs[None]
        return torch.cat([args.sin(), args.cos()], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.temb = nn.Sequential(SinusoidalEmb(16), nn.Linear(16, hidden), nn.SiLU())
        self.inp = nn.Linear(2, hidden)
        self.net = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 2))

    def forward(self, x, t):
        return self.net(self.inp(x) + self.temb(t))


model = Denoiser().to(device)
ema_model = copy.deepcopy(model).eval()
for p in ema_model.parameters():
    p.requires_grad_(False)
opt = torch.optim.Adam(model.parameters(), lr=lr)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=n_epochs * len(loader))


@torch.no_grad()
def update_ema(ema, net, decay):
    for pe, p in zip(ema.parameters(), net.parameters()):
        pe.mul_(decay).add_(p.detach(), alpha=1 - decay)


losses = []
step = 0
for epoch in range(n_epochs):
    for x0 in tqdm(loader, leave=False):
        x0 = x0.to(device)
        t = torch.randint(0, T, (x0.shape[0],), device=device)
        noise = torch.randn_like(x0)
        xt = q_sample(x0, t, noise)
        loss = F.mse_loss(model(xt, t), noise)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        update_ema(ema_model, model, ema_decay)
        losses.append(loss.item())
        step += 1
    print(f"epoch {epoch:02d} step {step} loss {sum(losses[-len(loader):]) / len(loader):.4f}")

torch.save({'epoch': n_epochs, 'model': model.state_dict(), 'ema': ema_model.state_dict(),
            'optimizer': opt.state_dict()}, f'{out_dir}/ddpm.pt')


@torch.no_grad()
def sample(net, n=128):
    x = torch.randn(n, 2, device=device)
    for i in reversed(range(T)):
        tt = torch.full((n,), i, device=device, dtype=torch.long)
        eps = net(x, tt)
        mean = (x - betas[i] / sqrt_1mac[i] * eps) / torch.sqrt(alphas[i])
        if i > 0:
            x = mean + torch.sqrt(betas[i]) * torch.randn_like(x)
        else:
            x = mean
    return x


samples = sample(ema_model)
print(f"sample mean {samples.mean(0).tolist()} std {samples.std(0).tolist()}")
torch.save(samples.cpu(), f'{out_dir}/samples.pt')
