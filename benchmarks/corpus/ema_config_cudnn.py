# corpus: research code, config dict + argparse Namespace defaults, cudnn.benchmark, model EMA after each step
import argparse
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

config = {
    "lr": 3e-4,
    "weight_decay": 1e-4,
    "batch_size": 32,
    "epochs": 4,
    "ema_decay": 0.99,
    "hidden": 48,
    "seed": 0,
}


def get_args():
    parser = argparse.ArgumentParser()
    for k, v in config.items():
        parser.add_argument(f"--{k}", type=type(v), default=v)
    return parser.parse_args()


class Net(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(16, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.fc2 = nn.Linear(hidden, 4)

    def forward(self, x):
        return self.fc2(F.gelu(self.bn(self.fc1(x))))


@torch.no_grad()
def update_ema(ema_model, model, decay):
    for ema_p, p in zip(ema_model.parameters(), model.parameters()):
        ema_p.lerp_(p, 1.0 - decay)
    for ema_b, b in zip(ema_model.buffers(), model.buffers()):
        ema_b.copy_(b)


@torch.no_grad()
def evaluate(net, loader):
    net.eval()
    correct, total = 0, 0
    for x, y in loader:
        correct += (net(x).argmax(-1) == y).sum().item()
        total += y.numel()
    return correct / total


def main():
    args = get_args()
    torch.manual_seed(args.seed)
    torch.backends.cudnn.benchmark = True
    device = "cuda" if torch.cuda.is_available() else "cpu"

    x = torch.randn(512, 16)
    y = (x[:, :4] * torch.tensor([1.0, -2.0, 0.5, 3.0])).argmax(-1)
    train_dl = DataLoader(TensorDataset(x[:448], y[:448]), batch_size=args.batch_size, shuffle=True)
    val_dl = DataLoader(TensorDataset(x[448:], y[448:]), batch_size=64)

    model = Net(args.hidden).to(device)
    ema = copy.deepcopy(model)
    for p in ema.parameters():
        p.requires_grad_(False)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)

    for epoch in range(args.epochs):
        model.train()
        for xb, yb in train_dl:
            xb, yb = xb.to(device), yb.to(device)
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            update_ema(ema, model, args.ema_decay)
        acc = evaluate(model, val_dl)
        ema_acc = evaluate(ema, val_dl)
        print(f"epoch {epoch}: loss {loss.item():.4f} acc {acc:.3f} ema acc {ema_acc:.3f}")

    torch.save({"model": model.state_dict(), "ema": ema.state_dict(), "config": vars(args)}, "ema_ckpt.pt")


if __name__ == "__main__":
    main()
