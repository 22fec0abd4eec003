# corpus: Towards Data Science / Analytics Vidhya tabular regression: randperm train/val/test split, standardization by hand with train mean/std, RegressionDataset, loss_stats dict, for e in tqdm(range(1, EPOCHS+1)), ReduceLROnPlateau, MSE / R^2 by hand
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import Dataset, DataLoader
from tqdm import tqdm

torch.manual_seed(69)

# "df = pd.read_csv('winequality-red.csv')" -> generated table, 11 features, quality target
N = 600
X = torch.randn(N, 11) * torch.linspace(0.5, 5.0, 11) + torch.linspace(-3, 10, 11)
true_w = torch.randn(11, 1) * 0.3
y = (X - X.mean(0)) @ true_w + 5.5 + 0.3 * torch.randn(N, 1)

# Train - Validation - Test
perm = torch.randperm(N)
train_idx, val_idx, test_idx = perm[:420], perm[420:510], perm[510:]
X_train, y_train = X[train_idx], y[train_idx]
X_val, y_val = X[val_idx], y[val_idx]
X_test, y_test = X[test_idx], y[test_idx]

# Normalize Input (StandardScaler by hand: fit on train only)
mean = X_train.mean(dim=0, keepdim=True)
std = X_train.std(dim=0, unbiased=False, keepdim=True)
X_train = (X_train - mean) / std
X_val = (X_val - mean) / std
X_test = (X_test - mean) / std


class RegressionDataset(Dataset):

    def __init__(self, X_data, y_data):
        self.X_data = X_data
        self.y_data = y_data

    def __getitem__(self, index):
        return self.X_data[index], self.y_data[index]

    def __len__(self):
        return len(self.X_data)


train_dataset = RegressionDataset(X_train.float(), y_train.float())
val_dataset = RegressionDataset(X_val.float(), y_val.float())
test_dataset = RegressionDataset(X_test.float(), y_test.float())

EPOCHS = 15
BATCH_SIZE = 64
LEARNING_RATE = 0.1
NUM_FEATURES = X.shape[1]

train_loader = DataLoader(dataset=train_dataset, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(dataset=val_dataset, batch_size=1)
test_loader = DataLoader(dataset=test_dataset, batch_size=1)


class MultipleRegression(nn.Module):
    def __init__(self, num_features):
        super(MultipleRegression, self).__init__()

        self.layer_1 = nn.Linear(num_features, 16)
        self.layer_2 = nn.Linear(16, 32)
        self.layer_3 = nn.Linear(32, 16)
        self.layer_out = nn.Linear(16, 1)

        self.relu = nn.ReLU()

    def forward(self, inputs):
        x = self.relu(self.layer_1(inputs))
        x = self.relu(self.layer_2(x))
        x = self.relu(self.layer_3(x))
        x = self.layer_out(x)
        return (x)

    def predict(self, test_inputs):
        x = self.relu(self.layer_1(test_inputs))
        x = self.relu(self.layer_2(x))
        x = self.relu(self.layer_3(x))
        x = self.layer_out(x)
        return (x)


device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
print(device)

model = MultipleRegression(NUM_FEATURES)
model.to(device)
print(model)

criterion = nn.MSELoss()
optimizer = optim.Adam(model.parameters(), lr=LEARNING_RATE)
scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode='min', factor=0.5, patience=0)

loss_stats = {
    'train': [],
    "val": []
}

print("Begin training.")
for e in tqdm(range(1, EPOCHS + 1)):

    # TRAINING
    train_epoch_loss = 0
    model.train()
    for X_train_batch, y_train_batch in train_loader:
        X_train_batch, y_train_batch = X_train_batch.to(device), y_train_batch.to(device)
        optimizer.zero_grad()

        y_train_pred = model(X_train_batch)

        train_loss = criterion(y_train_pred, y_train_batch)

        train_loss.backward()
        optimizer.step()

        train_epoch_loss += train_loss.item()

    # VALIDATION
    with torch.no_grad():

        val_epoch_loss = 0

        model.eval()
        for X_val_batch, y_val_batch in val_loader:
            X_val_batch, y_val_batch = X_val_batch.to(device), y_val_batch.to(device)

            y_val_pred = model(X_val_batch)

            val_loss = criterion(y_val_pred, y_val_batch)

            val_epoch_loss += val_loss.item()
    loss_stats['train'].append(train_epoch_loss / len(train_loader))
    loss_stats['val'].append(val_epoch_loss / len(val_loader))
    scheduler.step(val_epoch_loss / len(val_loader))

    print(f'Epoch {e+0:03}: | Train Loss: {train_epoch_loss/len(train_loader):.5f} | Val Loss: {val_epoch_loss/len(val_loader):.5f} | lr: {optimizer.param_groups[0]["lr"]}')

y_pred_list = []
with torch.no_grad():
    model.eval()
    for X_batch, _ in test_loader:
        X_batch = X_batch.to(device)
        y_test_pred = model(X_batch)
        y_pred_list.append(y_test_pred.cpu().numpy())
y_pred_list = [a.squeeze().tolist() for a in y_pred_list]

y_true = y_test.squeeze(1).numpy()
y_pred = np.array(y_pred_list)
mse = float(((y_true - y_pred) ** 2).mean())
r_square = 1 - ((y_true - y_pred) ** 2).sum() / ((y_true - y_true.mean()) ** 2).sum()
print("Mean Squared Error :", round(mse, 6))
print("R^2 :", round(float(r_square), 6))
np.save('loss_stats.npy', np.array([loss_stats['train'], loss_stats['val']]))
