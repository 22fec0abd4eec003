# corpus: normalizing-flow density estimation: hand-written sample_moons(n) in torch, a fresh batch drawn every iteration of `for it in range(n_iters)`, tiny RealNVP affine couplings with alternating masks, loss = -model.log_prob(x).mean(), ExponentialLR stepped every lr_every iterations, samples saved at the end
import math

import torch
import torch.nn as nn

torch.manual_seed(0)

n_iters = 400
batch_size = 128
lr_every = 100
print_every = 100


def sample_moons(n, noise=0.05):
    n_out = n // 2
    n_in = n - n_out
    theta_out = torch.rand(n_out) * math.pi
    theta_in = torch.rand(n_in) * math.pi
    outer = torch.stack([torch.cos(theta_out), torch.sin(theta_out)], dim=1)
    inner = torch.stack([1 - torch.cos(theta_in), 1 - torch.sin(theta_in) - 0.5], dim=1)
    x = torch.cat([outer, inner], dim=0)
    x = x + noise * torch.randn_like(x)
    return x[torch.randperm(n)]


class Coupling(nn.Module):
    def __init__(self, mask, hidden=32):
        super().__init__()
        self.register_buffer('mask', mask)
        self.net = nn.Sequential(
            nn.Linear(2, hidden), nn.LeakyReLU(),
            nn.Linear(hidden, hidden), nn.LeakyReLU(),
            nn.Linear(hidden, 4),
        )

    def forward(self, x):
        # x -> z, returns log|det J|
        x_masked = x * self.mask
        s, t = self.net(x_masked).chunk(2, dim=1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        z = x_masked + (1 - self.mask) * (x * torch.exp(s) + t)
        return z, s.sum(dim=1)

    def inverse(self, z):
        z_masked = z * self.mask
        s, t = self.net(z_masked).chunk(2, dim=1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        return z_masked + (1 - self.mask) * ((z - t) * torch.exp(-s))


class RealNVP(nn.Module):
    def __init__(self, n_layers=4):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(n_layers)]
        self.layers = nn.ModuleList([Coupling(m) for m in masks])
        self.register_buffer('base_loc', torch.zeros(2))
        self.register_buffer('base_scale', torch.ones(2))

    @property
    def base(self):
        return torch.distributions.Normal(self.base_loc, self.base_scale)

    def forward(self, x):
        log_det = torch.zeros(x.shape[0], device=x.device)
        for layer in self.layers:
            x, ld = layer(x)
            log_det = log_det + ld
        return x, log_det

    def log_prob(self, x):
        z, log_det = self(x)
        return self.base.log_prob(z).sum(dim=1) + log_det

    @torch.no_grad()
    def sample(self, n):
        z = self.base.sample((n,))
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


flow = RealNVP()
opt = torch.optim.Adam(flow.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.7)

running = 0.0
for it in range(n_iters):
    x = sample_moons(batch_size)
    loss = -flow.log_prob(x).mean()

    opt.zero_grad()
    loss.backward()
    opt.step()

    running += loss.item()
    if (it + 1) % lr_every == 0:
        sched.step()
    if (it + 1) % print_every == 0:
        print(f"iter {it + 1:5d}  nll {running / print_every:.3f}  lr {sched.get_last_lr()[0]:.2e}")
        running = 0.0

with torch.no_grad():
    test_nll = -flow.log_prob(sample_moons(2000)).mean().item()
print(f"held-out nll: {test_nll:.3f}")
samples = flow.sample(500)
torch.save(samples, 'flow_samples.pt')
