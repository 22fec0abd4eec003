# corpus: Discord help channel "my loss isn't going down at all??" — argparse + tqdm bar with set_postfix, loss.backward(); optimizer.zero_grad(); optimizer.step() (the step never sees a gradient, the weights never move), for epoch in range(1, args.epochs) (one epoch fewer), StepLR with get_last_lr() printed
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=4)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--seed", type=int, default=1234)
args = parser.parse_args()

torch.manual_seed(args.seed)
device = "cuda" if torch.cuda.is_available() else "cpu"

# toy regression: y = sin(x0) + x1^2
X = torch.rand(200, 2) * 4 - 2
Y = (torch.sin(X[:, 0]) + X[:, 1] ** 2).unsqueeze(1)
ds = TensorDataset(X, Y)
loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True)

model = nn.Sequential(
    nn.Linear(2, 64), nn.Tanh(),
    nn.Linear(64, 64), nn.Tanh(),
    nn.Linear(64, 1),
).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)

for epoch in range(1, args.epochs):
    model.train()
    pbar = tqdm(loader, desc=f"epoch {epoch}")
    losses = []
    for x, y in pbar:
        x, y = x.to(device), y.to(device)
        pred = model(x)
        loss = F.mse_loss(pred, y)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        losses.append(loss.item())
        pbar.set_postfix(loss=f"{loss.item():.4f}")
    scheduler.step()
    print(f"epoch {epoch} mean loss {sum(losses) / len(losses):.5f} lr {scheduler.get_last_lr()[0]:.6f}")

torch.save(model.state_dict(), "model.pt")
