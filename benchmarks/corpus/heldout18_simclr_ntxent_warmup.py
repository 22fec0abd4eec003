# corpus: SimCLR-style research run.py: two augmented views of one batch made by a hand-written augment(), projection head, nt_xent(z1, z2, temperature) by cross-entropy over a masked similarity matrix, SGD with linear warmup then cosine set on param_groups per step, linear-probe evaluation on frozen features, checkpoint every N epochs
import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser(description='SimCLR')
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--epochs', type=int, default=4)
parser.add_argument('--lr', type=float, default=0.3)
parser.add_argument('--warmup-epochs', type=int, default=1)
parser.add_argument('--temperature', type=float, default=0.5)
parser.add_argument('--proj-dim', type=int, default=32)
parser.add_argument('--save-every', type=int, default=2)
parser.add_argument('--out-dir', type=str, default='runs_simclr')
parser.add_argument('--seed', type=int, default=42)
args = parser.parse_args()

torch.manual_seed(args.seed)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
os.makedirs(args.out_dir, exist_ok=True)


def augment(x):
    # random crop-ish jitter + horizontal flip + gaussian noise, batched
    flip = torch.rand(x.size(0), 1, 1, 1, device=x.device) < 0.5
    x = torch.where(flip, x.flip(3), x)
    shift = int(torch.randint(-2, 3, (1,)))
    x = torch.roll(x, shifts=shift, dims=2)
    return x + 0.1 * torch.randn_like(x)


class Encoder(nn.Module):
    def __init__(self, feat_dim=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, feat_dim, 3, stride=2, padding=1), nn.BatchNorm2d(feat_dim), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.feat_dim = feat_dim

    def forward(self, x):
        return self.net(x)


class SimCLR(nn.Module):
    def __init__(self, encoder, proj_dim):
        super().__init__()
        self.encoder = encoder
        self.projector = nn.Sequential(
            nn.Linear(encoder.feat_dim, encoder.feat_dim), nn.ReLU(), nn.Linear(encoder.feat_dim, proj_dim))

    def forward(self, x):
        h = self.encoder(x)
        return F.normalize(self.projector(h), dim=1)


def nt_xent(z1, z2, temperature):
    n = z1.size(0)
    z = torch.cat([z1, z2], dim=0)
    sim = z @ z.t() / temperature
    mask = torch.eye(2 * n, dtype=torch.bool, device=z.device)
    sim = sim.masked_fill(mask, float('-inf'))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return F.cross_entropy(sim, targets)


def get_lr(step, total_steps, warmup_steps, base_lr):
    if step < warmup_steps:
        return base_lr * (step + 1) / warmup_steps
    progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
    return base_lr * 0.5 * (1. + math.cos(math.pi * progress))


images = torch.randn(512, 3, 16, 16)
labels = torch.randint(0, 10, (512,))
train_loader = DataLoader(TensorDataset(images), batch_size=args.batch_size, shuffle=True, drop_last=True)
probe_loader = DataLoader(TensorDataset(images, labels), batch_size=128, shuffle=False)

model = SimCLR(Encoder(), args.proj_dim).to(device)
base_lr = args.lr * args.batch_size / 256
optimizer = torch.optim.SGD(model.parameters(), lr=base_lr, momentum=0.9, weight_decay=1e-6)

total_steps = args.epochs * len(train_loader)
warmup_steps = args.warmup_epochs * len(train_loader)
global_step = 0
loss_history = []

for epoch in range(args.epochs):
    model.train()
    epoch_loss = 0.0
    for (x,) in train_loader:
        x = x.to(device)
        lr = get_lr(global_step, total_steps, warmup_steps, base_lr)
        for g in optimizer.param_groups:
            g['lr'] = lr
        x1, x2 = augment(x), augment(x)
        z1, z2 = model(x1), model(x2)
        loss = nt_xent(z1, z2, args.temperature)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        global_step += 1
    epoch_loss /= len(train_loader)
    loss_history.append(epoch_loss)
    print(f'Epoch {epoch + 1}/{args.epochs} | loss {epoch_loss:.4f} | lr {lr:.5f}')
    if (epoch + 1) % args.save_every == 0:
        torch.save({'epoch': epoch + 1, 'model': model.state_dict(), 'optimizer': optimizer.state_dict()},
                   os.path.join(args.out_dir, f'checkpoint_{epoch + 1:04d}.pth.tar'))


# linear probe on frozen encoder features
@torch.no_grad()
def extract(encoder, loader):
    encoder.eval()
    feats, ys = [], []
    for x, y in loader:
        feats.append(encoder(x.to(device)).cpu())
        ys.append(y)
    return torch.cat(feats), torch.cat(ys)


feats, ys = extract(model.encoder, probe_loader)
clf = nn.Linear(feats.size(1), 10)
clf_opt = torch.optim.Adam(clf.parameters(), lr=1e-2)
for it in range(100):
    clf_opt.zero_grad()
    probe_loss = F.cross_entropy(clf(feats), ys)
    probe_loss.backward()
    clf_opt.step()
acc = (clf(feats).argmax(1) == ys).float().mean().item()
print(f'linear probe: loss {probe_loss.item():.4f} acc {100 * acc:.2f}%')
torch.save(loss_history, os.path.join(args.out_dir, 'loss_history.pt'))
