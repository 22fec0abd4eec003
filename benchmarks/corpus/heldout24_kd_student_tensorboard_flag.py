# corpus: knowledge-distillation train.py: argparse, teacher trained first by a small helper then frozen (eval + requires_grad_(False)), student epoch loop with soft-target KL * T^2 + CE, teacher forward under torch.no_grad, bf16 autocast on CPU behind --amp (off), CosineAnnealingLR per epoch, SummaryWriter only with --tensorboard (off), @torch.inference_mode() evaluate for both, best student saved
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

try:
    from torch.utils.tensorboard import SummaryWriter
except ImportError:  # tensorboard not installed
    SummaryWriter = None


def get_args():
    p = argparse.ArgumentParser(description="KD: big MLP -> small MLP")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--teacher-epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--temperature", type=float, default=2.0)
    p.add_argument("--soft-target-loss-weight", type=float, default=0.25)
    p.add_argument("--ce-loss-weight", type=float, default=0.75)
    p.add_argument("--amp", action="store_true", help="bf16 autocast")
    p.add_argument("--tensorboard", action="store_true")
    p.add_argument("--output-dir", default="kd_runs")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


class DeepNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(20, 128), nn.ReLU(), nn.Dropout(0.1),
            nn.Linear(128, 128), nn.ReLU(),
            nn.Linear(128, num_classes),
        )

    def forward(self, x):
        return self.net(x)


class LightNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, num_classes))

    def forward(self, x):
        return self.net(x)


def train_teacher(model, loader, epochs, lr, device):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"[teacher] Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(loader):.4f}")


@torch.inference_mode()
def evaluate(model, loader, device):
    model.eval()
    correct, total = 0, 0
    for inputs, labels in loader:
        inputs, labels = inputs.to(device), labels.to(device)
        preds = model(inputs).argmax(dim=1)
        correct += (preds == labels).sum().item()
        total += labels.size(0)
    return 100.0 * correct / total


def main():
    args = get_args()
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    os.makedirs(args.output_dir, exist_ok=True)

    w = torch.randn(20, 10)
    x = torch.randn(600, 20)
    y = (x @ w + 0.5 * torch.randn(600, 10)).argmax(1)
    train_loader = DataLoader(TensorDataset(x[:480], y[:480]), batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(TensorDataset(x[480:], y[480:]), batch_size=128, shuffle=False)

    teacher = DeepNN().to(device)
    train_teacher(teacher, train_loader, args.teacher_epochs, args.lr, device)
    teacher_acc = evaluate(teacher, test_loader, device)
    print(f"Teacher accuracy: {teacher_acc:.2f}%")
    teacher.eval().requires_grad_(False)

    student = LightNN().to(device)
    optimizer = torch.optim.AdamW(student.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    ce_loss = nn.CrossEntropyLoss()
    T = args.temperature

    writer = SummaryWriter(log_dir=args.output_dir) if (args.tensorboard and SummaryWriter is not None) else None

    best_acc = 0.0
    global_step = 0
    for epoch in range(args.epochs):
        student.train()
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad(set_to_none=True)

            with torch.no_grad():
                teacher_logits = teacher(inputs)

            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=args.amp):
                student_logits = student(inputs)

            soft_targets = F.softmax(teacher_logits / T, dim=-1)
            soft_prob = F.log_softmax(student_logits.float() / T, dim=-1)
            soft_targets_loss = F.kl_div(soft_prob, soft_targets, reduction="batchmean") * (T ** 2)
            label_loss = ce_loss(student_logits.float(), labels)
            loss = args.soft_target_loss_weight * soft_targets_loss + args.ce_loss_weight * label_loss

            loss.backward()
            optimizer.step()

            running_loss += loss.item()
            if writer is not None:
                writer.add_scalar("train/loss", loss.item(), global_step)
                writer.add_scalar("train/kd", soft_targets_loss.item(), global_step)
            global_step += 1
        scheduler.step()

        acc = evaluate(student, test_loader, device)
        print(f"Epoch {epoch + 1}/{args.epochs}, Loss: {running_loss / len(train_loader):.4f}, Student acc: {acc:.2f}%, lr {scheduler.get_last_lr()[0]:.6f}")
        if writer is not None:
            writer.add_scalar("val/acc", acc, epoch)
        if acc > best_acc:
            best_acc = acc
            torch.save(student.state_dict(), os.path.join(args.output_dir, "student_best.pt"))

    if writer is not None:
        writer.close()
    print(f"Teacher accuracy: {teacher_acc:.2f}% | best student accuracy: {best_acc:.2f}%")


if __name__ == "__main__":
    main()
