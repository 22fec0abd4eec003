# corpus: argparse with --no-cuda, use_cuda device idiom, DataParallel when several GPUs, ReduceLROnPlateau
import argparse

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--no-cuda", action="store_true", default=False, help="disables CUDA training")
parser.add_argument("--epochs", type=int, default=4)
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--seed", type=int, default=7)
args = parser.parse_args()
use_cuda = not args.no_cuda and torch.cuda.is_available()

torch.manual_seed(args.seed)
device = torch.device("cuda" if use_cuda else "cpu")
kwargs = {"num_workers": 1, "pin_memory": True} if use_cuda else {}

x_train = torch.randn(160, 10)
y_train = (x_train.sum(dim=1, keepdim=True) > 0).float()
x_val = torch.randn(40, 10)
y_val = (x_val.sum(dim=1, keepdim=True) > 0).float()
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=args.batch_size, shuffle=True, **kwargs)
val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=args.batch_size, **kwargs)

model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 1))
if torch.cuda.device_count() > 1:
    print("Let's use", torch.cuda.device_count(), "GPUs!")
    model = nn.DataParallel(model)
model.to(device)

criterion = nn.BCEWithLogitsLoss()
optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=1)

for epoch in range(1, args.epochs + 1):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 5 == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)}] Loss: {loss.item():.6f}")

    model.eval()
    val_loss = 0.0
    with torch.no_grad():
        for data, target in val_loader:
            data, target = data.to(device), target.to(device)
            val_loss += criterion(model(data), target).item()
    val_loss /= len(val_loader)
    scheduler.step(val_loss)
    print(f"Epoch {epoch}: val loss {val_loss:.4f}")
