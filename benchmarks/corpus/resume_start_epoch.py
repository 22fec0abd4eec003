# corpus: resume block (load checkpoint if it exists) then for epoch in range(start_epoch, epochs), checkpoint saved each epoch
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(8)

CHECKPOINT = "resume_demo_last.pt"
EPOCHS = 4

features = torch.randn(150, 7)
targets = (features[:, 0] * features[:, 1] > 0).long()
loader = DataLoader(TensorDataset(features, targets), batch_size=15, shuffle=True)

model = nn.Sequential(nn.Linear(7, 24), nn.ReLU(), nn.Linear(24, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=4e-3)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
criterion = nn.CrossEntropyLoss()

start_epoch = 0
if os.path.exists(CHECKPOINT):
    ckpt = torch.load(CHECKPOINT)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    scheduler.load_state_dict(ckpt["scheduler"])
    start_epoch = ckpt["epoch"] + 1
    print(f"resumed from epoch {start_epoch}")

for epoch in range(start_epoch, EPOCHS):
    model.train()
    running = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        running += loss.item()
    scheduler.step()
    print(f"epoch {epoch}: loss {running / len(loader):.4f}")
    torch.save(
        {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()},
        CHECKPOINT,
    )

# remove it so that the next run trains from scratch again
os.remove(CHECKPOINT)
