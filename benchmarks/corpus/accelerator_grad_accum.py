# corpus: torch.accelerator device idiom, gradient accumulation over 4 micro-batches, dict batches
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(123)

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")


class RegressionDataset(Dataset):
    def __init__(self, n=256):
        self.features = torch.randn(n, 8)
        self.targets = self.features @ torch.linspace(-1, 1, 8).unsqueeze(1) + 0.1 * torch.randn(n, 1)

    def __len__(self):
        return len(self.features)

    def __getitem__(self, idx):
        return {"features": self.features[idx], "target": self.targets[idx]}


loader = DataLoader(RegressionDataset(), batch_size=8, shuffle=True)
model = nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Linear(32, 1)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
loss_fn = nn.MSELoss()
accumulation_steps = 4

for epoch in range(3):
    model.train()
    optimizer.zero_grad()
    epoch_loss = 0.0
    for i, batch in enumerate(loader):
        features = batch["features"].to(device)
        target = batch["target"].to(device)
        prediction = model(features)
        loss = loss_fn(prediction, target) / accumulation_steps
        loss.backward()
        epoch_loss += loss.item()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    print(f"epoch {epoch}: loss {epoch_loss / (len(loader) / accumulation_steps):.5f}")
