# corpus: `global args` set in main(), helpers read args.* and a module-level global_step counter
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

args = None
global_step = 0


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--print_freq", type=int, default=4)
    parser.add_argument("--seed", type=int, default=99)
    return parser.parse_args()


def train_one_epoch(model, loader, optimizer, criterion, epoch):
    global global_step
    model.train()
    for i, (x, y) in enumerate(loader):
        out = model(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        global_step += 1
        if i % args.print_freq == 0:
            print(f"epoch {epoch} iter {i} step {global_step} loss {loss.item():.4f}")


def validate(model, loader, criterion):
    model.eval()
    losses = []
    with torch.no_grad():
        for x, y in loader:
            losses.append(criterion(model(x), y).item())
    return sum(losses) / len(losses)


def main():
    global args
    args = get_args()
    torch.manual_seed(args.seed)
    train_loader = DataLoader(TensorDataset(torch.randn(128, 5), torch.randn(128, 2)), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(torch.randn(32, 5), torch.randn(32, 2)), batch_size=args.batch_size)
    model = nn.Sequential(nn.Linear(5, 20), nn.ReLU(), nn.Linear(20, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)
    criterion = nn.MSELoss()
    for epoch in range(args.epochs):
        train_one_epoch(model, train_loader, optimizer, criterion, epoch)
        val_loss = validate(model, val_loader, criterion)
        print(f"epoch {epoch}: val loss {val_loss:.4f}")


if __name__ == "__main__":
    main()
