# corpus: lottery-ticket reproduction — train, global magnitude prune, rewind to early weights, masks re-applied after every optimizer step
import argparse
import copy
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


class LeNet300(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 60)
        self.fc2 = nn.Linear(60, 20)
        self.fc3 = nn.Linear(20, 4)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def make_masks(model):
    return {n: torch.ones_like(p) for n, p in model.named_parameters() if "weight" in n}


def apply_masks(model, masks):
    with torch.no_grad():
        for n, p in model.named_parameters():
            if n in masks:
                p.mul_(masks[n])


def global_prune(model, masks, rate):
    alive = torch.cat([p.detach().abs()[masks[n].bool()] for n, p in model.named_parameters() if n in masks])
    k = int(rate * alive.numel())
    threshold = alive.kthvalue(k).values
    new = {}
    for n, p in model.named_parameters():
        if n in masks:
            new[n] = masks[n] * (p.detach().abs() > threshold).float()
    return new


def sparsity(masks):
    total = sum(m.numel() for m in masks.values())
    zeros = sum((m == 0).sum().item() for m in masks.values())
    return 100.0 * zeros / total


@torch.no_grad()
def test(model, loader, device):
    model.eval()
    correct = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(dim=1) == y).sum().item()
    return 100.0 * correct / len(loader.dataset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--prune_rate", type=float, default=0.4)
    parser.add_argument("--rewind_iter", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1.2e-3)
    parser.add_argument("--out_dir", type=str, default="lth")
    args, unknown = parser.parse_known_args()

    torch.manual_seed(7)
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    os.makedirs(args.out_dir, exist_ok=True)

    X = torch.randn(480, 64)
    y = (X[:, :4] * torch.tensor([1.0, -1.0, 0.5, 2.0])).argmax(1)
    train_loader = DataLoader(TensorDataset(X[:400], y[:400]), batch_size=40, shuffle=True)
    test_loader = DataLoader(TensorDataset(X[400:], y[400:]), batch_size=80)

    model = LeNet300().to(device)
    masks = make_masks(model)
    rewind_state = None
    history = []

    for rnd in range(args.rounds):
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
        it = 0
        for epoch in range(args.epochs):
            model.train()
            for x, t in tqdm(train_loader, desc=f"round {rnd} ep {epoch}", leave=False):
                x, t = x.to(device), t.to(device)
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x), t)
                loss.backward()
                optimizer.step()
                apply_masks(model, masks)
                it += 1
                if rnd == 0 and it == args.rewind_iter:
                    rewind_state = copy.deepcopy(model.state_dict())
            acc = test(model, test_loader, device)
            print(f"round {rnd} epoch {epoch} loss {loss.item():.4f} test acc {acc:.2f}% sparsity {sparsity(masks):.1f}%")
        history.append((sparsity(masks), acc))
        torch.save({"round": rnd, "model": model.state_dict(), "masks": masks,
                    "optimizer": optimizer.state_dict()}, os.path.join(args.out_dir, f"round{rnd}.pth"))
        # prune, then rewind the survivors
        masks = global_prune(model, masks, args.prune_rate)
        model.load_state_dict(rewind_state)
        apply_masks(model, masks)

    for s, a in history:
        print(f"sparsity {s:5.1f}%  acc {a:.2f}%")


if __name__ == "__main__":
    main()
