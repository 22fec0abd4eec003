# corpus: homework notebook as .py (`# %%` cells): run_experiment(name, model) trains and evaluates a fresh model, called for an MLP then a CNN with torch.manual_seed before each, results dict of histories, summary table printed and results.json written
# %%
import json

import torch
import torch.nn as nn
import torch.nn.functional as F

# %% Hyperparameters (feel free to change)
BATCH_SIZE = 50
EPOCHS = 3
LR = 0.05
MOMENTUM = 0.9
LOG_INTERVAL = 4

torch.manual_seed(1234)

# %% Data: synthetic 1x12x12 "fashion" images, 4 classes
X_all = torch.randn(700, 1, 12, 12)
y_all = ((X_all[:, 0, :6, :6].mean((1, 2)) > 0).long() * 2 + (X_all[:, 0, 6:, 6:].mean((1, 2)) > 0).long())
X_train, y_train = X_all[:500], y_all[:500]
X_test, y_test = X_all[500:], y_all[500:]
train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X_train, y_train),
                                           batch_size=BATCH_SIZE, shuffle=True)
test_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X_test, y_test),
                                          batch_size=200)


# %% Part A: models
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(144, 64)
        self.fc2 = nn.Linear(64, 4)

    def forward(self, x):
        x = x.view(-1, 144)
        return self.fc2(F.relu(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 3 * 3, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


# %% Part B: training / evaluation
def train(model, optimizer, epoch):
    model.train()
    losses = []
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % LOG_INTERVAL == 0:
            print("Train Epoch: {} [{}/{}]\tLoss: {:.6f}".format(
                epoch, batch_idx * len(data), len(train_loader.dataset), loss.item()))
    return losses


def test(model):
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            test_loss += F.cross_entropy(output, target, reduction="sum").item()
            correct += output.argmax(dim=1).eq(target).sum().item()
    test_loss /= len(test_loader.dataset)
    acc = 100.0 * correct / len(test_loader.dataset)
    print(f"Test set: Average loss: {test_loss:.4f}, Accuracy: {correct}/{len(test_loader.dataset)} ({acc:.0f}%)")
    return test_loss, acc


def run_experiment(name, model):
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    history = {"train_loss": [], "test_loss": [], "test_acc": []}
    for epoch in range(1, EPOCHS + 1):
        history["train_loss"] += train(model, optimizer, epoch)
        test_loss, acc = test(model)
        history["test_loss"].append(test_loss)
        history["test_acc"].append(acc)
    print(f"[{name}] {sum(p.numel() for p in model.parameters())} parameters, final acc {acc:.1f}%")
    return history


# %% Part C: compare
results = {}
torch.manual_seed(0)
results["mlp"] = run_experiment("mlp", MLP())
torch.manual_seed(0)
results["cnn"] = run_experiment("cnn", CNN())

# %%
print(f"{'model':<6}{'first loss':>12}{'last loss':>12}{'acc':>8}")
for name, h in results.items():
    print(f"{name:<6}{h['train_loss'][0]:>12.4f}{h['train_loss'][-1]:>12.4f}{h['test_acc'][-1]:>8.1f}")
with open("results.json", "w") as f:
    json.dump(results, f)
