# corpus: optimizer per layer / per parameter group: a dict of optimizers built by looping over named children (SGD for the embedding-like first layer, Adam for the rest), all zeroed and stepped in a loop each batch; plus a param-group optimizer with a different lr per layer; lrs printed per epoch
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(11)
device = "cuda" if torch.cuda.is_available() else "cpu"

X = torch.randn(300, 20)
w = torch.randn(20, 3)
y = (X @ w).argmax(1)
train_ds = TensorDataset(X[:240], y[:240])
val_ds = TensorDataset(X[240:], y[240:])
train_loader = DataLoader(train_ds, batch_size=24, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=60)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(20, 32)
        self.layer2 = nn.Linear(32, 32)
        self.head = nn.Linear(32, 3)

    def forward(self, x):
        x = torch.relu(self.layer1(x))
        x = torch.relu(self.layer2(x))
        return self.head(x)


model = MLP().to(device)
criterion = nn.CrossEntropyLoss()

# one optimizer per layer
optimizers = {}
for name, layer in model.named_children():
    if name == "layer1":
        optimizers[name] = torch.optim.SGD(layer.parameters(), lr=0.05, momentum=0.9)
    else:
        optimizers[name] = torch.optim.Adam(layer.parameters(), lr=1e-3)
schedulers = [torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9) for opt in optimizers.values()]


def evaluate(model, loader):
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            out = model(xb)
            loss_sum += criterion(out, yb).item() * xb.size(0)
            correct += (out.argmax(1) == yb).sum().item()
            total += xb.size(0)
    model.train()
    return loss_sum / total, correct / total


train_losses = []
for epoch in range(5):
    model.train()
    running = 0.0
    for xb, yb in train_loader:
        xb, yb = xb.to(device), yb.to(device)
        for opt in optimizers.values():
            opt.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        for opt in optimizers.values():
            opt.step()
        running += loss.item()
    for sched in schedulers:
        sched.step()
    train_losses.append(running / len(train_loader))
    val_loss, val_acc = evaluate(model, val_loader)
    lrs = {k: round(o.param_groups[0]["lr"], 5) for k, o in optimizers.items()}
    print(f"epoch {epoch}: train {train_losses[-1]:.4f} val {val_loss:.4f} acc {val_acc:.3f} lrs {lrs}")

# second stage: fine-tune with one optimizer and discriminative lrs per parameter group
ft_opt = torch.optim.SGD(
    [
        {"params": model.layer1.parameters(), "lr": 1e-4},
        {"params": model.layer2.parameters(), "lr": 1e-3},
        {"params": model.head.parameters()},
    ],
    lr=1e-2,
    momentum=0.9,
)
for epoch in range(2):
    for xb, yb in train_loader:
        xb, yb = xb.to(device), yb.to(device)
        ft_opt.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        ft_opt.step()
    print("finetune epoch", epoch, "val", evaluate(model, val_loader))

torch.save(model.state_dict(), "per_layer_model.pt")
