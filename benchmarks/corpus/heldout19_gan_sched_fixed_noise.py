# corpus: GAN with an LR scheduler per optimizer (StepLR for G, ExponentialLR for D) stepped each epoch, fixed_noise drawn once and the generated tensor torch.save'd per epoch from G in eval mode (then back to train), losses per epoch averaged and lrs printed, final models saved
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 123
torch.manual_seed(SEED)
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
NZ, DIM, EPOCHS, BS = 6, 24, 5, 16
OUT = "gan_runs/exp1"
os.makedirs(OUT, exist_ok=True)

real_data = torch.randn(224, DIM) * 0.5 + torch.linspace(-1, 1, DIM)
loader = DataLoader(TensorDataset(real_data), batch_size=BS, shuffle=True)

G = nn.Sequential(nn.Linear(NZ, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, DIM)).to(DEVICE)
D = nn.Sequential(nn.Linear(DIM, 32), nn.LeakyReLU(0.2), nn.Dropout(0.3), nn.Linear(32, 1)).to(DEVICE)

criterion = nn.BCEWithLogitsLoss()
optG = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
optD = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
schedG = torch.optim.lr_scheduler.StepLR(optG, step_size=2, gamma=0.5)
schedD = torch.optim.lr_scheduler.ExponentialLR(optD, gamma=0.8)

fixed_noise = torch.randn(8, NZ, device=DEVICE)


def save_samples(epoch):
    G.eval()
    with torch.no_grad():
        samples = G(fixed_noise).cpu()
    torch.save(samples, os.path.join(OUT, f"fixed_epoch_{epoch:03d}.pt"))
    G.train()
    return samples


log = {"lossD": [], "lossG": [], "lrG": [], "lrD": []}
for epoch in range(EPOCHS):
    epoch_d, epoch_g, n = 0.0, 0.0, 0
    for (real,) in loader:
        real = real.to(DEVICE)
        b = real.size(0)
        ones = torch.ones(b, 1, device=DEVICE)
        zeros = torch.zeros(b, 1, device=DEVICE)

        # discriminator
        noise = torch.randn(b, NZ, device=DEVICE)
        fake = G(noise)
        optD.zero_grad()
        lossD = criterion(D(real), ones) + criterion(D(fake.detach()), zeros)
        lossD.backward()
        optD.step()

        # generator
        optG.zero_grad()
        lossG = criterion(D(fake), ones)
        lossG.backward()
        optG.step()

        epoch_d += lossD.item()
        epoch_g += lossG.item()
        n += 1

    schedG.step()
    schedD.step()
    log["lossD"].append(epoch_d / n)
    log["lossG"].append(epoch_g / n)
    log["lrG"].append(schedG.get_last_lr()[0])
    log["lrD"].append(schedD.get_last_lr()[0])
    s = save_samples(epoch)
    print(f"Epoch {epoch + 1}/{EPOCHS}  lossD={epoch_d / n:.4f}  lossG={epoch_g / n:.4f}  "
          f"lrG={optG.param_groups[0]['lr']:.2e}  lrD={optD.param_groups[0]['lr']:.2e}  sample_mean={s.mean():.4f}")

torch.save(log, os.path.join(OUT, "log.pt"))
torch.save({"G": G.state_dict(), "D": D.state_dict()}, os.path.join(OUT, "final.pt"))
