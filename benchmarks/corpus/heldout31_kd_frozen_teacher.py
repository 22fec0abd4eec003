# corpus: knowledge distillation repo train.py — teacher trained then frozen, student on KL(T) * T^2 + CE, cosine schedule, eval helper
import argparse
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def set_seed(seed=0):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class MLP(nn.Module):
    def __init__(self, width, depth, n_cls=5):
        super().__init__()
        layers, d = [], 20
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.ReLU(), nn.Dropout(0.1)]
            d = width
        layers.append(nn.Linear(d, n_cls))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class DistillLoss(nn.Module):
    def __init__(self, T=4.0, alpha=0.7):
        super().__init__()
        self.T = T
        self.alpha = alpha

    def forward(self, s_logits, t_logits, y):
        kd = F.kl_div(F.log_softmax(s_logits / self.T, dim=1), F.softmax(t_logits / self.T, dim=1),
                      reduction="batchmean") * (self.T ** 2)
        ce = F.cross_entropy(s_logits, y)
        return self.alpha * kd + (1 - self.alpha) * ce


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    loss_sum = 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss_sum += F.cross_entropy(out, y, reduction="sum").item()
        correct += (out.argmax(1) == y).sum().item()
        total += y.size(0)
    return loss_sum / total, correct / total


def train_teacher(teacher, loader, device, epochs):
    opt = torch.optim.SGD(teacher.parameters(), lr=0.1, momentum=0.9)
    for ep in range(epochs):
        teacher.train()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            opt.zero_grad()
            loss = F.cross_entropy(teacher(x), y)
            loss.backward()
            opt.step()
        print(f"[teacher] epoch {ep} loss {loss.item():.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--teacher_epochs", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--T", type=float, default=4.0)
    parser.add_argument("--alpha", type=float, default=0.7)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--out_dir", default="kd_runs")
    args = parser.parse_args([])

    set_seed(0)
    os.makedirs(args.out_dir, exist_ok=True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    W = torch.randn(20, 5)
    X = torch.randn(600, 20)
    Y = (X @ W + 0.3 * torch.randn(600, 5)).argmax(1)
    train_loader = DataLoader(TensorDataset(X[:480], Y[:480]), batch_size=48, shuffle=True)
    val_loader = DataLoader(TensorDataset(X[480:], Y[480:]), batch_size=60)

    teacher = MLP(128, 3).to(device)
    train_teacher(teacher, train_loader, device, args.teacher_epochs)
    t_loss, t_acc = evaluate(teacher, val_loader, device)
    print(f"teacher val loss {t_loss:.4f} acc {t_acc:.4f}")
    teacher.eval()
    for p in teacher.parameters():
        p.requires_grad = False

    student = MLP(16, 1).to(device)
    criterion = DistillLoss(args.T, args.alpha)
    optimizer = torch.optim.SGD(student.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    best_acc = 0.0
    for epoch in range(args.epochs):
        student.train()
        running = 0.0
        for i, (x, y) in enumerate(train_loader):
            x, y = x.to(device), y.to(device)
            with torch.no_grad():
                t_logits = teacher(x)
            s_logits = student(x)
            loss = criterion(s_logits, t_logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
        scheduler.step()
        val_loss, val_acc = evaluate(student, val_loader, device)
        print(f"epoch {epoch + 1}/{args.epochs} kd_loss {running / len(train_loader):.4f} "
              f"val_loss {val_loss:.4f} val_acc {val_acc:.4f} lr {scheduler.get_last_lr()[0]:.5f}")
        if val_acc > best_acc:
            best_acc = val_acc
            torch.save({"epoch": epoch, "model": student.state_dict(), "optimizer": optimizer.state_dict(),
                        "best_acc": best_acc}, os.path.join(args.out_dir, "student_best.pth"))
    print(f"best student acc {best_acc:.4f} (teacher {t_acc:.4f})")


if __name__ == "__main__":
    main()
