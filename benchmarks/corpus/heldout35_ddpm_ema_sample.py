# corpus: DDPM train.py (lucidrains/blog style): schedule buffers on a GaussianDiffusion module, t = torch.randint, EMA helper after each step, sample every N steps under no_grad, argparse, tqdm, ckpt dict
import argparse
import copy
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

try:
    from tqdm import tqdm
except ImportError:  # pragma: no cover
    def tqdm(x, **kwargs):
        return x


def get_args():
    p = argparse.ArgumentParser(description="tiny DDPM on 2D points")
    p.add_argument("--timesteps", type=int, default=50)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--ema_decay", type=float, default=0.995)
    p.add_argument("--sample_every", type=int, default=10)
    p.add_argument("--out_dir", type=str, default="ddpm_out")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


def make_swiss_roll(n):
    t = 1.5 * math.pi * (1 + 2 * torch.rand(n))
    x = torch.stack([t * torch.cos(t), t * torch.sin(t)], dim=1) / 10.0
    return x + 0.05 * torch.randn_like(x)


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, t):
        half = self.dim // 2
        emb = math.log(10000) / (half - 1)
        emb = torch.exp(torch.arange(half, device=t.device) * -emb)
        emb = t.float()[:, None] * emb[None, :]
        return torch.cat([emb.sin(), emb.cos()], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, dim=2, hidden=64, temb=16):
        super().__init__()
        self.time_mlp = nn.Sequential(SinusoidalPosEmb(temb), nn.Linear(temb, hidden), nn.GELU())
        self.inp = nn.Linear(dim, hidden)
        self.net = nn.Sequential(nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x, t):
        return self.net(self.inp(x) + self.time_mlp(t))


def linear_beta_schedule(timesteps):
    scale = 1000 / timesteps
    return torch.linspace(scale * 1e-4, scale * 0.02, timesteps)


def extract(a, t, x_shape):
    b = t.shape[0]
    out = a.gather(-1, t)
    return out.reshape(b, *((1,) * (len(x_shape) - 1)))


class GaussianDiffusion(nn.Module):
    def __init__(self, model, timesteps=1000):
        super().__init__()
        self.model = model
        self.num_timesteps = timesteps
        betas = linear_beta_schedule(timesteps)
        alphas = 1.0 - betas
        alphas_cumprod = torch.cumprod(alphas, dim=0)
        alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
        self.register_buffer("betas", betas)
        self.register_buffer("alphas_cumprod", alphas_cumprod)
        self.register_buffer("sqrt_alphas_cumprod", torch.sqrt(alphas_cumprod))
        self.register_buffer("sqrt_one_minus_alphas_cumprod", torch.sqrt(1.0 - alphas_cumprod))
        self.register_buffer("sqrt_recip_alphas", torch.sqrt(1.0 / alphas))
        self.register_buffer("posterior_variance", betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod))

    def q_sample(self, x_start, t, noise=None):
        if noise is None:
            noise = torch.randn_like(x_start)
        return (extract(self.sqrt_alphas_cumprod, t, x_start.shape) * x_start
                + extract(self.sqrt_one_minus_alphas_cumprod, t, x_start.shape) * noise)

    def p_losses(self, x_start, t):
        noise = torch.randn_like(x_start)
        x_noisy = self.q_sample(x_start, t, noise)
        predicted = self.model(x_noisy, t)
        return F.mse_loss(predicted, noise)

    def forward(self, x):
        b = x.shape[0]
        t = torch.randint(0, self.num_timesteps, (b,), device=x.device).long()
        return self.p_losses(x, t)

    @torch.no_grad()
    def p_sample(self, x, t, t_index):
        betas_t = extract(self.betas, t, x.shape)
        sqrt_one_minus = extract(self.sqrt_one_minus_alphas_cumprod, t, x.shape)
        sqrt_recip = extract(self.sqrt_recip_alphas, t, x.shape)
        mean = sqrt_recip * (x - betas_t * self.model(x, t) / sqrt_one_minus)
        if t_index == 0:
            return mean
        var = extract(self.posterior_variance, t, x.shape)
        return mean + torch.sqrt(var) * torch.randn_like(x)

    @torch.no_grad()
    def sample(self, n, device):
        x = torch.randn(n, 2, device=device)
        for i in reversed(range(self.num_timesteps)):
            x = self.p_sample(x, torch.full((n,), i, device=device, dtype=torch.long), i)
        return x


class EMA:
    def __init__(self, beta):
        self.beta = beta
        self.step = 0

    def update_model_average(self, ma_model, current_model):
        for current_params, ma_params in zip(current_model.parameters(), ma_model.parameters()):
            old_weight, up_weight = ma_params.data, current_params.data
            ma_params.data = self.update_average(old_weight, up_weight)

    def update_average(self, old, new):
        if old is None:
            return new
        return old * self.beta + (1 - self.beta) * new

    def step_ema(self, ema_model, model, step_start_ema=20):
        if self.step < step_start_ema:
            self.reset_parameters(ema_model, model)
            self.step += 1
            return
        self.update_model_average(ema_model, model)
        self.step += 1

    def reset_parameters(self, ema_model, model):
        ema_model.load_state_dict(model.state_dict())


def main():
    args = get_args()
    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    os.makedirs(args.out_dir, exist_ok=True)

    data = make_swiss_roll(512)
    loader = DataLoader(TensorDataset(data), batch_size=args.batch_size, shuffle=True, drop_last=True)

    model = Denoiser().to(device)
    diffusion = GaussianDiffusion(model, timesteps=args.timesteps).to(device)
    ema = EMA(args.ema_decay)
    ema_model = copy.deepcopy(model).eval().requires_grad_(False)
    ema_diffusion = GaussianDiffusion(ema_model, timesteps=args.timesteps).to(device)

    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    global_step = 0
    for epoch in range(args.epochs):
        pbar = tqdm(loader, desc=f"epoch {epoch}", disable=True)
        for i, (x,) in enumerate(pbar):
            x = x.to(device)
            loss = diffusion(x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            ema.step_ema(ema_model, model)
            global_step += 1

            if global_step % args.sample_every == 0:
                print(f"step {global_step} | loss {loss.item():.4f}")
                with torch.no_grad():
                    samples = ema_diffusion.sample(64, device)
                print(f"  sample mean {samples.mean().item():.4f} std {samples.std().item():.4f}")

    torch.save({"model": model.state_dict(), "ema": ema_model.state_dict(),
                "optimizer": optimizer.state_dict(), "step": global_step},
               os.path.join(args.out_dir, "ckpt.pt"))
    final = ema_diffusion.sample(256, device)
    torch.save(final.cpu(), os.path.join(args.out_dir, "samples.pt"))
    print("done", global_step)


if __name__ == "__main__":
    main()
