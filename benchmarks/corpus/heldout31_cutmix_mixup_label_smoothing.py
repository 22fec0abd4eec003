# corpus: CIFAR-style augmentation-paper train.py — mixup or cutmix chosen per batch (np.random.beta), label smoothing CE, warmup+cosine LambdaLR per step, AMP on CUDA only
import argparse
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


def get_args():
    p = argparse.ArgumentParser("mixup / cutmix")
    p.add_argument("--epochs", default=4, type=int)
    p.add_argument("--batch_size", default=32, type=int)
    p.add_argument("--lr", default=0.1, type=float)
    p.add_argument("--warmup_steps", default=6, type=int)
    p.add_argument("--alpha", default=1.0, type=float)
    p.add_argument("--cutmix_prob", default=0.5, type=float)
    p.add_argument("--smoothing", default=0.1, type=float)
    p.add_argument("--out_dir", default="./output")
    p.add_argument("--seed", default=0, type=int)
    return p.parse_known_args()[0]


def rand_bbox(size, lam):
    W, H = size[2], size[3]
    cut_rat = np.sqrt(1. - lam)
    cut_w, cut_h = int(W * cut_rat), int(H * cut_rat)
    cx, cy = np.random.randint(W), np.random.randint(H)
    bbx1, bby1 = np.clip(cx - cut_w // 2, 0, W), np.clip(cy - cut_h // 2, 0, H)
    bbx2, bby2 = np.clip(cx + cut_w // 2, 0, W), np.clip(cy + cut_h // 2, 0, H)
    return bbx1, bby1, bbx2, bby2


def mix_batch(x, y, alpha, cutmix_prob):
    lam = np.random.beta(alpha, alpha)
    index = torch.randperm(x.size(0), device=x.device)
    if np.random.rand() < cutmix_prob:
        bbx1, bby1, bbx2, bby2 = rand_bbox(x.size(), lam)
        x = x.clone()
        x[:, :, bbx1:bbx2, bby1:bby2] = x[index, :, bbx1:bbx2, bby1:bby2]
        lam = 1 - ((bbx2 - bbx1) * (bby2 - bby1) / (x.size(-1) * x.size(-2)))
    else:
        x = lam * x + (1 - lam) * x[index]
    return x, y, y[index], lam


class SmallResNet(nn.Module):
    def __init__(self, n_cls=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.block = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                                   nn.Conv2d(16, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16))
        self.head = nn.Linear(16, n_cls)

    def forward(self, x):
        x = self.stem(x)
        x = F.relu(x + self.block(x))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    correct, n = 0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(1) == y).sum().item()
        n += y.numel()
    return 100. * correct / n


def main():
    args = get_args()
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    os.makedirs(args.out_dir, exist_ok=True)
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    use_amp = device.type == 'cuda'

    x = torch.randn(320, 3, 16, 16)
    y = torch.randint(0, 10, (320,))
    x += F.one_hot(y, 10).float()[:, :3, None, None]  # weak class signal
    train_loader = DataLoader(TensorDataset(x[:256], y[:256]), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[256:], y[256:]), batch_size=64)

    model = SmallResNet().to(device)
    criterion = nn.CrossEntropyLoss(label_smoothing=args.smoothing)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True, weight_decay=5e-4)
    total_steps = args.epochs * len(train_loader)

    def lr_lambda(step):
        if step < args.warmup_steps:
            return (step + 1) / args.warmup_steps
        progress = (step - args.warmup_steps) / max(1, total_steps - args.warmup_steps)
        return 0.5 * (1 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)

    best_acc = 0.
    for epoch in range(args.epochs):
        model.train()
        train_loss = 0.
        for inputs, targets in tqdm(train_loader, desc=f'Epoch {epoch}', leave=False):
            inputs, targets = inputs.to(device), targets.to(device)
            inputs, targets_a, targets_b, lam = mix_batch(inputs, targets, args.alpha, args.cutmix_prob)
            with torch.autocast(device_type=device.type, enabled=use_amp):
                outputs = model(inputs)
                loss = lam * criterion(outputs, targets_a) + (1 - lam) * criterion(outputs, targets_b)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            train_loss += loss.item()
        acc = validate(model, val_loader, device)
        print(f'Epoch {epoch}: train_loss={train_loss / len(train_loader):.4f} val_acc={acc:.2f} '
              f'lr={optimizer.param_groups[0]["lr"]:.5f}')
        is_best = acc > best_acc
        best_acc = max(acc, best_acc)
        ckpt = {'epoch': epoch + 1, 'model': model.state_dict(), 'optimizer': optimizer.state_dict(),
                'scheduler': scheduler.state_dict(), 'best_acc': best_acc}
        torch.save(ckpt, os.path.join(args.out_dir, 'checkpoint.pth'))
        if is_best:
            torch.save(ckpt, os.path.join(args.out_dir, 'model_best.pth'))
    print(f'Best val acc: {best_acc:.2f}')


if __name__ == '__main__':
    main()
