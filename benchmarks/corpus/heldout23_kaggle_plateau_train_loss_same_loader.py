# corpus: Kaggle notebook — CFG dict, tqdm.auto bars, model.zero_grad() instead of optimizer.zero_grad(), the "validation" run over the shuffled training loader itself (same loader twice per epoch), ReduceLROnPlateau(patience=0) stepped with the TRAINING loss, best model kept by that loss, submission-style predictions saved
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader
from tqdm.auto import tqdm

CFG = {
    "seed": 2024,
    "epochs": 6,
    "batch_size": 32,
    "lr": 5e-2,
    "n_features": 8,
}

torch.manual_seed(CFG["seed"])
np.random.seed(CFG["seed"])


class TabDataset(Dataset):
    def __init__(self, X, y=None):
        self.X = X
        self.y = y

    def __len__(self):
        return len(self.X)

    def __getitem__(self, idx):
        if self.y is None:
            return self.X[idx]
        return self.X[idx], self.y[idx]


# "train.csv"
X_all = torch.randn(224, CFG["n_features"])
y_all = (X_all[:, :3].sum(dim=1, keepdim=True) > 0).float()
X_test = torch.randn(40, CFG["n_features"])

train_ds = TabDataset(X_all, y_all)
train_loader = DataLoader(train_ds, batch_size=CFG["batch_size"], shuffle=True)
test_loader = DataLoader(TabDataset(X_test), batch_size=CFG["batch_size"], shuffle=False)


class MLP(nn.Module):
    def __init__(self, n_in):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, 64),
            nn.BatchNorm1d(64),
            nn.ReLU(),
            nn.Dropout(0.3),
            nn.Linear(64, 1),
        )

    def forward(self, x):
        return self.net(x)


model = MLP(CFG["n_features"])
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=0)

best_loss = np.inf
for epoch in range(CFG["epochs"]):
    model.train()
    train_loss = 0
    for xb, yb in tqdm(train_loader, desc=f"Epoch {epoch}"):
        model.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
    train_loss /= len(train_loader)

    # validation
    model.eval()
    val_loss = 0
    val_correct = 0
    with torch.no_grad():
        for xb, yb in train_loader:
            logits = model(xb)
            val_loss += criterion(logits, yb).item()
            val_correct += ((logits > 0).float() == yb).sum().item()
    val_loss /= len(train_loader)
    val_acc = val_correct / len(train_ds)

    scheduler.step(train_loss)
    print(f"Epoch {epoch} | train_loss {train_loss:.4f} | val_loss {val_loss:.4f} | val_acc {val_acc:.4f} | lr {optimizer.param_groups[0]['lr']:.2e}")

    if train_loss < best_loss:
        best_loss = train_loss
        torch.save(model.state_dict(), "best_model.pth")
        print("  saved best model")

model.load_state_dict(torch.load("best_model.pth"))
model.eval()
preds = []
with torch.no_grad():
    for xb in test_loader:
        preds.append(torch.sigmoid(model(xb)).squeeze(1).numpy())
preds = np.concatenate(preds)
np.savetxt("submission.csv", preds, delimiter=",", fmt="%.6f")
print("submission saved", preds.shape)
