# corpus: pruning blog/tutorial script: LeNet-ish CNN trained dense with a Config class and logging, then iterative global magnitude pruning rounds (torch.nn.utils.prune.global_unstructured, L1Unstructured) each followed by fine-tune epochs with the same optimizer, per-layer sparsity from weight == 0, prune.remove before saving the pruned state_dict
import logging
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
logger = logging.getLogger("prune")


class Config:
    seed = 42
    batch_size = 32
    lr = 0.01
    momentum = 0.9
    dense_epochs = 3
    prune_rounds = 3
    amount_per_round = 0.3
    finetune_epochs = 1
    out_dir = "pruned"


cfg = Config()
torch.manual_seed(cfg.seed)
device = "cuda" if torch.cuda.is_available() else "cpu"


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(x.size(0), -1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def make_data(n):
    y = torch.randint(0, 10, (n,))
    x = torch.randn(n, 1, 28, 28) * 0.5
    # each class lights up a different horizontal band
    for i in range(n):
        x[i, 0, 2 * y[i]:2 * y[i] + 6, :] += 1.0
    return TensorDataset(x, y)


train_loader = DataLoader(make_data(320), batch_size=cfg.batch_size, shuffle=True)
test_loader = DataLoader(make_data(128), batch_size=64)


def train(model, loader, optimizer, epoch):
    model.train()
    total = 0.0
    for batch_idx, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        total += loss.item()
    logger.info("epoch %d train loss %.4f", epoch, total / len(loader))


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            pred = model(data).argmax(dim=1)
            correct += (pred == target).sum().item()
    return 100.0 * correct / len(loader.dataset)


def sparsity_report(model):
    total_zeros, total = 0, 0
    for name, module in model.named_modules():
        if isinstance(module, (nn.Conv2d, nn.Linear)):
            zeros = float(torch.sum(module.weight == 0))
            n = float(module.weight.nelement())
            total_zeros += zeros
            total += n
            print("  Sparsity in {}.weight: {:.2f}%".format(name, 100.0 * zeros / n))
    print("  Global sparsity: {:.2f}%".format(100.0 * total_zeros / total))
    return total_zeros / total


model = LeNet().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=cfg.momentum)

# 1) dense training
for epoch in range(1, cfg.dense_epochs + 1):
    train(model, train_loader, optimizer, epoch)
acc = evaluate(model, test_loader)
print(f"dense accuracy: {acc:.2f}%")

parameters_to_prune = (
    (model.conv1, "weight"),
    (model.conv2, "weight"),
    (model.fc1, "weight"),
    (model.fc2, "weight"),
)

# 2) iterative prune + fine-tune
history = []
epoch = cfg.dense_epochs
for r in range(cfg.prune_rounds):
    prune.global_unstructured(
        parameters_to_prune,
        pruning_method=prune.L1Unstructured,
        amount=cfg.amount_per_round,
    )
    print(f"--- round {r + 1}: after pruning acc {evaluate(model, test_loader):.2f}%")
    for _ in range(cfg.finetune_epochs):
        epoch += 1
        train(model, train_loader, optimizer, epoch)
    acc = evaluate(model, test_loader)
    s = sparsity_report(model)
    history.append((s, acc))
    print(f"round {r + 1}: sparsity {100 * s:.1f}% accuracy {acc:.2f}%")

# 3) make pruning permanent and save
for module, name in parameters_to_prune:
    prune.remove(module, name)

os.makedirs(cfg.out_dir, exist_ok=True)
torch.save(model.state_dict(), os.path.join(cfg.out_dir, "lenet_pruned.pt"))
torch.save(history, os.path.join(cfg.out_dir, "history.pt"))
print(sorted(model.state_dict().keys()))
