# corpus: diffusion tutorial style: linear beta schedule, q_sample with random timesteps and noise drawn inside the batch loop, get_loss(model, x_0, t), sample() with @torch.no_grad() every few epochs after training steps
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

T = 50
betas = torch.linspace(1e-4, 0.02, T)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod)
sqrt_one_minus_alphas_cumprod = torch.sqrt(1.0 - alphas_cumprod)


def get_index_from_list(vals, t, x_shape):
    batch_size = t.shape[0]
    out = vals.gather(-1, t.cpu())
    return out.reshape(batch_size, *((1,) * (len(x_shape) - 1))).to(t.device)


def forward_diffusion_sample(x_0, t, device="cpu"):
    noise = torch.randn_like(x_0)
    sqrt_alphas_cumprod_t = get_index_from_list(sqrt_alphas_cumprod, t, x_0.shape)
    sqrt_one_minus_alphas_cumprod_t = get_index_from_list(sqrt_one_minus_alphas_cumprod, t, x_0.shape)
    return sqrt_alphas_cumprod_t.to(device) * x_0.to(device) + sqrt_one_minus_alphas_cumprod_t.to(device) * noise.to(device), noise.to(device)


class Denoiser(nn.Module):
    def __init__(self, dim=16, hidden=64):
        super().__init__()
        self.time_embed = nn.Embedding(T, hidden)
        self.inp = nn.Linear(dim, hidden)
        self.mid = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.out = nn.Linear(hidden, dim)

    def forward(self, x, t):
        h = self.inp(x) + self.time_embed(t)
        return self.out(self.mid(h))


def get_loss(model, x_0, t):
    x_noisy, noise = forward_diffusion_sample(x_0, t, device)
    noise_pred = model(x_noisy, t)
    return F.l1_loss(noise, noise_pred)


@torch.no_grad()
def sample_timestep(x, t):
    betas_t = get_index_from_list(betas, t, x.shape)
    sqrt_one_minus_alphas_cumprod_t = get_index_from_list(sqrt_one_minus_alphas_cumprod, t, x.shape)
    sqrt_recip_alphas_t = get_index_from_list(torch.sqrt(1.0 / alphas), t, x.shape)
    model_mean = sqrt_recip_alphas_t * (x - betas_t * model(x, t) / sqrt_one_minus_alphas_cumprod_t)
    if t[0] == 0:
        return model_mean
    return model_mean + torch.sqrt(betas_t) * torch.randn_like(x)


@torch.no_grad()
def sample(n=4):
    x = torch.randn(n, 16, device=device)
    for i in reversed(range(T)):
        t = torch.full((n,), i, device=device, dtype=torch.long)
        x = sample_timestep(x, t)
    return x


torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
data = torch.randn(256, 16) * 0.5 + torch.linspace(-1, 1, 16)
dataloader = DataLoader(TensorDataset(data), batch_size=32, shuffle=True, drop_last=True)
model = Denoiser().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
epochs = 4
BATCH_SIZE = 32

for epoch in range(epochs):
    for step, batch in enumerate(dataloader):
        optimizer.zero_grad()
        t = torch.randint(0, T, (BATCH_SIZE,), device=device).long()
        loss = get_loss(model, batch[0], t)
        loss.backward()
        optimizer.step()
        if epoch % 2 == 0 and step == 0:
            print(f"Epoch {epoch} | step {step:03d} Loss: {loss.item()} ")
            samples = sample()
            print("sample mean", samples.mean().item())
