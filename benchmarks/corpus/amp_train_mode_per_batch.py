# corpus: model.train() at the top of every batch, zero_grad(set_to_none=True) after the step, torch.cuda.amp.GradScaler(enabled=use_amp) + autocast(enabled=use_amp), use_amp False on CPU, a quick eval every eval_every steps
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(7)

device = "cuda" if torch.cuda.is_available() else "cpu"
use_amp = device == "cuda"

num_epochs = 3
batch_size = 32
eval_every = 6
learning_rate = 2e-3


class SmallResBlockNet(nn.Module):
    def __init__(self, d_in=20, d_hidden=48, n_classes=5):
        super().__init__()
        self.inp = nn.Linear(d_in, d_hidden)
        self.block = nn.Sequential(nn.LayerNorm(d_hidden), nn.Linear(d_hidden, d_hidden), nn.GELU(), nn.Dropout(0.2))
        self.head = nn.Linear(d_hidden, n_classes)

    def forward(self, x):
        h = self.inp(x)
        h = h + self.block(h)
        return self.head(h)


x_train = torch.randn(480, 20)
y_train = (x_train[:, :5].argmax(dim=1) + (torch.rand(480) < 0.1).long()) % 5
x_val = torch.randn(128, 20)
y_val = x_val[:, :5].argmax(dim=1)

train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=batch_size, shuffle=True)
val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=64)

model = SmallResBlockNet().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
scaler = torch.cuda.amp.GradScaler(enabled=use_amp)


@torch.no_grad()
def quick_eval():
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    for xb, yb in val_loader:
        xb, yb = xb.to(device), yb.to(device)
        logits = model(xb)
        loss_sum += F.cross_entropy(logits, yb, reduction="sum").item()
        correct += (logits.argmax(1) == yb).sum().item()
        total += yb.numel()
    return loss_sum / total, correct / total


step = 0
for epoch in range(num_epochs):
    for xb, yb in train_loader:
        model.train()
        xb = xb.to(device, non_blocking=True)
        yb = yb.to(device, non_blocking=True)

        with torch.autocast(device_type=device, dtype=torch.float16, enabled=use_amp):
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)

        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        step += 1

        if step % eval_every == 0:
            val_loss, val_acc = quick_eval()
            print(f"epoch {epoch} step {step}: train loss {loss.item():.4f} | val loss {val_loss:.4f} acc {val_acc:.3f}")

torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scaler": scaler.state_dict()}, "last.pt")
print("final", quick_eval())
