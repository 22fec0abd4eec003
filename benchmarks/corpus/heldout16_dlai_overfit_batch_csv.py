# corpus: Coursera/deeplearning.ai-style graded notebook as .py: "sanity check: overfit a single batch" cell before the real training, torch.manual_seed in several cells, model.train()/model.eval() scattered, costs list printed every 100 steps, final cell writes test predictions to submission.csv with the csv module
import csv

import numpy as np
import torch
import torch.nn as nn

# %% [markdown]
# ## 1 - Packages and dataset

# %%
torch.manual_seed(1)
np.random.seed(1)


class SignsDataset(torch.utils.data.Dataset):
    """Synthetic stand-in for the SIGNS dataset (6 classes, 3x16x16)."""

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.X = torch.randn(n, 3, 16, 16, generator=g)
        self.Y = (self.X[:, 0, :8].mean((1, 2)) * 6).long().clamp(-3, 2) + 3

    def __len__(self):
        return len(self.Y)

    def __getitem__(self, i):
        return self.X[i], self.Y[i]


train_set = SignsDataset(480, seed=0)
test_set = SignsDataset(120, seed=1)
print("number of training examples =", len(train_set))
print("number of test examples =", len(test_set))

# %% [markdown]
# ## 2 - Model: CONV2D -> RELU -> MAXPOOL -> CONV2D -> RELU -> MAXPOOL -> FLATTEN -> DENSE


# %%
# GRADED FUNCTION: convolutional_model
def convolutional_model(num_classes=6):
    torch.manual_seed(2)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 4, padding="same"), nn.ReLU(), nn.MaxPool2d(4, 4),
        nn.Conv2d(8, 16, 2, padding="same"), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Flatten(), nn.Linear(16 * 2 * 2, num_classes),
    )
    return model


# %%
model = convolutional_model()
print(model)
criterion = nn.CrossEntropyLoss()

# %% [markdown]
# ### Sanity check: overfit a single batch
# If the model cannot drive the loss to ~0 on 16 examples, something is wrong.

# %%
torch.manual_seed(3)
xb, yb = next(iter(torch.utils.data.DataLoader(train_set, batch_size=16, shuffle=True)))
sanity_model = convolutional_model()
sanity_opt = torch.optim.Adam(sanity_model.parameters(), lr=0.01)
sanity_model.train()
for i in range(60):
    sanity_opt.zero_grad()
    loss = criterion(sanity_model(xb), yb)
    loss.backward()
    sanity_opt.step()
print("overfit single batch: loss after 60 steps = %.4f" % loss.item())

# %% [markdown]
# ## 3 - Training

# %%
torch.manual_seed(4)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=64, shuffle=True)
test_loader = torch.utils.data.DataLoader(test_set, batch_size=64)
optimizer = torch.optim.Adam(model.parameters(), lr=0.009)
num_epochs = 6
costs = []
step = 0
for epoch in range(num_epochs):
    model.train()
    minibatch_cost = 0.0
    for X, Y in train_loader:
        optimizer.zero_grad()
        Z = model(X)
        cost = criterion(Z, Y)
        cost.backward()
        optimizer.step()
        minibatch_cost += cost.item() / len(train_loader)
        step += 1
    if epoch % 2 == 0:
        print("Cost after epoch %i: %f" % (epoch, minibatch_cost))
    costs.append(minibatch_cost)

print("costs:", np.round(costs, 4).tolist())


# %%
def compute_accuracy(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for X, Y in loader:
            correct += (model(X).argmax(1) == Y).sum().item()
    return correct / len(loader.dataset)


print("Train Accuracy:", compute_accuracy(model, train_loader))
print("Test Accuracy:", compute_accuracy(model, test_loader))

# %% [markdown]
# ## 4 - Predictions for submission

# %%
model.eval()
rows = []
with torch.no_grad():
    for i in range(len(test_set)):
        x, _ = test_set[i]
        pred = model(x.unsqueeze(0)).argmax(1).item()
        rows.append((i, pred))

with open("submission.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["id", "label"])
    writer.writerows(rows)
print("wrote", len(rows), "predictions")
