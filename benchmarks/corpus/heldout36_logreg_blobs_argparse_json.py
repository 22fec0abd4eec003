# corpus: logistic regression on hand-made "make_blobs" (two Gaussian centers + randn), argparse, standardization by hand, `LogisticRegression(nn.Module)` with sigmoid in forward and `nn.BCELoss`, full-batch `for epoch in range(args.epochs)` with train/test accuracy every 50 epochs into a history dict dumped with json
import argparse
import json

import torch
import torch.nn as nn


def make_blobs(n_samples=400, centers=((-1.0, -1.0), (1.5, 1.0)), std=0.9, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.tensor(centers)
    labels = torch.randint(0, len(centers), (n_samples,), generator=g)
    X = centers[labels] + std * torch.randn(n_samples, centers.shape[1], generator=g)
    return X, labels


class LogisticRegression(nn.Module):
    def __init__(self, n_inputs):
        super(LogisticRegression, self).__init__()
        self.linear = nn.Linear(n_inputs, 1)

    def forward(self, x):
        y_pred = torch.sigmoid(self.linear(x))
        return y_pred


parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=300)
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--test-size", type=float, default=0.25)
parser.add_argument("--out", default="logreg_history.json")
args = parser.parse_args()

torch.manual_seed(1)
X, y = make_blobs()
n_test = int(len(X) * args.test_size)
X_train, X_test = X[n_test:], X[:n_test]
y_train, y_test = y[n_test:].float().view(-1, 1), y[:n_test].float().view(-1, 1)

# standardize with the train statistics
mean, std = X_train.mean(0), X_train.std(0)
X_train = (X_train - mean) / std
X_test = (X_test - mean) / std

model = LogisticRegression(X_train.shape[1])
criterion = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)

history = {"epoch": [], "loss": [], "train_acc": [], "test_acc": []}
for epoch in range(args.epochs):
    y_pred = model(X_train)
    loss = criterion(y_pred, y_train)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()

    if (epoch + 1) % 50 == 0:
        with torch.no_grad():
            train_acc = (y_pred.round() == y_train).float().mean().item()
            y_pred_test = model(X_test)
            test_acc = y_pred_test.round().eq(y_test).sum().item() / float(y_test.shape[0])
        history["epoch"].append(epoch + 1)
        history["loss"].append(loss.item())
        history["train_acc"].append(train_acc)
        history["test_acc"].append(test_acc)
        print(f"epoch: {epoch+1}, loss = {loss.item():.4f}, train acc = {train_acc:.4f}, test acc = {test_acc:.4f}")

w, b = model.linear.weight.detach().squeeze(), model.linear.bias.item()
print("weights", [round(v, 4) for v in w.tolist()], "bias", round(b, 4))
with open(args.out, "w") as f:
    json.dump(history, f, indent=2)
