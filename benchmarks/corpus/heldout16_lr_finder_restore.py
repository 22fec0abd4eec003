# corpus: VS Code / Colab percent-script (`# %%` cells): hand-written learning-rate finder cell that trains over exponentially increasing lrs and restores model.load_state_dict(init_state), then the real training cell with the picked lr; losses lists printed
# %% [markdown]
# # Finding a good learning rate
# We sweep the learning rate, look at the losses, then train for real.

# %%
import copy
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)

# %%
N, D = 1024, 20
X = torch.randn(N, D)
y = (X[:, :5].sum(1, keepdim=True) + 0.1 * torch.randn(N, 1)).clamp(-2, 2)
train_ds = TensorDataset(X[:896], y[:896])
valid_ds = TensorDataset(X[896:], y[896:])
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
valid_dl = DataLoader(valid_ds, batch_size=128)

# %%
model = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
print(model)

# %% LR finder
init_state = copy.deepcopy(model.state_dict())
init_opt_state = copy.deepcopy(optimizer.state_dict())

start_lr, end_lr, num_it = 1e-4, 1.0, 40
mult = (end_lr / start_lr) ** (1 / (num_it - 1))
lrs, lr_losses = [], []
lr = start_lr
best_loss = math.inf
avg_loss = 0.0
beta = 0.9
it = 0
model.train()
while it < num_it:
    for xb, yb in train_dl:
        for g in optimizer.param_groups:
            g["lr"] = lr
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        avg_loss = beta * avg_loss + (1 - beta) * loss.item()
        smoothed = avg_loss / (1 - beta ** (it + 1))
        lrs.append(lr)
        lr_losses.append(smoothed)
        best_loss = min(best_loss, smoothed)
        it += 1
        lr *= mult
        if it >= num_it or smoothed > 4 * best_loss:
            break
    if smoothed > 4 * best_loss:
        break

print("lr finder:")
for l, s in zip(lrs[::4], lr_losses[::4]):
    print(f"  lr {l:.2e}  loss {s:.4f}")
best_idx = min(range(len(lr_losses)), key=lambda i: lr_losses[i])
suggested_lr = lrs[best_idx] / 10
print(f"suggested lr: {suggested_lr:.2e}")

# restore the weights we started from
model.load_state_dict(init_state)
optimizer.load_state_dict(init_opt_state)

# %% Train with the suggested lr
for g in optimizer.param_groups:
    g["lr"] = suggested_lr

epochs = 5
train_losses, valid_losses = [], []
for epoch in range(epochs):
    model.train()
    running = 0.0
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_fn(pred, yb)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        running += loss.item() * xb.size(0)
    train_losses.append(running / len(train_ds))

    model.eval()
    with torch.no_grad():
        valid_loss = sum(loss_fn(model(xb), yb).item() * xb.size(0) for xb, yb in valid_dl) / len(valid_ds)
    valid_losses.append(valid_loss)
    print(epoch, train_losses[-1], valid_loss)

# %%
print("train_losses =", [round(v, 4) for v in train_losses])
print("valid_losses =", [round(v, 4) for v in valid_losses])

# %%
torch.save(model.state_dict(), "lr_finder_model.pt")
