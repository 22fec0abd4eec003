# corpus: Towards-Data-Science forecasting post: numpy series, min-max scaled by hand, sliding windows, LSTM, inverse transform, autoregressive rollout
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader
import math
import time

torch.manual_seed(42)
np.random.seed(42)

# ---- 1. The data: a noisy seasonal series with a trend (think "monthly airline passengers")
t = np.arange(0, 400)
series = 0.05 * t + 10 * np.sin(2 * np.pi * t / 25) + np.random.normal(0, 1.0, size=t.shape)
series = series.astype(np.float32)
print("Series length:", len(series))

test_size = 60
train_data = series[:-test_size]
test_data = series[-test_size:]

# ---- 2. Min-max scaling by hand (fit on train only!)
train_min = train_data.min()
train_max = train_data.max()


def scale(x):
    return (x - train_min) / (train_max - train_min)


def inverse_scale(x):
    return x * (train_max - train_min) + train_min


train_scaled = scale(train_data)

# ---- 3. Sliding windows
window = 20


def create_inout_sequences(input_data, tw):
    xs, ys = [], []
    L = len(input_data)
    for i in range(L - tw):
        train_seq = input_data[i:i + tw]
        train_label = input_data[i + tw:i + tw + 1]
        xs.append(train_seq)
        ys.append(train_label)
    return np.array(xs), np.array(ys)


X, y = create_inout_sequences(train_scaled, window)
X = torch.from_numpy(X).unsqueeze(-1)  # (N, window, 1)
y = torch.from_numpy(y)                # (N, 1)
print(X.shape, y.shape)

# last 15% of the windows for validation (no shuffling for time series!)
split = int(len(X) * 0.85)
X_train, y_train = X[:split], y[:split]
X_val, y_val = X[split:], y[split:]

train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=64, shuffle=False)


# ---- 4. The model
class LSTMForecaster(nn.Module):
    def __init__(self, input_size=1, hidden_layer_size=32, num_layers=2, output_size=1):
        super().__init__()
        self.hidden_layer_size = hidden_layer_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_layer_size, num_layers, batch_first=True, dropout=0.1)
        self.linear = nn.Linear(hidden_layer_size, output_size)

    def forward(self, input_seq):
        h0 = torch.zeros(self.num_layers, input_seq.size(0), self.hidden_layer_size)
        c0 = torch.zeros(self.num_layers, input_seq.size(0), self.hidden_layer_size)
        lstm_out, (hn, cn) = self.lstm(input_seq, (h0, c0))
        predictions = self.linear(lstm_out[:, -1, :])
        return predictions


model = LSTMForecaster()
loss_function = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.005)
print(model)

# ---- 5. Training
epochs = 12
train_losses = []
val_losses = []
start_time = time.time()
for i in range(epochs):
    model.train()
    batch_losses = []
    for seq, labels in train_loader:
        optimizer.zero_grad()
        y_pred = model(seq)
        single_loss = loss_function(y_pred, labels)
        single_loss.backward()
        optimizer.step()
        batch_losses.append(single_loss.item())
    train_losses.append(np.mean(batch_losses))

    model.eval()
    with torch.no_grad():
        v = []
        for seq, labels in val_loader:
            v.append(loss_function(model(seq), labels).item())
    val_losses.append(np.mean(v))

    if i % 3 == 0 or i == epochs - 1:
        print(f'epoch: {i:3} train loss: {train_losses[-1]:10.8f} val loss: {val_losses[-1]:10.8f}')

print(f'\nDuration: {time.time() - start_time:.0f} seconds')

# ---- 6. Forecast the test period: feed each prediction back in (autoregressive)
fut_pred = test_size
test_inputs = train_scaled[-window:].tolist()

model.eval()
for i in range(fut_pred):
    seq = torch.FloatTensor(test_inputs[-window:]).view(1, window, 1)
    with torch.no_grad():
        test_inputs.append(model(seq).item())

actual_predictions = inverse_scale(np.array(test_inputs[window:]))
rmse = math.sqrt(np.mean((actual_predictions - test_data) ** 2))
mae = np.mean(np.abs(actual_predictions - test_data))
print(f"Test RMSE: {rmse:.4f}  MAE: {mae:.4f}")

# one-step-ahead (teacher forced) on the test period, for comparison
full_scaled = scale(series)
one_step = []
with torch.no_grad():
    for k in range(len(series) - test_size, len(series)):
        seq = torch.from_numpy(full_scaled[k - window:k]).view(1, window, 1)
        one_step.append(model(seq).item())
one_step = inverse_scale(np.array(one_step))
print(f"One-step RMSE: {math.sqrt(np.mean((one_step - test_data) ** 2)):.4f}")

np.savetxt("forecast.csv", np.stack([test_data, actual_predictions, one_step], axis=1),
           delimiter=",", header="actual,rollout,one_step", comments="", fmt="%.5f")
torch.save(model.state_dict(), "lstm_forecaster.pt")
