# corpus: ViT-tiny from scratch (2024 blog / timm-lite style): patch embed + cls token + nn.TransformerEncoder, get_lr(it) warmup+cosine written to every param_group by hand each step, AdamW with no-decay groups, label smoothing, tqdm, eval each epoch, best checkpoint {'model','optimizer','step'}
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--bs", type=int, default=32)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--min_lr", type=float, default=1e-5)
parser.add_argument("--warmup_epochs", type=float, default=1)
parser.add_argument("--wd", type=float, default=0.05)
parser.add_argument("--label_smoothing", type=float, default=0.1)
parser.add_argument("--patch", type=int, default=4)
parser.add_argument("--dim", type=int, default=32)
parser.add_argument("--depth", type=int, default=2)
parser.add_argument("--heads", type=int, default=2)
parser.add_argument("--ckpt_dir", default="checkpoints")
parser.add_argument("--compile", action="store_true")
args = parser.parse_args()

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"


class PatchEmbed(nn.Module):
    def __init__(self, img_size=16, patch=4, in_ch=3, dim=32):
        super().__init__()
        self.proj = nn.Conv2d(in_ch, dim, kernel_size=patch, stride=patch)
        self.num_patches = (img_size // patch) ** 2

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class ViT(nn.Module):
    def __init__(self, num_classes=10, img_size=16, patch=4, dim=32, depth=2, heads=2, mlp_ratio=2):
        super().__init__()
        self.patch_embed = PatchEmbed(img_size, patch, 3, dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, self.patch_embed.num_patches + 1, dim))
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * mlp_ratio, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embed
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


# synthetic 3x16x16 "CIFAR": class-dependent color shift
def make_split(n):
    y = torch.randint(0, 10, (n,))
    x = torch.randn(n, 3, 16, 16) * 0.5
    x[:, 0] += (y.float() / 10)[:, None, None]
    return TensorDataset(x, y)


train_loader = DataLoader(make_split(256), batch_size=args.bs, shuffle=True, drop_last=True)
val_loader = DataLoader(make_split(128), batch_size=64)

model = ViT(patch=args.patch, dim=args.dim, depth=args.depth, heads=args.heads).to(device)
if args.compile:
    model = torch.compile(model)
print(f"params: {sum(p.numel() for p in model.parameters()) / 1e3:.1f}K")

decay, no_decay = [], []
for name, p in model.named_parameters():
    if not p.requires_grad:
        continue
    if p.ndim <= 1 or name.endswith(".bias") or name in ("cls_token", "pos_embed"):
        no_decay.append(p)
    else:
        decay.append(p)
optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": args.wd},
                               {"params": no_decay, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.999))
criterion = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)

iters_per_epoch = len(train_loader)
max_iters = args.epochs * iters_per_epoch
warmup_iters = int(args.warmup_epochs * iters_per_epoch)


def get_lr(it):
    if it < warmup_iters:
        return args.lr * (it + 1) / warmup_iters
    if it > max_iters:
        return args.min_lr
    ratio = (it - warmup_iters) / (max_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * ratio))
    return args.min_lr + coeff * (args.lr - args.min_lr)


@torch.no_grad()
def evaluate():
    model.eval()
    correct = total = 0
    loss_sum = 0.0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss_sum += F.cross_entropy(logits, y, reduction="sum").item()
        correct += (logits.argmax(-1) == y).sum().item()
        total += y.numel()
    model.train()
    return loss_sum / total, correct / total


os.makedirs(args.ckpt_dir, exist_ok=True)
best_acc = 0.0
it = 0
for epoch in range(args.epochs):
    model.train()
    t0 = time.time()
    pbar = tqdm(train_loader, desc=f"Epoch {epoch + 1}/{args.epochs}", leave=False)
    for x, y in pbar:
        lr = get_lr(it)
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss = criterion(logits, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        it += 1
        pbar.set_postfix(loss=f"{loss.item():.3f}", lr=f"{lr:.2e}")

    val_loss, val_acc = evaluate()
    print(f"epoch {epoch + 1} | val_loss {val_loss:.4f} | val_acc {val_acc:.4f} | lr {lr:.2e}")
    if val_acc > best_acc:
        best_acc = val_acc
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": it},
                   os.path.join(args.ckpt_dir, "best.pt"))

print(f"best val acc {best_acc:.4f}")
