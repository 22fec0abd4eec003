# corpus: SimCLR reproduction train.py — NT-Xent on two augmented views, OneCycleLR per step, linear probe at the end
import argparse
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from tqdm import tqdm


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def get_args():
    parser = argparse.ArgumentParser(description="SimCLR")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--temperature", type=float, default=0.5)
    parser.add_argument("--proj-dim", type=int, default=16)
    parser.add_argument("--out_dir", type=str, default="runs/simclr")
    parser.add_argument("--seed", type=int, default=0)
    args, _ = parser.parse_known_args()
    return args


class Augment:
    """crude 'image' augmentations on 1x16x16 tensors: random flip, noise, cutout"""

    def __call__(self, x):
        if random.random() < 0.5:
            x = torch.flip(x, dims=[-1])
        x = x + 0.1 * torch.randn_like(x)
        i, j = random.randint(0, 11), random.randint(0, 11)
        x = x.clone()
        x[:, i:i + 4, j:j + 4] = 0.0
        return x


class ContrastiveDataset(Dataset):
    def __init__(self, data, transform):
        self.data = data
        self.transform = transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        x = self.data[idx]
        return self.transform(x), self.transform(x)


class Encoder(nn.Module):
    def __init__(self, feat_dim=32):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(16, feat_dim)

    def forward(self, x):
        return self.fc(self.conv(x).flatten(1))


class SimCLR(nn.Module):
    def __init__(self, feat_dim=32, proj_dim=16):
        super().__init__()
        self.encoder = Encoder(feat_dim)
        self.projector = nn.Sequential(nn.Linear(feat_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, proj_dim))

    def forward(self, x):
        h = self.encoder(x)
        return h, self.projector(h)


def nt_xent(z1, z2, temperature):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    sim = z @ z.t() / temperature
    sim.fill_diagonal_(-1e9)
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return F.cross_entropy(sim, targets)


@torch.no_grad()
def extract(encoder, x, device):
    encoder.eval()
    feats = encoder(x.to(device))
    encoder.train()
    return feats.cpu()


def linear_probe(train_f, train_y, test_f, test_y, steps=100):
    clf = nn.Linear(train_f.shape[1], 4)
    opt = torch.optim.SGD(clf.parameters(), lr=0.5)
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(clf(train_f), train_y).backward()
        opt.step()
    return (clf(test_f).argmax(1) == test_y).float().mean().item()


def main():
    args = get_args()
    set_seed(args.seed)
    os.makedirs(args.out_dir, exist_ok=True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    # 4 latent "classes" of 16x16 blobs
    labels = torch.randint(0, 4, (256,))
    protos = torch.randn(4, 1, 16, 16)
    images = protos[labels] + 0.5 * torch.randn(256, 1, 16, 16)

    train_ds = ContrastiveDataset(images[:192], Augment())
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True, drop_last=True)

    model = SimCLR(proj_dim=args.proj_dim).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(train_loader)
    )

    for epoch in range(args.epochs):
        model.train()
        total, n = 0.0, 0
        pbar = tqdm(train_loader, desc=f"epoch {epoch}", leave=False)
        for x1, x2 in pbar:
            x1, x2 = x1.to(device), x2.to(device)
            _, z1 = model(x1)
            _, z2 = model(x2)
            loss = nt_xent(z1, z2, args.temperature)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            total += loss.item()
            n += 1
            pbar.set_postfix(loss=f"{loss.item():.4f}")
        print(f"epoch {epoch} | nt-xent {total / n:.4f} | lr {scheduler.get_last_lr()[0]:.6f}")
        torch.save(
            {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
            os.path.join(args.out_dir, "checkpoint.pth"),
        )

    tr_f = extract(model.encoder, images[:192], device)
    te_f = extract(model.encoder, images[192:], device)
    acc = linear_probe(tr_f, labels[:192], te_f, labels[192:])
    print(f"linear probe acc: {acc:.4f}")


if __name__ == "__main__":
    main()
