# corpus: `continue` skips batches with missing (NaN) targets or a non-finite loss, max_batches_per_epoch break in the batch loop
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(6)

# some targets are missing (NaN), as in a real sensor log
x_all = torch.randn(130, 5)
y_all = torch.randn(130, 1)
y_all[torch.randint(0, 130, (4,))] = float("nan")
ds = TensorDataset(x_all, y_all)
loader = DataLoader(ds, batch_size=16, shuffle=True)

model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.BatchNorm1d(16), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.MSELoss()
max_batches_per_epoch = 7

for epoch in range(3):
    model.train()
    seen = 0
    for i, (x, y) in enumerate(loader):
        if torch.isnan(y).any():
            # skip batches with missing targets
            continue
        pred = model(x)
        loss = criterion(pred, y)
        if not math.isfinite(loss.item()):
            print("skipping batch with non-finite loss")
            continue
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        seen += 1
        if i + 1 >= max_batches_per_epoch:
            break
    print(f"epoch {epoch}: trained on {seen} batches, last loss {loss.item():.4f}")
