# corpus: Medium "fraud detection with an autoencoder": dataclass config, train on normal rows only, tqdm epochs, best state by deepcopy, threshold = 99th percentile of validation reconstruction error, precision/recall/F1 on a mixed test set, threshold.json
import copy
import json
from dataclasses import dataclass, asdict

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


@dataclass
class Config:
    n_features: int = 30
    latent: int = 6
    batch_size: int = 64
    lr: float = 1e-3
    epochs: int = 10
    percentile: float = 99.0
    seed: int = 0


cfg = Config()
torch.manual_seed(cfg.seed)
np.random.seed(cfg.seed)

# ---------------------------------------------------------------------------
# Synthetic "transactions": normal rows lie near a low-dimensional manifold,
# frauds are off it.
# ---------------------------------------------------------------------------
basis = torch.randn(4, cfg.n_features)


def normal_rows(n):
    z = torch.randn(n, 4)
    return z @ basis + 0.1 * torch.randn(n, cfg.n_features)


def fraud_rows(n):
    return 1.5 * torch.randn(n, cfg.n_features)


X_train = normal_rows(1200)
X_val = normal_rows(300)
X_test = torch.cat([normal_rows(400), fraud_rows(40)])
y_test = torch.cat([torch.zeros(400), torch.ones(40)])

# standard scaling with train statistics
mean = X_train.mean(0, keepdim=True)
std = X_train.std(0, keepdim=True)
X_train = (X_train - mean) / std
X_val = (X_val - mean) / std
X_test = (X_test - mean) / std

train_loader = DataLoader(TensorDataset(X_train), batch_size=cfg.batch_size, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val), batch_size=256)
test_loader = DataLoader(TensorDataset(X_test, y_test), batch_size=256)


class Autoencoder(nn.Module):
    def __init__(self, n_features, latent):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(n_features, 16), nn.Tanh(),
            nn.Linear(16, latent), nn.ReLU(),
        )
        self.decoder = nn.Sequential(
            nn.Linear(latent, 16), nn.Tanh(),
            nn.Linear(16, n_features),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))


model = Autoencoder(cfg.n_features, cfg.latent)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=1e-5)


def reconstruction_errors(model, loader):
    """Per-row MSE."""
    model.eval()
    errs = []
    with torch.no_grad():
        for batch in loader:
            x = batch[0]
            recon = model(x)
            errs.append(((recon - x) ** 2).mean(dim=1))
    return torch.cat(errs).numpy()


history = {"train": [], "val": []}
best_loss = float("inf")
best_wts = copy.deepcopy(model.state_dict())

for epoch in tqdm(range(cfg.epochs), desc="epochs"):
    model.train()
    running = 0.0
    for (x,) in train_loader:
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, x)
        loss.backward()
        optimizer.step()
        running += loss.item() * x.size(0)
    train_loss = running / len(train_loader.dataset)

    val_loss = float(np.mean(reconstruction_errors(model, val_loader)))
    history["train"].append(train_loss)
    history["val"].append(val_loss)
    tqdm.write(f"epoch {epoch + 1:2d}  train {train_loss:.5f}  val {val_loss:.5f}")

    if val_loss < best_loss:
        best_loss = val_loss
        best_wts = copy.deepcopy(model.state_dict())

model.load_state_dict(best_wts)
print(f"best val reconstruction loss: {best_loss:.5f}")

# ---------------------------------------------------------------------------
# Pick the threshold on the (normal-only) validation errors
# ---------------------------------------------------------------------------
val_err = reconstruction_errors(model, val_loader)
threshold = float(np.percentile(val_err, cfg.percentile))
print(f"threshold ({cfg.percentile}th percentile of val error): {threshold:.5f}")

test_err = reconstruction_errors(model, test_loader)
y_true = y_test.numpy().astype(int)
y_pred = (test_err > threshold).astype(int)
tp = int(((y_pred == 1) & (y_true == 1)).sum())
fp = int(((y_pred == 1) & (y_true == 0)).sum())
fn = int(((y_pred == 0) & (y_true == 1)).sum())
tn = int(((y_pred == 0) & (y_true == 0)).sum())
precision = tp / (tp + fp) if tp + fp else 0.0
recall = tp / (tp + fn) if tp + fn else 0.0
f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
print(f"TP {tp} FP {fp} FN {fn} TN {tn}")
print(f"precision {precision:.3f} recall {recall:.3f} F1 {f1:.3f}")

torch.save(model.state_dict(), "autoencoder.pth")
with open("threshold.json", "w") as f:
    json.dump({"threshold": threshold, "config": asdict(cfg), "history": history,
               "test": {"precision": precision, "recall": recall, "f1": f1}}, f, indent=2)
