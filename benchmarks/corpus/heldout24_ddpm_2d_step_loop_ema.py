# corpus: tiny-diffusion repo style: DDPM on 2D points, NoiseScheduler class (add_noise / step), sinusoidal time embedding MLP, step loop over an infinite loader generator, hand-written EMA with lerp_ under no_grad, AdamW + LambdaLR warmup, clip_grad_norm_, sampling with the EMA copy under inference_mode at the end, samples saved
import argparse
import copy
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def moons_dataset(n=512):
    t = torch.rand(n) * math.pi
    upper = torch.stack([torch.cos(t), torch.sin(t)], 1)
    lower = torch.stack([1 - torch.cos(t), 0.5 - torch.sin(t)], 1)
    x = torch.cat([upper[: n // 2], lower[n // 2:]], 0)
    x = x + 0.05 * torch.randn_like(x)
    return TensorDataset((x - x.mean(0)) / x.std(0))


class SinusoidalEmbedding(nn.Module):
    def __init__(self, size, scale=1.0):
        super().__init__()
        self.size = size
        self.scale = scale

    def forward(self, t):
        t = t.float() * self.scale
        half = self.size // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device) / (half - 1))
        emb = t[:, None] * freqs[None]
        return torch.cat([emb.sin(), emb.cos()], dim=-1)


class Block(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.ff = nn.Linear(size, size)
        self.act = nn.GELU()

    def forward(self, x):
        return x + self.act(self.ff(x))


class MLP(nn.Module):
    def __init__(self, hidden_size=64, hidden_layers=2, emb_size=16):
        super().__init__()
        self.time_mlp = SinusoidalEmbedding(emb_size)
        self.input_mlp1 = SinusoidalEmbedding(emb_size, scale=25.0)
        self.input_mlp2 = SinusoidalEmbedding(emb_size, scale=25.0)
        layers = [nn.Linear(3 * emb_size, hidden_size), nn.GELU()]
        layers += [Block(hidden_size) for _ in range(hidden_layers)]
        layers += [nn.Linear(hidden_size, 2)]
        self.joint_mlp = nn.Sequential(*layers)

    def forward(self, x, t):
        x1 = self.input_mlp1(x[:, 0])
        x2 = self.input_mlp2(x[:, 1])
        t_emb = self.time_mlp(t)
        return self.joint_mlp(torch.cat((x1, x2, t_emb), dim=-1))


class NoiseScheduler:
    def __init__(self, num_timesteps=50, beta_start=1e-4, beta_end=0.02):
        self.num_timesteps = num_timesteps
        self.betas = torch.linspace(beta_start, beta_end, num_timesteps)
        self.alphas = 1.0 - self.betas
        self.alphas_cumprod = torch.cumprod(self.alphas, dim=0)
        self.alphas_cumprod_prev = F.pad(self.alphas_cumprod[:-1], (1, 0), value=1.0)
        self.sqrt_alphas_cumprod = self.alphas_cumprod ** 0.5
        self.sqrt_one_minus_alphas_cumprod = (1 - self.alphas_cumprod) ** 0.5

    def add_noise(self, x_start, noise, timesteps):
        s1 = self.sqrt_alphas_cumprod[timesteps].reshape(-1, 1)
        s2 = self.sqrt_one_minus_alphas_cumprod[timesteps].reshape(-1, 1)
        return s1 * x_start + s2 * noise

    def step(self, model_output, t, sample):
        beta = self.betas[t]
        alpha = self.alphas[t]
        acp = self.alphas_cumprod[t]
        pred_mean = (sample - beta / (1 - acp) ** 0.5 * model_output) / alpha ** 0.5
        if t > 0:
            var = beta * (1 - self.alphas_cumprod_prev[t]) / (1 - acp)
            pred_mean = pred_mean + var ** 0.5 * torch.randn_like(sample)
        return pred_mean


def infinite(loader):
    while True:
        for batch in loader:
            yield batch


@torch.no_grad()
def update_ema(ema_model, model, decay):
    for ema_p, p in zip(ema_model.parameters(), model.parameters()):
        ema_p.lerp_(p, 1.0 - decay)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--experiment_name", type=str, default="base")
    parser.add_argument("--train_batch_size", type=int, default=64)
    parser.add_argument("--num_steps", type=int, default=60)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--num_timesteps", type=int, default=50)
    parser.add_argument("--ema_decay", type=float, default=0.99)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--log_every", type=int, default=10)
    config = parser.parse_args()

    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dataset = moons_dataset()
    dataloader = DataLoader(dataset, batch_size=config.train_batch_size, shuffle=True, drop_last=True)

    model = MLP().to(device)
    ema = copy.deepcopy(model).eval().requires_grad_(False)
    noise_scheduler = NoiseScheduler(num_timesteps=config.num_timesteps)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    lr_sched = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / config.warmup))

    data_iter = infinite(dataloader)
    losses = []
    print("Training model...")
    model.train()
    for step in range(config.num_steps):
        (batch,) = next(data_iter)
        batch = batch.to(device)
        noise = torch.randn(batch.shape, device=device)
        timesteps = torch.randint(0, noise_scheduler.num_timesteps, (batch.shape[0],), device=device).long()

        noisy = noise_scheduler.add_noise(batch, noise, timesteps)
        noise_pred = model(noisy, timesteps)
        loss = F.mse_loss(noise_pred, noise)
        loss.backward()

        grad_norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        lr_sched.step()
        update_ema(ema, model, config.ema_decay)

        losses.append(loss.detach().item())
        if step % config.log_every == 0 or step == config.num_steps - 1:
            print(f"step {step:4d} | loss {loss.item():.4f} | grad_norm {grad_norm.item():.3f} | lr {lr_sched.get_last_lr()[0]:.2e}")

    print("Sampling with EMA weights...")
    outdir = f"exps/{config.experiment_name}"
    os.makedirs(outdir, exist_ok=True)
    with torch.inference_mode():
        sample = torch.randn(128, 2, device=device)
        for i, t in enumerate(reversed(range(noise_scheduler.num_timesteps))):
            tt = torch.full((128,), t, dtype=torch.long, device=device)
            residual = ema(sample, tt)
            sample = noise_scheduler.step(residual, t, sample)
    print(f"sample mean {sample.mean(0).tolist()} std {sample.std(0).tolist()}")
    torch.save({"model": model.state_dict(), "ema": ema.state_dict(), "losses": losses}, f"{outdir}/model.pth")
    torch.save(sample.cpu(), f"{outdir}/samples.pt")
