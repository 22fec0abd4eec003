# corpus: Kaggle-style tabular notebook: hand-written KFold, `for fold, (tr_idx, va_idx) in enumerate(kfold.split(X))` building a model, optimizer and loaders per fold, best weights per fold, out-of-fold predictions
import os
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class CFG:
    seed = 2024
    n_folds = 4
    epochs = 3
    batch_size = 64
    lr = 3e-3
    weight_decay = 1e-5
    hidden = 64
    out_dir = "folds"


def seed_everything(seed):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class KFold:
    """Minimal stand-in for sklearn.model_selection.KFold(shuffle=True)."""

    def __init__(self, n_splits=5, shuffle=False, random_state=None):
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state

    def split(self, X):
        n = len(X)
        indices = np.arange(n)
        if self.shuffle:
            np.random.RandomState(self.random_state).shuffle(indices)
        fold_sizes = np.full(self.n_splits, n // self.n_splits, dtype=int)
        fold_sizes[: n % self.n_splits] += 1
        current = 0
        for size in fold_sizes:
            va_idx = indices[current:current + size]
            tr_idx = np.concatenate([indices[:current], indices[current + size:]])
            yield tr_idx, va_idx
            current += size


class TabularNet(nn.Module):
    def __init__(self, n_features, hidden):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Linear(n_features, hidden),
            nn.BatchNorm1d(hidden),
            nn.SiLU(),
            nn.Dropout(0.1),
            nn.Linear(hidden, hidden // 2),
            nn.SiLU(),
            nn.Linear(hidden // 2, 1),
        )

    def forward(self, x):
        return self.mlp(x).squeeze(-1)


def rmse(a, b):
    return float(np.sqrt(np.mean((a - b) ** 2)))


seed_everything(CFG.seed)
os.makedirs(CFG.out_dir, exist_ok=True)

# train.csv stand-in: 12 numeric features, a noisy nonlinear target
n_rows, n_features = 512, 12
X = np.random.randn(n_rows, n_features).astype(np.float32)
w = np.random.randn(n_features).astype(np.float32)
y = (X @ w + 0.5 * np.sin(X[:, 0] * 3) + 0.1 * np.random.randn(n_rows)).astype(np.float32)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
oof = np.zeros(n_rows, dtype=np.float32)
fold_scores = []

kfold = KFold(n_splits=CFG.n_folds, shuffle=True, random_state=CFG.seed)
for fold, (tr_idx, va_idx) in enumerate(kfold.split(X)):
    print(f"===== fold {fold} =====")
    train_ds = TensorDataset(torch.from_numpy(X[tr_idx]), torch.from_numpy(y[tr_idx]))
    valid_ds = TensorDataset(torch.from_numpy(X[va_idx]), torch.from_numpy(y[va_idx]))
    train_dl = DataLoader(train_ds, batch_size=CFG.batch_size, shuffle=True, drop_last=True)
    valid_dl = DataLoader(valid_ds, batch_size=CFG.batch_size * 2, shuffle=False)

    model = TabularNet(n_features, CFG.hidden).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=CFG.lr, weight_decay=CFG.weight_decay)
    criterion = nn.MSELoss()

    best_score = np.inf
    for epoch in range(CFG.epochs):
        model.train()
        train_loss = 0.0
        for xb, yb in train_dl:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            train_loss += loss.item() * len(xb)
        train_loss /= len(train_dl.dataset)

        model.eval()
        preds = []
        with torch.no_grad():
            for xb, _ in valid_dl:
                preds.append(model(xb.to(device)).cpu().numpy())
        preds = np.concatenate(preds)
        score = rmse(preds, y[va_idx])
        print(f"fold {fold} epoch {epoch}: train_loss {train_loss:.4f} valid_rmse {score:.4f}")

        if score < best_score:
            best_score = score
            oof[va_idx] = preds
            torch.save(model.state_dict(), os.path.join(CFG.out_dir, f"model_fold{fold}.pth"))

    fold_scores.append(best_score)
    print(f"fold {fold} best rmse {best_score:.4f}")

print(f"CV rmse per fold: {[round(s, 4) for s in fold_scores]}")
print(f"OOF rmse: {rmse(oof, y):.4f}")
np.save("oof.npy", oof)
