# corpus: Kaggle-grandmaster-style project squeezed into one file: config module as a class of constants, hand-written roc_auc_score, Dataset returning dicts, Engine class with @staticmethod loss_fn and train(data_loader)/evaluate(data_loader) methods, EarlyStopping class saving best.pth by AUC, tqdm over loaders, set_seed(seed) helper, run(fold) over 2 folds
import os
import random

import numpy as np
import torch
import torch.nn as nn
from tqdm import tqdm


def roc_auc_score(targets, preds):
    # sklearn is not installed on the kaggle-like box we copied this to, so: rank-based AUC
    t = np.asarray(targets)
    order = np.argsort(preds, kind="mergesort")
    ranks = np.empty(len(preds))
    ranks[order] = np.arange(1, len(preds) + 1)
    n_pos = t.sum()
    n_neg = len(t) - n_pos
    return (ranks[t == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


class config:
    SEED = 42
    DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
    TRAIN_BATCH_SIZE = 32
    VALID_BATCH_SIZE = 64
    EPOCHS = 4
    LR = 3e-3
    N_FEATURES = 12
    MODEL_DIR = "models"


def set_seed(seed=42):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True


class TabularDataset:
    def __init__(self, features, targets):
        self.features = features
        self.targets = targets

    def __len__(self):
        return self.features.shape[0]

    def __getitem__(self, item):
        return {
            "x": torch.tensor(self.features[item, :], dtype=torch.float),
            "y": torch.tensor(self.targets[item], dtype=torch.float),
        }


class Model(nn.Module):
    def __init__(self, num_features, hidden_size=64, dropout=0.2):
        super().__init__()
        self.model = nn.Sequential(
            nn.Linear(num_features, hidden_size),
            nn.BatchNorm1d(hidden_size),
            nn.Dropout(dropout),
            nn.ReLU(),
            nn.Linear(hidden_size, 1),
        )

    def forward(self, x):
        return self.model(x)


class Engine:
    def __init__(self, model, optimizer, device):
        self.model = model
        self.optimizer = optimizer
        self.device = device

    @staticmethod
    def loss_fn(targets, outputs):
        return nn.BCEWithLogitsLoss()(outputs, targets.view(-1, 1))

    def train(self, data_loader):
        self.model.train()
        final_loss = 0
        for data in tqdm(data_loader, total=len(data_loader), disable=True):
            self.optimizer.zero_grad()
            inputs = data["x"].to(self.device)
            targets = data["y"].to(self.device)
            outputs = self.model(inputs)
            loss = self.loss_fn(targets, outputs)
            loss.backward()
            self.optimizer.step()
            final_loss += loss.item()
        return final_loss / len(data_loader)

    def evaluate(self, data_loader):
        self.model.eval()
        final_loss = 0
        fin_targets, fin_outputs = [], []
        with torch.no_grad():
            for data in data_loader:
                inputs = data["x"].to(self.device)
                targets = data["y"].to(self.device)
                outputs = self.model(inputs)
                loss = self.loss_fn(targets, outputs)
                final_loss += loss.item()
                fin_targets.extend(targets.cpu().numpy().tolist())
                fin_outputs.extend(torch.sigmoid(outputs).cpu().numpy().ravel().tolist())
        return final_loss / len(data_loader), fin_targets, fin_outputs


class EarlyStopping:
    def __init__(self, patience=7, mode="max", delta=0.0001):
        self.patience = patience
        self.counter = 0
        self.mode = mode
        self.best_score = None
        self.early_stop = False
        self.delta = delta
        self.val_score = -np.inf if mode == "max" else np.inf

    def __call__(self, epoch_score, model, model_path):
        score = np.copy(epoch_score) if self.mode == "max" else -1.0 * epoch_score
        if self.best_score is None:
            self.best_score = score
            self.save_checkpoint(epoch_score, model, model_path)
        elif score < self.best_score + self.delta:
            self.counter += 1
            print("EarlyStopping counter: {} out of {}".format(self.counter, self.patience))
            if self.counter >= self.patience:
                self.early_stop = True
        else:
            self.best_score = score
            self.save_checkpoint(epoch_score, model, model_path)
            self.counter = 0

    def save_checkpoint(self, epoch_score, model, model_path):
        if epoch_score not in [-np.inf, np.inf, -np.nan, np.nan]:
            print("Validation score improved ({} --> {}). Saving model!".format(self.val_score, epoch_score))
            torch.save(model.state_dict(), model_path)
        self.val_score = epoch_score


def make_folds(n=400, n_folds=2):
    rng = np.random.RandomState(config.SEED)
    X = rng.randn(n, config.N_FEATURES).astype(np.float32)
    w = rng.randn(config.N_FEATURES)
    y = ((X @ w + 0.5 * rng.randn(n)) > 0).astype(np.float32)
    kfold = rng.permutation(n) % n_folds
    return X, y, kfold


def run(fold, X, y, kfold):
    train_idx = np.where(kfold != fold)[0]
    valid_idx = np.where(kfold == fold)[0]

    train_dataset = TabularDataset(X[train_idx], y[train_idx])
    valid_dataset = TabularDataset(X[valid_idx], y[valid_idx])
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=config.TRAIN_BATCH_SIZE, shuffle=True)
    valid_loader = torch.utils.data.DataLoader(valid_dataset, batch_size=config.VALID_BATCH_SIZE)

    model = Model(num_features=config.N_FEATURES)
    model.to(config.DEVICE)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.LR)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", patience=1, factor=0.5)

    eng = Engine(model, optimizer, device=config.DEVICE)
    es = EarlyStopping(patience=2, mode="max")
    model_path = os.path.join(config.MODEL_DIR, f"best_fold{fold}.pth")

    for epoch in range(config.EPOCHS):
        train_loss = eng.train(train_loader)
        valid_loss, targets, preds = eng.evaluate(valid_loader)
        auc = roc_auc_score(targets, preds)
        scheduler.step(auc)
        print(f"Fold={fold}, Epoch={epoch}, train_loss={train_loss:.4f}, valid_loss={valid_loss:.4f}, AUC={auc:.4f}")
        es(auc, model, model_path=model_path)
        if es.early_stop:
            print("Early stopping")
            break
    return es.val_score


if __name__ == "__main__":
    set_seed(config.SEED)
    os.makedirs(config.MODEL_DIR, exist_ok=True)
    X, y, kfold = make_folds()
    scores = []
    for f in range(2):
        scores.append(run(f, X, y, kfold))
    print("CV AUC:", np.mean(scores))
