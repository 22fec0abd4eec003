# corpus: 2024 time-series forecasting repo train.py: config dict (as loaded from YAML), transformer-encoder forecaster, torch_ema-style hand-written ExponentialMovingAverage (update / store / copy_to / restore) swapped in for validation, SequentialLR(LinearLR warmup -> CosineAnnealingLR) stepped per batch, AdamW(foreach=...), torch.compile(mode=...) behind cfg flag, clip_grad_norm_ norm accumulated per epoch, early stopping with patience and break, best EMA weights saved, metrics csv
import csv
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

cfg = {
    "data": {"n_series": 320, "lookback": 24, "horizon": 6},
    "model": {"d_model": 32, "nhead": 4, "layers": 2, "dropout": 0.1},
    "train": {
        "epochs": 5,
        "batch_size": 64,
        "lr": 1e-3,
        "weight_decay": 1e-4,
        "warmup_steps": 10,
        "ema_decay": 0.99,
        "clip": 0.5,
        "patience": 2,
        "compile": False,
        "compile_mode": "reduce-overhead",
    },
    "out_dir": "runs/forecast",
}


class WindowDataset(Dataset):
    def __init__(self, series, lookback, horizon):
        self.series = series
        self.lookback = lookback
        self.horizon = horizon

    def __len__(self):
        return self.series.shape[0]

    def __getitem__(self, i):
        s = self.series[i]
        return s[: self.lookback].unsqueeze(-1), s[self.lookback: self.lookback + self.horizon]


class Forecaster(nn.Module):
    def __init__(self, lookback, horizon, d_model, nhead, layers, dropout):
        super().__init__()
        self.inp = nn.Linear(1, d_model)
        self.pos = nn.Parameter(torch.zeros(1, lookback, d_model))
        enc = nn.TransformerEncoderLayer(d_model, nhead, 2 * d_model, dropout=dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model * lookback, horizon)

    def forward(self, x):
        h = self.encoder(self.inp(x) + self.pos)
        return self.head(h.flatten(1))


class ExponentialMovingAverage:
    def __init__(self, parameters, decay):
        parameters = list(parameters)
        self.decay = decay
        self.num_updates = 0
        self.shadow_params = [p.clone().detach() for p in parameters]
        self.collected_params = None

    @torch.no_grad()
    def update(self, parameters):
        self.num_updates += 1
        decay = min(self.decay, (1 + self.num_updates) / (10 + self.num_updates))
        for s_param, param in zip(self.shadow_params, parameters):
            s_param.sub_((1.0 - decay) * (s_param - param))

    def copy_to(self, parameters):
        for s_param, param in zip(self.shadow_params, parameters):
            param.data.copy_(s_param.data)

    def store(self, parameters):
        self.collected_params = [p.clone() for p in parameters]

    def restore(self, parameters):
        for c_param, param in zip(self.collected_params, parameters):
            param.data.copy_(c_param.data)


def make_series(n, length, gen):
    t = torch.arange(length).float()
    freq = torch.rand(n, 1, generator=gen) * 0.5 + 0.1
    phase = torch.rand(n, 1, generator=gen) * 6.28
    trend = torch.randn(n, 1, generator=gen) * 0.02
    return torch.sin(freq * t + phase) + trend * t + 0.05 * torch.randn(n, length, generator=gen)


def main():
    torch.manual_seed(7)
    torch.set_float32_matmul_precision("high")
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dcfg, mcfg, tcfg = cfg["data"], cfg["model"], cfg["train"]
    os.makedirs(cfg["out_dir"], exist_ok=True)

    gen = torch.Generator().manual_seed(7)
    series = make_series(dcfg["n_series"], dcfg["lookback"] + dcfg["horizon"], gen)
    n_train = int(0.8 * len(series))
    train_ds = WindowDataset(series[:n_train], dcfg["lookback"], dcfg["horizon"])
    val_ds = WindowDataset(series[n_train:], dcfg["lookback"], dcfg["horizon"])
    train_loader = DataLoader(train_ds, batch_size=tcfg["batch_size"], shuffle=True, drop_last=False)
    val_loader = DataLoader(val_ds, batch_size=256)

    model = Forecaster(dcfg["lookback"], dcfg["horizon"], **mcfg).to(device)
    ema = ExponentialMovingAverage(model.parameters(), decay=tcfg["ema_decay"])
    if tcfg["compile"]:
        model = torch.compile(model, mode=tcfg["compile_mode"])

    optimizer = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"], foreach=device.type == "cuda")
    total_steps = tcfg["epochs"] * len(train_loader)
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=tcfg["warmup_steps"])
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total_steps - tcfg["warmup_steps"], eta_min=1e-5)
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine], milestones=[tcfg["warmup_steps"]])
    loss_fn = nn.SmoothL1Loss()

    best_val, bad_epochs = float("inf"), 0
    rows = []
    for epoch in range(1, tcfg["epochs"] + 1):
        model.train()
        tr_loss, norms = 0.0, []
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            pred = model(x)
            loss = loss_fn(pred, y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            norms.append(nn.utils.clip_grad_norm_(model.parameters(), tcfg["clip"]).item())
            optimizer.step()
            scheduler.step()
            ema.update(model.parameters())
            tr_loss += loss.item() * x.size(0)
        tr_loss /= len(train_ds)

        # validate with EMA weights
        ema.store(model.parameters())
        ema.copy_to(model.parameters())
        model.eval()
        mae, mse = 0.0, 0.0
        with torch.inference_mode():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                pred = model(x)
                mae += (pred - y).abs().sum().item()
                mse += ((pred - y) ** 2).sum().item()
        n_val = len(val_ds) * dcfg["horizon"]
        mae, mse = mae / n_val, mse / n_val

        improved = mae < best_val
        if improved:
            best_val, bad_epochs = mae, 0
            torch.save(model.state_dict(), os.path.join(cfg["out_dir"], "best_ema.pt"))
        else:
            bad_epochs += 1
        ema.restore(model.parameters())

        mean_norm = sum(norms) / len(norms)
        rows.append({"epoch": epoch, "train_loss": round(tr_loss, 6), "val_mae": round(mae, 6), "val_mse": round(mse, 6),
                     "grad_norm": round(mean_norm, 4), "lr": scheduler.get_last_lr()[0]})
        print(f"epoch {epoch:02d} | train {tr_loss:.4f} | val MAE {mae:.4f} MSE {mse:.4f} | |g| {mean_norm:.3f}{' *' if improved else ''}")
        if bad_epochs >= tcfg["patience"]:
            print(f"early stopping at epoch {epoch}")
            break

    with open(os.path.join(cfg["out_dir"], "metrics.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    torch.save(model.state_dict(), os.path.join(cfg["out_dir"], "last.pt"))
    print(f"best val MAE {best_val:.4f}")


if __name__ == "__main__":
    main()
