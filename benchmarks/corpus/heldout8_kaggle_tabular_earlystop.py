# corpus: Kaggle notebook tabular regression: numpy feature matrix, hand-written standard scaling, CFG class, train_one_epoch / valid_one_epoch returning mean losses, early stopping with a patience counter and break, best_loss + torch.save of the best, reload best and predict test
import os
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class CFG:
    seed = 42
    n_features = 12
    hidden = 64
    dropout = 0.1
    lr = 3e-3
    weight_decay = 1e-5
    epochs = 40
    patience = 5
    train_bs = 32
    valid_bs = 64
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def seed_everything(seed=42):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True


seed_everything(CFG.seed)

# ---- "read_csv" -------------------------------------------------------------
rng = np.random.RandomState(CFG.seed)
X_all = rng.normal(size=(600, CFG.n_features)).astype(np.float32) * rng.uniform(0.5, 20, CFG.n_features).astype(np.float32)
w_true = rng.normal(size=CFG.n_features).astype(np.float32)
y_all = (np.sin(X_all[:, 0] / 10) + X_all @ w_true / 50 + 0.1 * rng.normal(size=600)).astype(np.float32)
X_test = rng.normal(size=(100, CFG.n_features)).astype(np.float32) * 5

idx = rng.permutation(len(X_all))
tr_idx, va_idx = idx[:480], idx[480:]
X_train, y_train = X_all[tr_idx], y_all[tr_idx]
X_valid, y_valid = X_all[va_idx], y_all[va_idx]

# StandardScaler by hand
mean = X_train.mean(axis=0)
std = X_train.std(axis=0) + 1e-8
X_train = (X_train - mean) / std
X_valid = (X_valid - mean) / std
X_test = (X_test - mean) / std


class TabDataset(Dataset):
    def __init__(self, X, y=None):
        self.X = X
        self.y = y

    def __len__(self):
        return len(self.X)

    def __getitem__(self, idx):
        x = torch.tensor(self.X[idx], dtype=torch.float)
        if self.y is None:
            return x
        return x, torch.tensor(self.y[idx], dtype=torch.float)


class MLP(nn.Module):
    def __init__(self, n_in, hidden, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, hidden), nn.BatchNorm1d(hidden), nn.SiLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.SiLU(), nn.Dropout(dropout),
            nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def train_one_epoch(model, optimizer, criterion, dataloader, device):
    model.train()
    losses = []
    for X, y in dataloader:
        X, y = X.to(device), y.to(device)
        optimizer.zero_grad()
        preds = model(X)
        loss = criterion(preds, y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return np.mean(losses)


@torch.no_grad()
def valid_one_epoch(model, criterion, dataloader, device):
    model.eval()
    losses = []
    for X, y in dataloader:
        X, y = X.to(device), y.to(device)
        preds = model(X)
        losses.append(criterion(preds, y).item())
    return np.mean(losses)


train_loader = DataLoader(TabDataset(X_train, y_train), batch_size=CFG.train_bs, shuffle=True, drop_last=True)
valid_loader = DataLoader(TabDataset(X_valid, y_valid), batch_size=CFG.valid_bs, shuffle=False)
test_loader = DataLoader(TabDataset(X_test), batch_size=CFG.valid_bs, shuffle=False)

model = MLP(CFG.n_features, CFG.hidden, CFG.dropout).to(CFG.device)
optimizer = torch.optim.AdamW(model.parameters(), lr=CFG.lr, weight_decay=CFG.weight_decay)
criterion = nn.MSELoss()

best_loss = np.inf
counter = 0
for epoch in range(1, CFG.epochs + 1):
    train_loss = train_one_epoch(model, optimizer, criterion, train_loader, CFG.device)
    valid_loss = valid_one_epoch(model, criterion, valid_loader, CFG.device)
    print(f"Epoch {epoch:02d} | train_loss {train_loss:.5f} | valid_loss {valid_loss:.5f}")

    if valid_loss < best_loss:
        print(f"  Validation loss improved ({best_loss:.5f} ---> {valid_loss:.5f}), saving model")
        best_loss = valid_loss
        counter = 0
        torch.save(model.state_dict(), "best_model.pth")
    else:
        counter += 1
        if counter >= CFG.patience:
            print(f"  Early stopping at epoch {epoch}")
            break

# ---- inference --------------------------------------------------------------
model.load_state_dict(torch.load("best_model.pth"))
model.eval()
preds = []
with torch.no_grad():
    for X in test_loader:
        preds.append(model(X.to(CFG.device)).cpu().numpy())
preds = np.concatenate(preds)
np.savetxt("submission.csv", np.c_[np.arange(len(preds)), preds], delimiter=",", header="id,target", comments="", fmt=["%d", "%.6f"])
print("best valid RMSE: %.4f" % np.sqrt(best_loss))
print(preds[:5])
