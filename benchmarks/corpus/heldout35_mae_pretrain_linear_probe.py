# corpus: masked autoencoder pretraining then linear probe (MAE-lite research code): random_masking with argsort/gather, pretrain() and linear_probe() phases, encoder frozen with requires_grad_(False) for the probe, new optimizer per phase, SimpleNamespace config, print every N steps, encoder weights saved between phases
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

cfg = SimpleNamespace(
    seed=11, n_patches=16, patch_dim=12, dim=32, mask_ratio=0.75,
    pretrain_epochs=2, probe_epochs=2, batch_size=32,
    pretrain_lr=1.5e-3, probe_lr=1e-2, num_classes=5, print_every=4,
)
torch.manual_seed(cfg.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def random_masking(x, mask_ratio):
    N, L, D = x.shape
    len_keep = int(L * (1 - mask_ratio))
    noise = torch.rand(N, L, device=x.device)
    ids_shuffle = torch.argsort(noise, dim=1)
    ids_restore = torch.argsort(ids_shuffle, dim=1)
    ids_keep = ids_shuffle[:, :len_keep]
    x_masked = torch.gather(x, dim=1, index=ids_keep.unsqueeze(-1).repeat(1, 1, D))
    mask = torch.ones([N, L], device=x.device)
    mask[:, :len_keep] = 0
    mask = torch.gather(mask, dim=1, index=ids_restore)
    return x_masked, mask, ids_restore


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(cfg.patch_dim, cfg.dim)
        self.pos = nn.Parameter(torch.randn(1, cfg.n_patches, cfg.dim) * 0.02)
        self.block = nn.TransformerEncoderLayer(cfg.dim, 2, 64, dropout=0.0, batch_first=True)
        self.norm = nn.LayerNorm(cfg.dim)

    def forward(self, patches, mask_ratio=0.0):
        x = self.embed(patches) + self.pos
        if mask_ratio > 0:
            x, mask, ids_restore = random_masking(x, mask_ratio)
        else:
            mask = ids_restore = None
        return self.norm(self.block(x)), mask, ids_restore


class MAE(nn.Module):
    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder
        self.mask_token = nn.Parameter(torch.zeros(1, 1, cfg.dim))
        self.dec_pos = nn.Parameter(torch.randn(1, cfg.n_patches, cfg.dim) * 0.02)
        self.decoder = nn.TransformerEncoderLayer(cfg.dim, 2, 64, dropout=0.0, batch_first=True)
        self.pred = nn.Linear(cfg.dim, cfg.patch_dim)

    def forward(self, patches):
        latent, mask, ids_restore = self.encoder(patches, cfg.mask_ratio)
        N, L = mask.shape
        mask_tokens = self.mask_token.repeat(N, L - latent.shape[1], 1)
        x = torch.cat([latent, mask_tokens], dim=1)
        x = torch.gather(x, 1, ids_restore.unsqueeze(-1).repeat(1, 1, cfg.dim)) + self.dec_pos
        pred = self.pred(self.decoder(x))
        loss = ((pred - patches) ** 2).mean(dim=-1)
        loss = (loss * mask).sum() / mask.sum()
        return loss


# synthetic "images" as 16 patches of 12 values; label = which patch is brightest // ...
X = torch.randn(320, cfg.n_patches, cfg.patch_dim)
Y = X.mean(dim=(1, 2)).mul(10).long().clamp(-2, 2) + 2
train_ds = TensorDataset(X[:256], Y[:256])
test_ds = TensorDataset(X[256:], Y[256:])


def pretrain(encoder):
    mae = MAE(encoder).to(device)
    loader = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True)
    opt = torch.optim.AdamW(mae.parameters(), lr=cfg.pretrain_lr, betas=(0.9, 0.95), weight_decay=0.05)
    step = 0
    for epoch in range(cfg.pretrain_epochs):
        mae.train()
        for patches, _ in loader:
            patches = patches.to(device)
            loss = mae(patches)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % cfg.print_every == 0:
                print(f"[pretrain] epoch {epoch} step {step} loss {loss.item():.4f}")
    torch.save(encoder.state_dict(), "mae_encoder.pth")
    return encoder


def linear_probe(encoder):
    encoder.requires_grad_(False)
    encoder.eval()
    head = nn.Sequential(nn.BatchNorm1d(cfg.dim, affine=False), nn.Linear(cfg.dim, cfg.num_classes)).to(device)
    opt = torch.optim.SGD(head.parameters(), lr=cfg.probe_lr, momentum=0.9)
    loader = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True)
    test_loader = DataLoader(test_ds, batch_size=64)
    for epoch in range(cfg.probe_epochs):
        head.train()
        total = 0.0
        for patches, y in loader:
            patches, y = patches.to(device), y.to(device)
            with torch.no_grad():
                feats, _, _ = encoder(patches)
                feats = feats.mean(dim=1)
            loss = F.cross_entropy(head(feats), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        head.eval()
        correct = 0
        with torch.no_grad():
            for patches, y in test_loader:
                feats, _, _ = encoder(patches.to(device))
                correct += (head(feats.mean(1)).argmax(1) == y.to(device)).sum().item()
        print(f"[probe] epoch {epoch} loss {total / len(loader):.4f} acc {correct / len(test_ds):.3f}")
    return head


if __name__ == "__main__":
    encoder = Encoder()
    encoder = pretrain(encoder)
    head = linear_probe(encoder)
    torch.save({"encoder": encoder.state_dict(), "head": head.state_dict()}, "linear_probe.pth")
