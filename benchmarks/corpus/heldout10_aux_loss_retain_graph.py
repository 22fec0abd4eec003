# corpus: auxiliary-loss training: a backbone with a main and an auxiliary head, loss_main.backward(retain_graph=True) then (aux_weight * loss_aux).backward() accumulating into one optimizer, torch.nn.utils.clip_grad_value_, per-epoch means of both losses printed, test accuracy of the main head
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(3)


class AuxNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.main_head = nn.Linear(64, 5)
        self.aux_head = nn.Linear(64, 1)

    def forward(self, x):
        h = self.backbone(x)
        return self.main_head(h), self.aux_head(h).squeeze(-1)


X = torch.randn(600, 32)
y_cls = (X[:, :5] * torch.arange(1, 6).float()).argmax(dim=1)
y_reg = X[:, 5:10].sum(dim=1)
train_ds = TensorDataset(X[:480], y_cls[:480], y_reg[:480])
test_ds = TensorDataset(X[480:], y_cls[480:], y_reg[480:])
train_loader = DataLoader(train_ds, batch_size=40, shuffle=True)
test_loader = DataLoader(test_ds, batch_size=120)

model = AuxNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
aux_weight = 0.3
clip_value = 0.5

for epoch in range(6):
    model.train()
    total_main, total_aux = 0.0, 0.0
    for xb, yb_cls, yb_reg in train_loader:
        optimizer.zero_grad()
        logits, reg = model(xb)
        loss_main = F.cross_entropy(logits, yb_cls)
        loss_aux = F.mse_loss(reg, yb_reg)
        loss_main.backward(retain_graph=True)
        (aux_weight * loss_aux).backward()
        torch.nn.utils.clip_grad_value_(model.parameters(), clip_value)
        optimizer.step()
        total_main += loss_main.item()
        total_aux += loss_aux.item()
    n = len(train_loader)
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb_cls, _ in test_loader:
            logits, _ = model(xb)
            correct += (logits.argmax(1) == yb_cls).sum().item()
    print(f"epoch {epoch}: main {total_main / n:.4f} aux {total_aux / n:.4f} test acc {correct / len(test_ds):.3f}")

torch.save(model.state_dict(), "aux_model.pt")
