# corpus: while global_step < max_steps over epochs of a loader, evaluation every eval_every steps inside the batch loop
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(5)

train_ds = TensorDataset(torch.randn(240, 6), torch.randn(240, 1))
val_ds = TensorDataset(torch.randn(60, 6), torch.randn(60, 1))
train_dl = DataLoader(train_ds, batch_size=20, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=30)

model = nn.Sequential(nn.Linear(6, 32), nn.SiLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
loss_fn = nn.SmoothL1Loss()

max_steps = 40
eval_every = 10
global_step = 0


def evaluate():
    model.eval()
    total = 0.0
    with torch.no_grad():
        for xb, yb in val_dl:
            total += loss_fn(model(xb), yb).item() * len(xb)
    model.train()
    return total / len(val_ds)


model.train()
while global_step < max_steps:
    for xb, yb in train_dl:
        loss = loss_fn(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        global_step += 1
        if global_step % eval_every == 0:
            print(f"step {global_step}: train loss {loss.item():.4f}, val loss {evaluate():.4f}")
        if global_step >= max_steps:
            break
