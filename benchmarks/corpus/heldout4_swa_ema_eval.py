# corpus: EMA of the weights with torch.optim.swa_utils.AveragedModel(multi_avg_fn=get_ema_multi_avg_fn(...)) updated after every step; only the EMA model is evaluated and saved
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(123)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

num_epochs = 3
ema_decay = 0.9

X = torch.randn(200, 2)
Y = ((X[:, 0] ** 2 + X[:, 1] ** 2) < 1.0).long()
train_loader = DataLoader(TensorDataset(X[:160], Y[:160]), batch_size=20, shuffle=True)
test_loader = DataLoader(TensorDataset(X[160:], Y[160:]), batch_size=40)

model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2)).to(device)
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(ema_decay))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(num_epochs):
    model.train()
    for xb, yb in train_loader:
        xb, yb = xb.to(device), yb.to(device)
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ema_model.update_parameters(model)

    ema_model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in test_loader:
            xb, yb = xb.to(device), yb.to(device)
            correct += (ema_model(xb).argmax(dim=1) == yb).sum().item()
    print(f"Epoch {epoch}: last loss {loss.item():.4f}, EMA test acc {correct / len(test_loader.dataset):.3f}")

torch.save(ema_model.module.state_dict(), "ema_weights.pt")
