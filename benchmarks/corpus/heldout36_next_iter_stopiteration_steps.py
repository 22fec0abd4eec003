# corpus: iteration-based training with `data_iter = iter(train_loader)` and `try: x, y = next(data_iter) except StopIteration: data_iter = iter(train_loader); epoch += 1; x, y = next(data_iter)` each step of `for it in range(1, num_iters + 1)`, StepLR stepped per iteration, validation every `val_freq`, checkpoint dict (model, optimizer, scheduler, it) saved at the best, a small CNN on 1x12x12 images, `print` with flush
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

num_iters = 60
val_freq = 20
batch_size = 20
lr = 0.01
ckpt_dir = "checkpoints"


class SmallCNN(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 3 * 3, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def validate(model, loader):
    model.eval()
    correct = total = 0
    loss_sum = 0.0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            loss_sum += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            total += y.numel()
    model.train()
    return loss_sum / total, correct / total


if __name__ == "__main__":
    torch.manual_seed(2024)
    os.makedirs(ckpt_dir, exist_ok=True)
    train_set = TensorDataset(torch.randn(150, 1, 12, 12), torch.randint(0, 5, (150,)))
    val_set = TensorDataset(torch.randn(50, 1, 12, 12), torch.randint(0, 5, (50,)))
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=50, shuffle=False)

    model = SmallCNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=25, gamma=0.5)

    best_acc = -1.0
    epoch = 0
    data_iter = iter(train_loader)
    model.train()
    for it in range(1, num_iters + 1):
        try:
            x, y = next(data_iter)
        except StopIteration:
            data_iter = iter(train_loader)
            epoch += 1
            x, y = next(data_iter)

        out = model(x)
        loss = F.cross_entropy(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()

        if it % 10 == 0:
            print(f"[it {it}/{num_iters}] epoch {epoch} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.5f}", flush=True)

        if it % val_freq == 0:
            val_loss, val_acc = validate(model, val_loader)
            print(f"  val loss {val_loss:.4f} acc {val_acc:.3f}", flush=True)
            if val_acc > best_acc:
                best_acc = val_acc
                torch.save({
                    "it": it,
                    "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "best_acc": best_acc,
                }, os.path.join(ckpt_dir, "best.pth"))
    print("best acc", best_acc)
