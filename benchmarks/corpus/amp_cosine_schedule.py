# corpus: AMP (autocast + GradScaler, enabled only on CUDA) with a cosine LR schedule stepped per batch
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")

# fake image-like data
images = torch.randn(320, 3, 16, 16)
labels = torch.randint(0, 5, (320,))
loader = DataLoader(TensorDataset(images, labels), batch_size=40, shuffle=True, drop_last=True)

model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1),
    nn.BatchNorm2d(16),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(32, 5),
).to(device)

EPOCHS = 3
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS * len(loader))
scaler = torch.cuda.amp.GradScaler(enabled=use_cuda)
loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)

for epoch in range(EPOCHS):
    model.train()
    total, seen = 0.0, 0
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        with torch.cuda.amp.autocast(enabled=use_cuda):
            logits = model(x)
            loss = loss_fn(logits, y)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        total += loss.item() * x.size(0)
        seen += x.size(0)
    print(f"epoch {epoch} loss {total / seen:.4f} lr {scheduler.get_last_lr()[0]:.5f}")
