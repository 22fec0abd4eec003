# corpus: forecasting repo: YAML-like config dict, hand-written MinMaxScaler class, multivariate windows, LSTM encoder + LSTMCell decoder with teacher forcing decayed per epoch (torch.rand draws), autoregressive validation in original units, Forecaster class with run()/train_one_epoch()/validate(), logging to file, ReduceLROnPlateau, history.csv, checkpoint every N epochs, best reloaded for test
import csv
import logging
import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

CONFIG = {
    "data": {"n_steps": 500, "n_series": 3, "input_len": 24, "horizon": 8, "val_frac": 0.15, "test_frac": 0.15},
    "model": {"hidden": 32, "layers": 1},
    "train": {"epochs": 6, "batch_size": 32, "lr": 3e-3, "clip": 0.5, "tf_start": 1.0, "tf_decay_epochs": 4,
              "save_every": 2, "seed": 11},
    "out_dir": "experiments/encdec",
}

os.makedirs(CONFIG["out_dir"], exist_ok=True)
logger = logging.getLogger("forecast")
logger.setLevel(logging.INFO)
_fh = logging.FileHandler(os.path.join(CONFIG["out_dir"], "train.log"), mode="w")
_fh.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
_sh = logging.StreamHandler()
_sh.setFormatter(logging.Formatter("[%(name)s] %(message)s"))
logger.addHandler(_fh)
logger.addHandler(_sh)


class MinMaxScaler:
    def __init__(self, feature_range=(0.0, 1.0)):
        self.lo, self.hi = feature_range

    def fit(self, x):
        self.data_min_ = x.min(axis=0)
        self.data_max_ = x.max(axis=0)
        return self

    def transform(self, x):
        scale = (self.hi - self.lo) / (self.data_max_ - self.data_min_)
        return (x - self.data_min_) * scale + self.lo

    def inverse_transform(self, x):
        scale = (self.hi - self.lo) / (self.data_max_ - self.data_min_)
        return (x - self.lo) / scale + self.data_min_


def generate_series(n_steps, n_series, rng):
    t = np.arange(n_steps)[:, None]
    periods = np.array([24.0, 12.0, 50.0])[:n_series]
    level = np.array([20.0, 5.0, 100.0])[:n_series]
    y = level + level * 0.2 * np.sin(2 * np.pi * t / periods) + 0.01 * level * t / 10
    return (y + rng.normal(0, 0.03, size=y.shape) * level).astype(np.float32)


class WindowDataset(Dataset):
    def __init__(self, data, input_len, horizon):
        self.data = torch.as_tensor(data)
        self.input_len = input_len
        self.horizon = horizon

    def __len__(self):
        return len(self.data) - self.input_len - self.horizon + 1

    def __getitem__(self, i):
        x = self.data[i:i + self.input_len]
        y = self.data[i + self.input_len:i + self.input_len + self.horizon]
        return x, y


class EncoderDecoder(nn.Module):
    def __init__(self, n_series, hidden, layers, horizon):
        super().__init__()
        self.horizon = horizon
        self.encoder = nn.LSTM(n_series, hidden, layers, batch_first=True)
        self.decoder = nn.LSTMCell(n_series, hidden)
        self.head = nn.Linear(hidden, n_series)

    def forward(self, x, y=None, tf_ratio=0.0):
        _, (h, c) = self.encoder(x)
        h, c = h[-1], c[-1]
        dec_in = x[:, -1, :]
        outs = []
        for t in range(self.horizon):
            h, c = self.decoder(dec_in, (h, c))
            step = self.head(h)
            outs.append(step)
            if y is not None and self.training and torch.rand(1).item() < tf_ratio:
                dec_in = y[:, t, :]          # teacher forcing
            else:
                dec_in = step                # feed back the prediction
        return torch.stack(outs, dim=1)


