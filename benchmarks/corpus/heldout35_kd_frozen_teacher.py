# corpus: knowledge distillation train.py (Hinton KD, blog / RepDistiller-lite): teacher trained first then frozen (eval + requires_grad False), student trained on T^2-scaled KL + CE with alpha, argparse, MultiStepLR, test() helper shared by both phases, checkpoints
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse():
    parser = argparse.ArgumentParser("KD")
    parser.add_argument("--teacher-epochs", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--T", type=float, default=4.0, help="temperature")
    parser.add_argument("--alpha", type=float, default=0.9, help="weight of the distillation term")
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


def teacher_net():
    return nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 4))


def student_net():
    return nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 4))


def distillation_loss(student_logits, teacher_logits, labels, T, alpha):
    soft = F.kl_div(F.log_softmax(student_logits / T, dim=1),
                    F.softmax(teacher_logits / T, dim=1), reduction="batchmean") * (T * T)
    hard = F.cross_entropy(student_logits, labels)
    return alpha * soft + (1.0 - alpha) * hard


def test(model, loader, device, name):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            correct += model(data).argmax(dim=1).eq(target).sum().item()
    acc = 100.0 * correct / len(loader.dataset)
    print(f"{name} test accuracy: {acc:.2f}%")
    return acc


def main():
    args = parse()
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    w = torch.randn(20, 4)
    X = torch.randn(640, 20)
    y = (X @ w + 0.5 * torch.randn(640, 4)).argmax(1)
    train_loader = DataLoader(TensorDataset(X[:512], y[:512]), batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(TensorDataset(X[512:], y[512:]), batch_size=128)

    # ---- 1. train the teacher ----
    teacher = teacher_net().to(device)
    t_opt = torch.optim.SGD(teacher.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    for epoch in range(args.teacher_epochs):
        teacher.train()
        for data, target in train_loader:
            data, target = data.to(device), target.to(device)
            t_opt.zero_grad()
            loss = F.cross_entropy(teacher(data), target)
            loss.backward()
            t_opt.step()
        print(f"teacher epoch {epoch} loss {loss.item():.4f}")
    test(teacher, test_loader, device, "teacher")
    torch.save(teacher.state_dict(), "teacher.pth")

    # ---- 2. distill into the student ----
    teacher.eval()
    for p in teacher.parameters():
        p.requires_grad = False

    student = student_net().to(device)
    optimizer = torch.optim.SGD(student.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2], gamma=0.1)
    best = 0.0
    for epoch in range(args.epochs):
        student.train()
        running = 0.0
        for i, (data, target) in enumerate(train_loader):
            data, target = data.to(device), target.to(device)
            with torch.no_grad():
                t_logits = teacher(data)
            s_logits = student(data)
            loss = distillation_loss(s_logits, t_logits, target, args.T, args.alpha)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
        scheduler.step()
        print(f"student epoch {epoch} kd loss {running / len(train_loader):.4f} lr {optimizer.param_groups[0]['lr']:.4f}")
        acc = test(student, test_loader, device, "student")
        if acc > best:
            best = acc
            torch.save({"model": student.state_dict(), "optimizer": optimizer.state_dict(), "step": (epoch + 1) * len(train_loader)}, "student_best.pth")
    print(f"best student acc {best:.2f}%")


if __name__ == "__main__":
    main()
