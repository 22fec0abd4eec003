# corpus: blog-post utility: a hand-written EarlyStopping class (patience, delta, checkpoint saved on improvement, early_stop flag), avg train/valid losses per epoch, model reloaded from checkpoint.pt at the end
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class EarlyStopping:
    def __init__(self, patience=7, verbose=False, delta=0, path="checkpoint.pt"):
        self.patience = patience
        self.verbose = verbose
        self.counter = 0
        self.best_score = None
        self.early_stop = False
        self.val_loss_min = np.inf
        self.delta = delta
        self.path = path

    def __call__(self, val_loss, model):
        score = -val_loss
        if self.best_score is None:
            self.best_score = score
            self.save_checkpoint(val_loss, model)
        elif score < self.best_score + self.delta:
            self.counter += 1
            print(f"EarlyStopping counter: {self.counter} out of {self.patience}")
            if self.counter >= self.patience:
                self.early_stop = True
        else:
            self.best_score = score
            self.save_checkpoint(val_loss, model)
            self.counter = 0

    def save_checkpoint(self, val_loss, model):
        if self.verbose:
            print(f"Validation loss decreased ({self.val_loss_min:.6f} --> {val_loss:.6f}).  Saving model ...")
        torch.save(model.state_dict(), self.path)
        self.val_loss_min = val_loss


torch.manual_seed(0)
X = torch.randn(400, 10)
Y = X[:, :1] * 2 + 0.5 * torch.randn(400, 1)
train_loader = DataLoader(TensorDataset(X[:300], Y[:300]), batch_size=32, shuffle=True)
valid_loader = DataLoader(TensorDataset(X[300:], Y[300:]), batch_size=50)
model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
n_epochs = 30
patience = 3

train_losses, valid_losses = [], []
avg_train_losses, avg_valid_losses = [], []
early_stopping = EarlyStopping(patience=patience, verbose=True)
for epoch in range(1, n_epochs + 1):
    model.train()
    for batch, (data, target) in enumerate(train_loader, 1):
        optimizer.zero_grad()
        output = model(data)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()
        train_losses.append(loss.item())
    model.eval()
    for data, target in valid_loader:
        output = model(data)
        loss = criterion(output, target)
        valid_losses.append(loss.item())
    train_loss = np.average(train_losses)
    valid_loss = np.average(valid_losses)
    avg_train_losses.append(train_loss)
    avg_valid_losses.append(valid_loss)
    print(f"[{epoch}/{n_epochs}] train_loss: {train_loss:.5f} valid_loss: {valid_loss:.5f}")
    train_losses = []
    valid_losses = []
    early_stopping(valid_loss, model)
    if early_stopping.early_stop:
        print("Early stopping")
        break
model.load_state_dict(torch.load("checkpoint.pt"))
print("epochs run", len(avg_train_losses))
