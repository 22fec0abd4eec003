# corpus: Medium/TDS tabular regression tutorial: custom Dataset from a numpy array (house-prices-like), target standardised by hand, nn.Sequential built in a make_model() function, nn.MSELoss with RMSE printed per epoch, lists of train/val losses, model saved then used for predictions on new rows
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

np.random.seed(6)
torch.manual_seed(6)

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
EPOCHS = 8
BATCH_SIZE = 32
LEARNING_RATE = 0.005

# ---- data: 8 numeric features -> price ----
n_rows, n_feat = 600, 8
X = np.random.rand(n_rows, n_feat).astype(np.float32)
true_w = np.random.randn(n_feat).astype(np.float32)
y = (X @ true_w * 50 + 200 + np.random.randn(n_rows).astype(np.float32) * 5).astype(np.float32)

idx = np.random.permutation(n_rows)
train_idx, val_idx = idx[:480], idx[480:]
X_train, y_train = X[train_idx], y[train_idx]
X_val, y_val = X[val_idx], y[val_idx]

x_mean, x_std = X_train.mean(axis=0), X_train.std(axis=0)
y_mean, y_std = y_train.mean(), y_train.std()
X_train = (X_train - x_mean) / x_std
X_val = (X_val - x_mean) / x_std


class RegressionDataset(Dataset):
    def __init__(self, X_data, y_data):
        self.X_data = torch.from_numpy(X_data)
        self.y_data = torch.from_numpy((y_data - y_mean) / y_std)

    def __getitem__(self, index):
        return self.X_data[index], self.y_data[index]

    def __len__(self):
        return len(self.X_data)


train_dataset = RegressionDataset(X_train, y_train)
val_dataset = RegressionDataset(X_val, y_val)

train_loader = DataLoader(dataset=train_dataset, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(dataset=val_dataset, batch_size=1)


def make_model(num_features, hidden=(64, 32), dropout=0.1):
    layers = []
    in_dim = num_features
    for h in hidden:
        layers += [nn.Linear(in_dim, h), nn.ReLU(), nn.Dropout(dropout)]
        in_dim = h
    layers.append(nn.Linear(in_dim, 1))
    return nn.Sequential(*layers)


model = make_model(n_feat)
model.to(DEVICE)
print(model)

criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)

loss_stats = {'train': [], 'val': []}

print("Begin training.")
for e in range(1, EPOCHS + 1):
    # TRAINING
    train_epoch_loss = 0
    model.train()
    for X_train_batch, y_train_batch in train_loader:
        X_train_batch, y_train_batch = X_train_batch.to(DEVICE), y_train_batch.to(DEVICE)
        optimizer.zero_grad()

        y_train_pred = model(X_train_batch)

        train_loss = criterion(y_train_pred, y_train_batch.unsqueeze(1))

        train_loss.backward()
        optimizer.step()

        train_epoch_loss += train_loss.item()

    # VALIDATION
    with torch.no_grad():
        val_epoch_loss = 0

        model.eval()
        for X_val_batch, y_val_batch in val_loader:
            X_val_batch, y_val_batch = X_val_batch.to(DEVICE), y_val_batch.to(DEVICE)

            y_val_pred = model(X_val_batch)

            val_loss = criterion(y_val_pred, y_val_batch.unsqueeze(1))

            val_epoch_loss += val_loss.item()

    loss_stats['train'].append(train_epoch_loss / len(train_loader))
    loss_stats['val'].append(val_epoch_loss / len(val_loader))

    rmse = np.sqrt(loss_stats['val'][-1]) * y_std
    print(f'Epoch {e+0:03}: | Train Loss: {train_epoch_loss/len(train_loader):.5f} | '
          f'Val Loss: {val_epoch_loss/len(val_loader):.5f} | Val RMSE (price): {rmse:.2f}')

torch.save(model.state_dict(), 'regressor.pt')
np.save('loss_stats.npy', np.array([loss_stats['train'], loss_stats['val']]))

# predictions on "new houses"
new_rows = (np.random.rand(5, n_feat).astype(np.float32) - x_mean) / x_std
model.eval()
with torch.no_grad():
    preds = model(torch.from_numpy(new_rows).to(DEVICE)).cpu().numpy().ravel() * y_std + y_mean
print('Predicted prices:', np.round(preds, 1))