class Forecaster:
    def __init__(self, cfg):
        self.cfg = cfg
        tc = cfg["train"]
        dc = cfg["data"]
        torch.manual_seed(tc["seed"])
        rng = np.random.default_rng(tc["seed"])
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

        raw = generate_series(dc["n_steps"], dc["n_series"], rng)
        n = len(raw)
        n_test = int(n * dc["test_frac"])
        n_val = int(n * dc["val_frac"])
        train_raw = raw[: n - n_val - n_test]
        val_raw = raw[n - n_val - n_test - dc["input_len"]: n - n_test]
        test_raw = raw[n - n_test - dc["input_len"]:]

        self.scaler = MinMaxScaler().fit(train_raw)
        self.train_loader = DataLoader(WindowDataset(self.scaler.transform(train_raw), dc["input_len"], dc["horizon"]),
                                       batch_size=tc["batch_size"], shuffle=True, drop_last=True)
        self.val_loader = DataLoader(WindowDataset(self.scaler.transform(val_raw), dc["input_len"], dc["horizon"]),
                                     batch_size=128)
        self.test_loader = DataLoader(WindowDataset(self.scaler.transform(test_raw), dc["input_len"], dc["horizon"]),
                                      batch_size=128)

        mc = cfg["model"]
        self.model = EncoderDecoder(dc["n_series"], mc["hidden"], mc["layers"], dc["horizon"]).to(self.device)
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=tc["lr"])
        self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(self.optimizer, mode="min", factor=0.5, patience=1)
        self.history = []
        self.best_val = float("inf")

    def teacher_forcing_ratio(self, epoch):
        tc = self.cfg["train"]
        return max(0.0, tc["tf_start"] * (1.0 - epoch / tc["tf_decay_epochs"]))

    def train_one_epoch(self, epoch):
        self.model.train()
        tf = self.teacher_forcing_ratio(epoch)
        losses = []
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)
            pred = self.model(x, y, tf_ratio=tf)
            loss = self.criterion(pred, y)
            self.optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["train"]["clip"])
            self.optimizer.step()
            losses.append(loss.item())
        return float(np.mean(losses)), tf

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        preds, trues = [], []
        for x, y in loader:
            x = x.to(self.device)
            preds.append(self.model(x).cpu().numpy())
            trues.append(y.numpy())
        preds = np.concatenate(preds)
        trues = np.concatenate(trues)
        scaled_mse = float(((preds - trues) ** 2).mean())
        n_series = preds.shape[-1]
        preds_inv = self.scaler.inverse_transform(preds.reshape(-1, n_series)).reshape(preds.shape)
        trues_inv = self.scaler.inverse_transform(trues.reshape(-1, n_series)).reshape(trues.shape)
        mae = np.abs(preds_inv - trues_inv).mean(axis=(0, 1))
        return scaled_mse, mae, preds_inv

    def save(self, name, epoch):
        torch.save({"epoch": epoch, "model_state_dict": self.model.state_dict(),
                    "optimizer_state_dict": self.optimizer.state_dict(),
                    "scaler": {"min": self.scaler.data_min_, "max": self.scaler.data_max_}},
                   os.path.join(self.cfg["out_dir"], name))

    def run(self):
        tc = self.cfg["train"]
        logger.info("train windows %d, val windows %d", len(self.train_loader.dataset), len(self.val_loader.dataset))
        for epoch in range(tc["epochs"]):
            train_loss, tf = self.train_one_epoch(epoch)
            val_mse, val_mae, _ = self.validate(self.val_loader)
            self.scheduler.step(val_mse)
            lr = self.optimizer.param_groups[0]["lr"]
            logger.info("epoch %d | tf %.2f | train %.5f | val mse %.5f | val MAE %s | lr %.1e",
                        epoch, tf, train_loss, val_mse, np.array2string(val_mae, precision=3), lr)
            self.history.append([epoch, tf, train_loss, val_mse] + val_mae.tolist() + [lr])
            if val_mse < self.best_val:
                self.best_val = val_mse
                self.save("best.pt", epoch)
            if (epoch + 1) % tc["save_every"] == 0:
                self.save(f"epoch_{epoch + 1}.pt", epoch)

        with open(os.path.join(self.cfg["out_dir"], "history.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["epoch", "tf_ratio", "train_mse", "val_mse"]
                       + [f"val_mae_{k}" for k in range(self.cfg["data"]["n_series"])] + ["lr"])
            w.writerows(self.history)

    def test(self):
        ckpt = torch.load(os.path.join(self.cfg["out_dir"], "best.pt"), weights_only=False)
        self.model.load_state_dict(ckpt["model_state_dict"])
        test_mse, test_mae, preds = self.validate(self.test_loader)
        logger.info("best epoch %d | test mse %.5f | test MAE %s", ckpt["epoch"], test_mse,
                    np.array2string(test_mae, precision=3))
        np.save(os.path.join(self.cfg["out_dir"], "test_preds.npy"), preds)


if __name__ == "__main__":
    exp = Forecaster(CONFIG)
    exp.run()
    exp.test()
