# corpus: time-series regression blog-style: config dict, sliding windows of a noisy sine, LSTM regressor, OneCycleLR stepped per batch, early stopping by patience with best state_dict, logging to file + console, rollout forecast
import logging
import os
import sys

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

CONFIG = {
    "window": 20,
    "horizon": 1,
    "hidden": 16,
    "layers": 1,
    "batch_size": 32,
    "max_lr": 1e-2,
    "epochs": 15,
    "patience": 2,
    "min_delta": 1e-4,
    "seed": 2024,
    "out_dir": "outputs",
}

os.makedirs(CONFIG["out_dir"], exist_ok=True)
logging.basicConfig(
    level=logging.INFO,
    format="%(asctime)s [%(levelname)s] %(message)s",
    handlers=[
        logging.FileHandler(os.path.join(CONFIG["out_dir"], "train.log"), mode="w"),
        logging.StreamHandler(sys.stdout),
    ],
)
log = logging.getLogger(__name__)

torch.manual_seed(CONFIG["seed"])
np.random.seed(CONFIG["seed"])


def get_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


DEVICE = get_device()


class WindowDataset(Dataset):
    def __init__(self, series, window, horizon):
        self.series = torch.tensor(series, dtype=torch.float32)
        self.window = window
        self.horizon = horizon

    def __len__(self):
        return len(self.series) - self.window - self.horizon + 1

    def __getitem__(self, idx):
        x = self.series[idx: idx + self.window].unsqueeze(-1)
        y = self.series[idx + self.window: idx + self.window + self.horizon]
        return x, y


class LSTMRegressor(nn.Module):
    def __init__(self, hidden, layers, horizon):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, layers, batch_first=True)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1, :])


def make_series(n=600):
    t = np.arange(n)
    s = np.sin(2 * np.pi * t / 50) + 0.5 * np.sin(2 * np.pi * t / 17) + 0.1 * np.random.randn(n)
    return s.astype(np.float32)


def train_one_epoch(model, loader, criterion, optimizer, scheduler):
    model.train()
    losses = []
    for xb, yb in loader:
        xb, yb = xb.to(DEVICE), yb.to(DEVICE)
        optimizer.zero_grad()
        pred = model(xb)
        loss = criterion(pred, yb)
        loss.backward()
        optimizer.step()
        scheduler.step()  # OneCycleLR steps every batch
        losses.append(loss.item())
    return float(np.mean(losses))


@torch.no_grad()
def evaluate(model, loader, criterion):
    model.eval()
    total, n = 0.0, 0
    for xb, yb in loader:
        xb, yb = xb.to(DEVICE), yb.to(DEVICE)
        pred = model(xb)
        total += criterion(pred, yb).item() * xb.size(0)
        n += xb.size(0)
    return total / n


def main():
    series = make_series()
    mean, std = series[:400].mean(), series[:400].std()
    series = (series - mean) / std
    train_s, val_s, test_s = series[:400], series[380:500], series[480:]

    train_ds = WindowDataset(train_s, CONFIG["window"], CONFIG["horizon"])
    val_ds = WindowDataset(val_s, CONFIG["window"], CONFIG["horizon"])
    test_ds = WindowDataset(test_s, CONFIG["window"], CONFIG["horizon"])
    train_loader = DataLoader(train_ds, batch_size=CONFIG["batch_size"], shuffle=True, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=64)
    test_loader = DataLoader(test_ds, batch_size=64)
    log.info("train windows: %d, val: %d, test: %d", len(train_ds), len(val_ds), len(test_ds))

    model = LSTMRegressor(CONFIG["hidden"], CONFIG["layers"], CONFIG["horizon"]).to(DEVICE)
    criterion = nn.MSELoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=CONFIG["max_lr"] / 25, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=CONFIG["max_lr"], epochs=CONFIG["epochs"], steps_per_epoch=len(train_loader)
    )

    best_val = float("inf")
    best_state = None
    bad_epochs = 0
    history = {"train": [], "val": [], "lr": []}
    for epoch in range(1, CONFIG["epochs"] + 1):
        tr = train_one_epoch(model, train_loader, criterion, optimizer, scheduler)
        va = evaluate(model, val_loader, criterion)
        history["train"].append(tr)
        history["val"].append(va)
        history["lr"].append(optimizer.param_groups[0]["lr"])
        log.info("epoch %02d | train %.5f | val %.5f | lr %.6f", epoch, tr, va, optimizer.param_groups[0]["lr"])
        if va < best_val - CONFIG["min_delta"]:
            best_val = va
            best_state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
            torch.save(best_state, os.path.join(CONFIG["out_dir"], "best_lstm.pt"))
            bad_epochs = 0
        else:
            bad_epochs += 1
            log.info("no improvement for %d epoch(s)", bad_epochs)
            if bad_epochs >= CONFIG["patience"]:
                log.info("early stopping")
                break

    model.load_state_dict(best_state)
    test_mse = evaluate(model, test_loader, criterion)
    log.info("best val %.5f | test MSE %.5f (RMSE in original units %.4f)", best_val, test_mse, np.sqrt(test_mse) * std)

    # autoregressive rollout of 30 steps from the start of the test split
    model.eval()
    window = torch.tensor(test_s[: CONFIG["window"]], dtype=torch.float32).view(1, -1, 1).to(DEVICE)
    preds = []
    with torch.no_grad():
        for _ in range(30):
            nxt = model(window)
            preds.append(nxt.item())
            window = torch.cat([window[:, 1:, :], nxt.view(1, 1, 1)], dim=1)
    preds = np.array(preds) * std + mean
    np.save(os.path.join(CONFIG["out_dir"], "rollout.npy"), preds)
    np.save(os.path.join(CONFIG["out_dir"], "history.npy"), np.array([history["train"], history["val"], history["lr"]]))
    print("rollout first 5:", np.round(preds[:5], 4).tolist())


if __name__ == "__main__":
    main()
