# corpus: for step in itertools.count() over a cycled loader, warmup lr, break when step reaches total_steps
import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(4)


def cycle(loader):
    while True:
        for batch in loader:
            yield batch


class AutoEncoder(nn.Module):
    def __init__(self, dim=24, latent=6):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, latent))
        self.dec = nn.Sequential(nn.Linear(latent, 16), nn.ReLU(), nn.Linear(16, dim))

    def forward(self, x):
        return self.dec(self.enc(x))


data = torch.randn(160, 24)
loader = DataLoader(TensorDataset(data), batch_size=32, shuffle=True)
batches = cycle(loader)

model = AutoEncoder()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
total_steps = 25
warmup = 5

for step in itertools.count():
    if step >= total_steps:
        break
    (x,) = next(batches)
    scale = min(1.0, (step + 1) / warmup)
    for g in optimizer.param_groups:
        g["lr"] = 1e-2 * scale
    recon = model(x)
    loss = F.mse_loss(recon, x)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}  lr {optimizer.param_groups[0]['lr']:.4f}")
