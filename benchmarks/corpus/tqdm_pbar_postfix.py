# corpus: with tqdm(total=...) as pbar around the epoch loop, pbar.update per batch and set_postfix(loss=...)
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

torch.manual_seed(2024)

x = torch.randn(192, 14)
y = torch.randint(0, 2, (192,)).float()
train_loader = DataLoader(TensorDataset(x, y), batch_size=24, shuffle=True)

model = nn.Sequential(nn.Linear(14, 28), nn.ReLU(), nn.Linear(28, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.BCEWithLogitsLoss()
epochs = 3

with tqdm(total=epochs * len(train_loader), desc="training", disable=False) as pbar:
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_loader:
            optimizer.zero_grad()
            logits = model(xb).squeeze(1)
            loss = criterion(logits, yb)
            loss.backward()
            optimizer.step()
            pbar.update(1)
            pbar.set_postfix(epoch=epoch, loss=f"{loss.item():.4f}")
print("finished")
