# Loop in main(): dict batches moved with a comprehension, F.cross_entropy, StepLR per epoch,
# accumulators printed per epoch, best value read back after training.
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset


class Pairs(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 6)
        self.y = torch.randint(0, 3, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"features": self.x[i], "label": self.y[i]}


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, features):
        return self.net(features)


def main():
    torch.manual_seed(3)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    loader = DataLoader(Pairs(32), batch_size=8, shuffle=True)
    net = Classifier().to(device)
    opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    sched = StepLR(opt, step_size=1, gamma=0.5)

    best = float("inf")
    for epoch in range(1, 3 + 1):
        net.train()
        total = 0.0
        for i, batch in enumerate(loader):
            batch = {k: v.to(device) for k, v in batch.items()}
            opt.zero_grad(set_to_none=True)
            logits = net(batch["features"])
            loss = F.cross_entropy(logits, batch["label"])
            loss.backward()
            opt.step()
            total += loss.item()
        sched.step()
        mean = total / len(loader)
        best = min(best, mean)
        print(f"epoch {epoch}: {mean:.4f}")
    print("best", best)


if __name__ == "__main__":
    main()
