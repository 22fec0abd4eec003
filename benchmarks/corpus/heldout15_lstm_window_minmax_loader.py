# corpus: time-series blog: synthetic series scaled by a hand-written MinMaxScaler fit on the train split, sliding windows in a Dataset + DataLoader, LSTM forecaster, val MSE per epoch, test predictions inverse-transformed after training and saved as CSV
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

np.random.seed(42)
torch.manual_seed(42)

LOOKBACK = 12
HORIZON = 1
BATCH_SIZE = 32
EPOCHS = 5
HIDDEN = 32
LR = 1e-2


class MinMaxScaler:
    def __init__(self, feature_range=(0, 1)):
        self.low, self.high = feature_range
        self.min_ = None
        self.max_ = None

    def fit(self, x):
        self.min_ = x.min(axis=0)
        self.max_ = x.max(axis=0)
        return self

    def transform(self, x):
        scaled = (x - self.min_) / (self.max_ - self.min_ + 1e-8)
        return scaled * (self.high - self.low) + self.low

    def fit_transform(self, x):
        return self.fit(x).transform(x)

    def inverse_transform(self, x):
        x = (x - self.low) / (self.high - self.low)
        return x * (self.max_ - self.min_ + 1e-8) + self.min_


# "airline passengers"-like series: trend + seasonality + noise
t = np.arange(400, dtype=np.float32)
series = 100 + 0.5 * t + 20 * np.sin(2 * np.pi * t / 12) + np.random.normal(0, 3, size=t.shape)
series = series.astype(np.float32).reshape(-1, 1)

n_train = int(len(series) * 0.7)
n_val = int(len(series) * 0.15)
train_raw = series[:n_train]
val_raw = series[n_train - LOOKBACK:n_train + n_val]
test_raw = series[n_train + n_val - LOOKBACK:]

scaler = MinMaxScaler(feature_range=(-1, 1))
train_scaled = scaler.fit_transform(train_raw)
val_scaled = scaler.transform(val_raw)
test_scaled = scaler.transform(test_raw)


class WindowDataset(Dataset):
    def __init__(self, data, lookback, horizon=1):
        self.data = torch.tensor(data, dtype=torch.float32)
        self.lookback = lookback
        self.horizon = horizon

    def __len__(self):
        return len(self.data) - self.lookback - self.horizon + 1

    def __getitem__(self, idx):
        x = self.data[idx:idx + self.lookback]
        y = self.data[idx + self.lookback:idx + self.lookback + self.horizon].squeeze(-1)
        return x, y


train_loader = DataLoader(WindowDataset(train_scaled, LOOKBACK), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(WindowDataset(val_scaled, LOOKBACK), batch_size=BATCH_SIZE, shuffle=False)
test_loader = DataLoader(WindowDataset(test_scaled, LOOKBACK), batch_size=BATCH_SIZE, shuffle=False)


class LSTMForecaster(nn.Module):
    def __init__(self, input_size=1, hidden_size=HIDDEN, num_layers=2, output_size=HORIZON):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, dropout=0.1)
        self.linear = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.linear(out[:, -1, :])


device = "cuda" if torch.cuda.is_available() else "cpu"
model = LSTMForecaster().to(device)
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)

train_losses, val_losses = [], []
for epoch in range(EPOCHS):
    model.train()
    batch_losses = []
    for X_batch, y_batch in train_loader:
        X_batch, y_batch = X_batch.to(device), y_batch.to(device)
        y_pred = model(X_batch)
        loss = loss_fn(y_pred, y_batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_losses.append(loss.item())
    train_losses.append(np.mean(batch_losses))

    model.eval()
    with torch.no_grad():
        v = [loss_fn(model(xb.to(device)), yb.to(device)).item() for xb, yb in val_loader]
    val_losses.append(np.mean(v))
    print("Epoch %d: train MSE %.5f, val MSE %.5f" % (epoch, train_losses[-1], val_losses[-1]))

# forecast the test split and bring it back to the original scale
model.eval()
preds, trues = [], []
with torch.no_grad():
    for xb, yb in test_loader:
        preds.append(model(xb.to(device)).cpu().numpy())
        trues.append(yb.numpy())
preds = scaler.inverse_transform(np.concatenate(preds))
trues = scaler.inverse_transform(np.concatenate(trues))
rmse = float(np.sqrt(np.mean((preds - trues) ** 2)))
print("test RMSE (original scale): %.3f" % rmse)

with open("forecast.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["actual", "predicted"])
    for a, p in zip(trues[:, 0], preds[:, 0]):
        w.writerow(["%.4f" % a, "%.4f" % p])
np.save("loss_curves.npy", np.array([train_losses, val_losses]))
