# corpus: Real Python / GfG-style classifier with the train/eval placement tutorials get wrong: model.train() inside the batch loop, model.eval() in validate(), ReduceLROnPlateau on val loss with lr read from param_groups, accuracy via (pred == y).sum().item(), best-model copy and a per-class classification summary after training
import copy
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 123
torch.manual_seed(SEED)

CLASSES = ["setosa", "versicolor", "virginica"]
LR = 0.05
EPOCHS = 8
BATCH = 16


def make_iris_like(n):
    # three gaussian blobs in 4-D like the iris measurements
    y = torch.randint(0, 3, (n,))
    centers = torch.tensor([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.5, 2.0]])
    x = centers[y] + 0.45 * torch.randn(n, 4)
    return x, y


X_train, y_train = make_iris_like(240)
X_val, y_val = make_iris_like(60)
X_test, y_test = make_iris_like(60)

train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=BATCH)
test_loader = DataLoader(TensorDataset(X_test, y_test), batch_size=BATCH)

model = nn.Sequential(
    nn.Linear(4, 32),
    nn.ReLU(),
    nn.Dropout(0.2),
    nn.Linear(32, 3),
)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, "min", factor=0.1, patience=1)


def validate(model, loader):
    model.eval()
    total_loss, correct = 0.0, 0
    with torch.no_grad():
        for X, y in loader:
            pred = model(X)
            total_loss += loss_fn(pred, y).item() * len(y)
            correct += (pred.argmax(dim=1) == y).sum().item()
    return total_loss / len(loader.dataset), correct / len(loader.dataset)


best_acc = 0.0
best_weights = None
start = time.time()
for epoch in range(EPOCHS):
    running_loss = 0.0
    correct = 0
    for batch_idx, (X, y) in enumerate(train_loader):
        model.train()
        optimizer.zero_grad()
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()

        running_loss += loss.item()
        correct += (pred.argmax(1) == y).sum().item()

        if batch_idx % 5 == 0:
            # peek at validation in the middle of the epoch, as the tutorial does
            v_loss, v_acc = validate(model, val_loader)
            print(f"  batch {batch_idx:2d} loss {loss.item():.4f} val_acc {v_acc:.3f}")

    val_loss, val_acc = validate(model, val_loader)
    scheduler.step(val_loss)
    print(f"Epoch {epoch + 1}/{EPOCHS} train_loss={running_loss / len(train_loader):.4f} "
          f"train_acc={correct / len(train_loader.dataset):.3f} val_loss={val_loss:.4f} "
          f"val_acc={val_acc:.3f} lr={optimizer.param_groups[0]['lr']:.4g}")
    if val_acc > best_acc:
        best_acc = val_acc
        best_weights = copy.deepcopy(model.state_dict())

print(f"Training took {time.time() - start:.1f}s, best val acc {best_acc:.3f}")
model.load_state_dict(best_weights)
torch.save(best_weights, "best_iris.pt")

# test loop + classification summary
model.eval()
y_true, y_pred = [], []
with torch.no_grad():
    for X, y in test_loader:
        y_pred.extend(model(X).argmax(1).tolist())
        y_true.extend(y.tolist())
y_true = torch.tensor(y_true)
y_pred = torch.tensor(y_pred)
print(f"{'class':<12}{'precision':>10}{'recall':>10}{'f1':>8}{'support':>9}")
for i, name in enumerate(CLASSES):
    tp = ((y_pred == i) & (y_true == i)).sum().item()
    prec = tp / max((y_pred == i).sum().item(), 1)
    rec = tp / max((y_true == i).sum().item(), 1)
    f1 = 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0
    print(f"{name:<12}{prec:>10.2f}{rec:>10.2f}{f1:>8.2f}{(y_true == i).sum().item():>9}")
print(f"Test accuracy: {(y_pred == y_true).sum().item() / len(y_true):.3f}")
