# corpus: keyword-spotting repo: config dict, synthetic log-mel "speech commands", SpecAugment masks drawn per batch in the loop, BN CNN, label smoothing, CosineAnnealingLR, jsonl metrics, full checkpoint, confusion matrix
import json
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

config = {
    "seed": 1234,
    "keywords": ["yes", "no", "up", "down", "left", "right", "_silence_", "_unknown_"],
    "n_mels": 20,
    "n_frames": 32,
    "train_per_class": 40,
    "valid_per_class": 10,
    "batch_size": 32,
    "epochs": 6,
    "lr": 2e-3,
    "weight_decay": 1e-4,
    "label_smoothing": 0.1,
    "freq_mask": 4,
    "time_mask": 6,
    "exp_dir": "runs/kws",
}
torch.manual_seed(config["seed"])
os.makedirs(config["exp_dir"], exist_ok=True)
device = "cuda" if torch.cuda.is_available() else "cpu"


def synth_spectrograms(n_per_class, n_classes, n_mels, n_frames):
    """Each keyword is a formant-like band pattern that moves over time, plus noise."""
    feats, labels = [], []
    mel = torch.arange(n_mels).float().view(n_mels, 1)
    frames = torch.arange(n_frames).float().view(1, n_frames)
    for c in range(n_classes):
        for _ in range(n_per_class):
            start = torch.randint(0, n_frames // 3, (1,)).item()
            length = torch.randint(n_frames // 3, n_frames // 2, (1,)).item()
            center = 3 + (c * 2) % (n_mels - 6) + 0.15 * (frames - start) * (1 if c % 2 else -1)
            env = ((frames >= start) & (frames < start + length)).float()
            spec = torch.exp(-0.5 * ((mel - center) / 1.5) ** 2) * env
            if c == 6:  # silence
                spec = spec * 0
            spec = torch.log(spec + 0.05 + 0.05 * torch.rand(n_mels, n_frames))
            feats.append(spec)
            labels.append(c)
    return torch.stack(feats).unsqueeze(1), torch.tensor(labels)


n_classes = len(config["keywords"])
x_train, y_train = synth_spectrograms(config["train_per_class"], n_classes, config["n_mels"], config["n_frames"])
x_valid, y_valid = synth_spectrograms(config["valid_per_class"], n_classes, config["n_mels"], config["n_frames"])

# global mean/var normalisation (computed on train)
mean, std = x_train.mean(), x_train.std()
x_train = (x_train - mean) / std
x_valid = (x_valid - mean) / std

train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=config["batch_size"], shuffle=True, drop_last=True)
valid_loader = DataLoader(TensorDataset(x_valid, y_valid), batch_size=64)
print(f"train {len(x_train)} clips, valid {len(x_valid)} clips, {n_classes} keywords")


def spec_augment(x, F_=4, T_=6):
    """One frequency mask and one time mask per example (SpecAugment, no warping)."""
    B, _, n_mels, n_frames = x.shape
    x = x.clone()
    for b in range(B):
        f = torch.randint(0, F_ + 1, (1,)).item()
        f0 = torch.randint(0, n_mels - f + 1, (1,)).item()
        x[b, :, f0:f0 + f, :] = 0
        t = torch.randint(0, T_ + 1, (1,)).item()
        t0 = torch.randint(0, n_frames - t + 1, (1,)).item()
        x[b, :, :, t0:t0 + t] = 0
    return x


class KWSNet(nn.Module):
    def __init__(self, n_classes, width=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(width, width * 2, 3, padding=1), nn.BatchNorm2d(width * 2), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(width * 2, width * 2, 3, padding=1), nn.BatchNorm2d(width * 2), nn.ReLU(),
        )
        self.dropout = nn.Dropout(0.3)
        self.fc = nn.Linear(width * 2, n_classes)

    def forward(self, x):
        x = self.features(x)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(self.dropout(x))


model = KWSNet(n_classes).to(device)
print("params:", sum(p.numel() for p in model.parameters() if p.requires_grad))
criterion = nn.CrossEntropyLoss(label_smoothing=config["label_smoothing"])
optimizer = torch.optim.AdamW(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=config["epochs"])

log_path = os.path.join(config["exp_dir"], "metrics.jsonl")
open(log_path, "w").close()
best_acc = 0.0

for epoch in range(config["epochs"]):
    tic = time.time()
    model.train()
    n_seen, loss_sum, correct = 0, 0.0, 0
    for i, (spec, label) in enumerate(train_loader):
        spec, label = spec.to(device), label.to(device)
        spec = spec_augment(spec, config["freq_mask"], config["time_mask"])
        logits = model(spec)
        loss = criterion(logits, label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        n_seen += label.size(0)
        loss_sum += loss.item() * label.size(0)
        correct += (logits.argmax(1) == label).sum().item()
    scheduler.step()

    model.eval()
    v_correct, v_total, v_loss = 0, 0, 0.0
    confusion = torch.zeros(n_classes, n_classes, dtype=torch.long)
    with torch.no_grad():
        for spec, label in valid_loader:
            spec, label = spec.to(device), label.to(device)
            logits = model(spec)
            v_loss += F.cross_entropy(logits, label, reduction="sum").item()
            pred = logits.argmax(1)
            v_correct += (pred == label).sum().item()
            v_total += label.size(0)
            for t_, p_ in zip(label.view(-1), pred.view(-1)):
                confusion[t_.long(), p_.long()] += 1
    val_acc = v_correct / v_total
    record = {
        "epoch": epoch + 1,
        "lr": scheduler.get_last_lr()[0],
        "train_loss": round(loss_sum / n_seen, 5),
        "train_acc": round(correct / n_seen, 4),
        "valid_loss": round(v_loss / v_total, 5),
        "valid_acc": round(val_acc, 4),
    }
    with open(log_path, "a") as f:
        f.write(json.dumps(record) + "\n")
    print(" | ".join(f"{k} {v}" for k, v in record.items()), f"({time.time() - tic:.1f}s)")

    if val_acc > best_acc:
        best_acc = val_acc
        torch.save({"epoch": epoch + 1, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "config": config, "best_acc": best_acc},
                   os.path.join(config["exp_dir"], "best.ckpt"))

print(f"best valid acc {best_acc:.4f}")
print("confusion matrix (last epoch, rows = truth):")
for name, row in zip(config["keywords"], confusion.tolist()):
    print(f"{name:>10s}", " ".join(f"{v:3d}" for v in row))
