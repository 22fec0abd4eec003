# corpus: own Dataset subclass, random_split train/val, DataLoader shuffle=True, validation every epoch returning a dict of metrics
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, random_split

torch.manual_seed(7)


class SensorDataset(Dataset):
    def __init__(self, n_samples=600, n_features=12):
        self.x = torch.randn(n_samples, n_features)
        w = torch.randn(n_features)
        self.y = (self.x @ w > 0).long()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        sample = self.x[idx]
        target = self.y[idx]
        return sample, target


dataset = SensorDataset()
n_val = int(0.2 * len(dataset))
n_train = len(dataset) - n_val
train_set, val_set = random_split(dataset, [n_train, n_val])

train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
val_loader = DataLoader(val_set, batch_size=64)

model = nn.Sequential(
    nn.Linear(12, 64),
    nn.ReLU(),
    nn.Dropout(0.1),
    nn.Linear(64, 2),
)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)


def evaluate(model, loader):
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            logits = model(x)
            total_loss += loss_fn(logits, y).item() * len(y)
            correct += (logits.argmax(dim=1) == y).sum().item()
            count += len(y)
    return {"val_loss": total_loss / count, "val_acc": correct / count}


history = []
for epoch in range(1, 6):
    model.train()
    train_loss = 0.0
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
    train_loss /= len(train_loader)

    metrics = evaluate(model, val_loader)
    metrics["train_loss"] = train_loss
    history.append(metrics)
    print(f"epoch {epoch}: " + ", ".join(f"{k}={v:.4f}" for k, v in metrics.items()))
