# corpus: multi-task model (two heads, two weighted criteria), CosineAnnealingLR per epoch, manual warmup in epoch 0
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import CosineAnnealingLR
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(3)

N = 384
feats = torch.randn(N, 12)
cls_target = (feats[:, 0] + feats[:, 1] > 0).long()
reg_target = feats[:, 2:5].sum(dim=1, keepdim=True)
dataset = TensorDataset(feats, cls_target, reg_target)
loader = DataLoader(dataset, batch_size=32, shuffle=True, drop_last=True)


class MultiTaskNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.cls_head = nn.Linear(64, 2)
        self.reg_head = nn.Linear(64, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.cls_head(h), self.reg_head(h)


model = MultiTaskNet()
ce = nn.CrossEntropyLoss()
mse = nn.MSELoss()
w_cls, w_reg = 1.0, 0.5

base_lr = 0.01
epochs = 4
optimizer = torch.optim.SGD(model.parameters(), lr=base_lr, momentum=0.9, weight_decay=5e-4)
scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
warmup_iters = len(loader)

for epoch in range(epochs):
    model.train()
    total, n = 0.0, 0
    for i, (x, yc, yr) in enumerate(loader):
        if epoch == 0:
            # linear warmup over the first epoch
            for g in optimizer.param_groups:
                g["lr"] = base_lr * (i + 1) / warmup_iters
        logits, value = model(x)
        loss = w_cls * ce(logits, yc) + w_reg * mse(value, yr)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        n += 1
    scheduler.step()
    print(f"epoch {epoch} loss {total / n:.4f} lr {optimizer.param_groups[0]['lr']:.5f}")
