# corpus: RealNVP-lite normalizing flow on two moons (research notebook turned script): coupling layers with masks, log_prob via change of variables, NaN/inf loss check with skip, clip_grad_norm_, ExponentialLR per epoch, functions + globals, bits/dim style print
import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 7
EPOCHS = 3
BATCH = 64
LR = 1e-3
N_COUPLINGS = 4

torch.manual_seed(SEED)


def two_moons(n, noise=0.08):
    n1 = n // 2
    n2 = n - n1
    t1 = torch.rand(n1) * math.pi
    t2 = torch.rand(n2) * math.pi
    a = torch.stack([torch.cos(t1), torch.sin(t1)], 1)
    b = torch.stack([1 - torch.cos(t2), 1 - torch.sin(t2) - 0.5], 1)
    x = torch.cat([a, b], 0)
    return x + noise * torch.randn_like(x)


class CouplingLayer(nn.Module):
    def __init__(self, mask, hidden=32):
        super().__init__()
        self.register_buffer("mask", mask)
        d = mask.numel()
        self.s = nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, d), nn.Tanh())
        self.t = nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, d))

    def forward(self, x):
        # x -> z
        x_m = x * self.mask
        s = self.s(x_m) * (1 - self.mask)
        t = self.t(x_m) * (1 - self.mask)
        z = x_m + (1 - self.mask) * (x * torch.exp(s) + t)
        log_det = s.sum(dim=1)
        return z, log_det

    def inverse(self, z):
        z_m = z * self.mask
        s = self.s(z_m) * (1 - self.mask)
        t = self.t(z_m) * (1 - self.mask)
        x = z_m + (1 - self.mask) * ((z - t) * torch.exp(-s))
        return x


class RealNVP(nn.Module):
    def __init__(self, n_layers=4, dim=2):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(n_layers)]
        self.layers = nn.ModuleList([CouplingLayer(m) for m in masks])
        self.register_buffer("loc", torch.zeros(dim))
        self.register_buffer("scale", torch.ones(dim))

    @property
    def prior(self):
        return torch.distributions.Normal(self.loc, self.scale)

    def forward(self, x):
        log_det_total = torch.zeros(x.shape[0], device=x.device)
        for layer in self.layers:
            x, ld = layer(x)
            log_det_total = log_det_total + ld
        return x, log_det_total

    def log_prob(self, x):
        z, log_det = self(x)
        return self.prior.log_prob(z).sum(dim=1) + log_det

    def sample(self, n):
        z = self.prior.sample((n,))
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


def train_epoch(flow, loader, optimizer, epoch):
    flow.train()
    total, count, skipped = 0.0, 0, 0
    for batch_idx, (x,) in enumerate(loader):
        loss = -flow.log_prob(x).mean()
        if torch.isnan(loss) or torch.isinf(loss):
            print(f"  [warn] non-finite loss at epoch {epoch} batch {batch_idx}, skipping")
            skipped += 1
            continue
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(flow.parameters(), max_norm=10.0)
        optimizer.step()
        total += loss.item() * x.size(0)
        count += x.size(0)
    return total / max(count, 1), skipped


@torch.no_grad()
def evaluate(flow, loader):
    flow.eval()
    nll = 0.0
    for (x,) in loader:
        nll += -flow.log_prob(x).sum().item()
    return nll / len(loader.dataset)


train_loader = DataLoader(TensorDataset(two_moons(512)), batch_size=BATCH, shuffle=True)
test_loader = DataLoader(TensorDataset(two_moons(256)), batch_size=256)

flow = RealNVP(N_COUPLINGS)
optimizer = torch.optim.Adam(flow.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)

for epoch in range(1, EPOCHS + 1):
    train_nll, skipped = train_epoch(flow, train_loader, optimizer, epoch)
    test_nll = evaluate(flow, test_loader)
    scheduler.step()
    print(f"Epoch {epoch}: train nll {train_nll:.4f} | test nll {test_nll:.4f} | bits/dim {test_nll / (2 * math.log(2)):.4f} | skipped {skipped}")

with torch.no_grad():
    flow.eval()
    samples = flow.sample(500)
    if torch.isnan(samples).any():
        print("NaN in samples!")
    print("sample mean", [round(v, 3) for v in samples.mean(0).tolist()])
torch.save({"model": flow.state_dict(), "optimizer": optimizer.state_dict(), "epoch": EPOCHS}, "realnvp.pth")
