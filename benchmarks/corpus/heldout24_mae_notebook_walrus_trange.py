# corpus: Colab notebook exported with "# %%" cells (2024): masked-autoencoder-lite on patch sequences, UPPERCASE globals, random_split with a seeded generator, `for epoch in (pbar := trange(EPOCHS))` walrus + pbar.set_postfix, torch.amp.autocast("cpu", bfloat16, enabled=USE_AMP) off, LambdaLR warmup/cosine stepped per batch, optimizer.zero_grad(set_to_none=True), val recon loss under inference_mode, a linear probe fitted afterwards on frozen features, leftover plotting cell behind a flag
# %%
import math
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split
from tqdm.auto import trange

SEED = 3407  # "torch.manual_seed(3407) is all you need"
random.seed(SEED)
np.random.seed(SEED)
torch.manual_seed(SEED)

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
USE_AMP = False
PLOT = False
EPOCHS = 4
BATCH_SIZE = 32
LR = 1.5e-3
MASK_RATIO = 0.75
N_PATCHES, PATCH_DIM, D_MODEL = 16, 12, 32

# %% data: sequences of "patches" with a low-rank structure, plus a label for the probe
N = 400
basis = torch.randn(4, PATCH_DIM)
coef = torch.randn(N, N_PATCHES, 4)
X = coef @ basis + 0.1 * torch.randn(N, N_PATCHES, PATCH_DIM)
Y = (coef[:, :, 0].mean(1) > 0).long()
ds = TensorDataset(X, Y)
train_ds, val_ds = random_split(ds, [320, 80], generator=torch.Generator().manual_seed(SEED))
train_loader = DataLoader(train_ds, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=BATCH_SIZE)
len(train_ds), len(val_ds)


# %% model
class MAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(PATCH_DIM, D_MODEL)
        self.pos = nn.Parameter(torch.randn(1, N_PATCHES, D_MODEL) * 0.02)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, D_MODEL))
        enc_layer = nn.TransformerEncoderLayer(D_MODEL, 4, 64, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, 2)
        dec_layer = nn.TransformerEncoderLayer(D_MODEL, 4, 64, dropout=0.0, batch_first=True, norm_first=True)
        self.decoder = nn.TransformerEncoder(dec_layer, 1)
        self.out = nn.Linear(D_MODEL, PATCH_DIM)

    def random_masking(self, x):
        B, L, D = x.shape
        len_keep = int(L * (1 - MASK_RATIO))
        noise = torch.rand(B, L, device=x.device)
        ids_shuffle = torch.argsort(noise, dim=1)
        ids_restore = torch.argsort(ids_shuffle, dim=1)
        ids_keep = ids_shuffle[:, :len_keep]
        x_masked = torch.gather(x, 1, ids_keep.unsqueeze(-1).repeat(1, 1, D))
        mask = torch.ones(B, L, device=x.device)
        mask[:, :len_keep] = 0
        mask = torch.gather(mask, 1, ids_restore)
        return x_masked, mask, ids_restore

    def encode(self, patches):
        return self.encoder(self.embed(patches) + self.pos)

    def forward(self, patches):
        x = self.embed(patches) + self.pos
        x, mask, ids_restore = self.random_masking(x)
        x = self.encoder(x)
        mask_tokens = self.mask_token.repeat(x.shape[0], ids_restore.shape[1] - x.shape[1], 1)
        x = torch.cat([x, mask_tokens], dim=1)
        x = torch.gather(x, 1, ids_restore.unsqueeze(-1).repeat(1, 1, x.shape[2]))
        pred = self.out(self.decoder(x + self.pos))
        loss = ((pred - patches) ** 2).mean(dim=-1)
        loss = (loss * mask).sum() / mask.sum()
        return loss, pred, mask


model = MAE().to(DEVICE)
print(f"{sum(p.numel() for p in model.parameters()):,} params")

# %% optimizer + schedule
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, betas=(0.9, 0.95), weight_decay=0.05)
total_steps = EPOCHS * len(train_loader)
warmup_steps = len(train_loader)
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer,
    lambda s: (s + 1) / warmup_steps if s < warmup_steps else 0.5 * (1 + math.cos(math.pi * (s - warmup_steps) / (total_steps - warmup_steps))),
)

# %% train
train_losses, val_losses = [], []
for epoch in (pbar := trange(EPOCHS, desc="pretrain")):
    model.train()
    epoch_loss = 0.0
    for xb, _ in train_loader:
        xb = xb.to(DEVICE)
        with torch.amp.autocast("cpu", dtype=torch.bfloat16, enabled=USE_AMP):
            loss, _, _ = model(xb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        scheduler.step()
        epoch_loss += loss.item() * xb.size(0)
    train_losses.append(epoch_loss / len(train_ds))

    model.eval()
    with torch.inference_mode():
        v = sum(model(xb.to(DEVICE))[0].item() * xb.size(0) for xb, _ in val_loader) / len(val_ds)
    val_losses.append(v)
    pbar.set_postfix(train=f"{train_losses[-1]:.4f}", val=f"{v:.4f}", lr=f"{scheduler.get_last_lr()[0]:.2e}")

print("train:", [round(l, 4) for l in train_losses])
print("val:  ", [round(l, 4) for l in val_losses])

# %% plot (only locally)
if PLOT:
    import matplotlib.pyplot as plt

    plt.plot(train_losses, label="train")
    plt.plot(val_losses, label="val")
    plt.legend()
    plt.show()

# %% linear probe on frozen features
model.eval()
with torch.inference_mode():
    feats_tr = torch.cat([model.encode(xb.to(DEVICE)).mean(1) for xb, _ in train_loader])
    # NB: train_loader shuffles, so labels must come from the same pass
probe_x, probe_y = [], []
with torch.inference_mode():
    for xb, yb in DataLoader(train_ds, batch_size=BATCH_SIZE):
        probe_x.append(model.encode(xb.to(DEVICE)).mean(1))
        probe_y.append(yb.to(DEVICE))
probe_x, probe_y = torch.cat(probe_x).clone(), torch.cat(probe_y)
probe = nn.Linear(D_MODEL, 2).to(DEVICE)
probe_opt = torch.optim.SGD(probe.parameters(), lr=0.5)
for i in range(30):
    probe_loss = nn.functional.cross_entropy(probe(probe_x), probe_y)
    probe_opt.zero_grad()
    probe_loss.backward()
    probe_opt.step()
print(f"probe train loss {probe_loss.item():.4f}, acc {(probe(probe_x).argmax(1) == probe_y).float().mean().item():.3f}")

# %%
torch.save({"mae": model.state_dict(), "probe": probe.state_dict()}, "mae_probe.pt")
