# corpus: Kaggle tabular kernel: CFG class, seed_everything, hand-rolled KFold, fresh model/optimizer/scheduler per fold, early stopping per fold, OOF + fold-averaged test preds, submission csv
import os
import random
import time
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader
from tqdm import tqdm


class CFG:
    seed = 2021
    n_folds = 4
    epochs = 8
    batch_size = 64
    lr = 3e-3
    weight_decay = 1e-5
    hidden = [128, 64]
    dropout = 0.2
    patience = 2
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    output_dir = "./"


def seed_everything(seed=42):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True


seed_everything(CFG.seed)

# ====================================================
# Data (stand-in for train.csv / test.csv)
# ====================================================
N_TRAIN, N_TEST, N_FEAT = 600, 200, 24
train_X = torch.randn(N_TRAIN, N_FEAT).numpy()
w_true = np.random.randn(N_FEAT)
logits = train_X @ w_true * 0.7 + np.sin(train_X[:, 0] * 3)
train_y = (logits + np.random.randn(N_TRAIN) * 0.5 > 0).astype(np.float32)
test_X = torch.randn(N_TEST, N_FEAT).numpy()

# standardize with the train statistics
mu, sd = train_X.mean(0), train_X.std(0) + 1e-6
train_X = ((train_X - mu) / sd).astype(np.float32)
test_X = ((test_X - mu) / sd).astype(np.float32)

# simple KFold (no sklearn on this kernel)
idx = np.random.permutation(N_TRAIN)
folds = np.zeros(N_TRAIN, dtype=int)
for f, chunk in enumerate(np.array_split(idx, CFG.n_folds)):
    folds[chunk] = f


class TabularDataset(Dataset):
    def __init__(self, X, y=None):
        self.X = X
        self.y = y

    def __len__(self):
        return len(self.X)

    def __getitem__(self, i):
        x = torch.tensor(self.X[i], dtype=torch.float)
        if self.y is None:
            return x
        return x, torch.tensor(self.y[i], dtype=torch.float)


# ====================================================
# Model
# ====================================================
class Model(nn.Module):
    def __init__(self, num_features, hidden, dropout):
        super(Model, self).__init__()
        layers = []
        d = num_features
        for h in hidden:
            layers += [nn.BatchNorm1d(d), nn.Dropout(dropout), nn.Linear(d, h), nn.SiLU()]
            d = h
        layers += [nn.BatchNorm1d(d), nn.Linear(d, 1)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x).squeeze(-1)


def roc_auc(y_true, y_score):
    order = np.argsort(y_score)
    ranks = np.empty_like(order, dtype=np.float64)
    ranks[order] = np.arange(1, len(y_score) + 1)
    pos = y_true == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


# ====================================================
# Train / valid functions
# ====================================================
def train_fn(model, optimizer, scheduler, loss_fn, dataloader, device):
    model.train()
    final_loss = 0
    for data, target in dataloader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        outputs = model(data)
        loss = loss_fn(outputs, target)
        loss.backward()
        optimizer.step()
        scheduler.step()
        final_loss += loss.item()
    final_loss /= len(dataloader)
    return final_loss


def valid_fn(model, loss_fn, dataloader, device):
    model.eval()
    final_loss = 0
    valid_preds = []
    for data, target in dataloader:
        data, target = data.to(device), target.to(device)
        outputs = model(data)
        loss = loss_fn(outputs, target)
        final_loss += loss.item()
        valid_preds.append(outputs.sigmoid().detach().cpu().numpy())
    final_loss /= len(dataloader)
    valid_preds = np.concatenate(valid_preds)
    return final_loss, valid_preds


def inference_fn(model, dataloader, device):
    model.eval()
    preds = []
    for data in dataloader:
        data = data.to(device)
        with torch.no_grad():
            outputs = model(data)
        preds.append(outputs.sigmoid().detach().cpu().numpy())
    return np.concatenate(preds)


# ====================================================
# K-fold loop
# ====================================================
def run_training(fold, seed):
    seed_everything(seed)
    trn_idx = np.where(folds != fold)[0]
    val_idx = np.where(folds == fold)[0]

    train_dataset = TabularDataset(train_X[trn_idx], train_y[trn_idx])
    valid_dataset = TabularDataset(train_X[val_idx], train_y[val_idx])
    trainloader = DataLoader(train_dataset, batch_size=CFG.batch_size, shuffle=True, drop_last=True)
    validloader = DataLoader(valid_dataset, batch_size=CFG.batch_size * 2, shuffle=False)

    model = Model(N_FEAT, CFG.hidden, CFG.dropout)
    model.to(CFG.device)

    optimizer = torch.optim.Adam(model.parameters(), lr=CFG.lr, weight_decay=CFG.weight_decay)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer=optimizer, pct_start=0.1, div_factor=1e3,
                                                    max_lr=1e-2, epochs=CFG.epochs, steps_per_epoch=len(trainloader))
    loss_fn = nn.BCEWithLogitsLoss()

    oof = np.zeros(len(val_idx))
    best_loss = np.inf
    early_step = 0

    for epoch in range(CFG.epochs):
        t0 = time.time()
        train_loss = train_fn(model, optimizer, scheduler, loss_fn, trainloader, CFG.device)
        valid_loss, valid_preds = valid_fn(model, loss_fn, validloader, CFG.device)
        print(f"FOLD: {fold}, EPOCH: {epoch}, train_loss: {train_loss:.5f}, valid_loss: {valid_loss:.5f}, "
              f"auc: {roc_auc(train_y[val_idx], valid_preds):.4f}")

        if valid_loss < best_loss:
            best_loss = valid_loss
            oof = valid_preds
            torch.save(model.state_dict(), os.path.join(CFG.output_dir, f"FOLD{fold}_.pth"))
            early_step = 0
        else:
            early_step += 1
            if early_step >= CFG.patience:
                print(f"  early stop at epoch {epoch}")
                break

    # --------------------- PREDICTION ---------------------
    testdataset = TabularDataset(test_X)
    testloader = DataLoader(testdataset, batch_size=CFG.batch_size * 2, shuffle=False)
    model = Model(N_FEAT, CFG.hidden, CFG.dropout)
    model.load_state_dict(torch.load(os.path.join(CFG.output_dir, f"FOLD{fold}_.pth")))
    model.to(CFG.device)
    predictions = inference_fn(model, testloader, CFG.device)
    return oof, val_idx, predictions


oof = np.zeros(N_TRAIN)
predictions = np.zeros(N_TEST)
for fold in tqdm(range(CFG.n_folds)):
    oof_, val_idx, pred_ = run_training(fold, CFG.seed + fold)
    oof[val_idx] = oof_
    predictions += pred_ / CFG.n_folds

cv_auc = roc_auc(train_y, oof)
cv_logloss = -np.mean(train_y * np.log(oof + 1e-7) + (1 - train_y) * np.log(1 - oof + 1e-7))
print(f"CV AUC: {cv_auc:.5f}  CV logloss: {cv_logloss:.5f}")

with open("oof.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["id", "fold", "target", "oof"])
    for i in range(N_TRAIN):
        w.writerow([i, folds[i], int(train_y[i]), f"{oof[i]:.6f}"])

with open("submission.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["id", "target"])
    for i, p in enumerate(predictions):
        w.writerow([i, f"{p:.6f}"])
print("saved submission.csv")
