"""A plain PyTorch training script, the way tutorials write it: the demo's input.

    python examples/train_classifier.py

Synthetic "digits": each class is a random prototype image plus noise, so the model has
something real to learn and the loss goes down, without downloading a dataset.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split


class SimpleModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer_1 = nn.Linear(28 * 28, 128)
        self.layer_2 = nn.Linear(128, 10)

    def forward(self, x):
        x = x.view(x.size(0), -1)
        x = F.relu(self.layer_1(x))
        return self.layer_2(x)


def make_dataset(n=2048, num_classes=10, seed=0):
    generator = torch.Generator().manual_seed(seed)
    prototypes = torch.randn(num_classes, 1, 28, 28, generator=generator)
    labels = torch.randint(0, num_classes, (n,), generator=generator)
    images = 0.15 * prototypes[labels] + torch.randn(n, 1, 28, 28, generator=generator)
    return TensorDataset(images, labels)


torch.manual_seed(42)
dataset = make_dataset()
train_set, val_set = random_split(dataset, [1792, 256])
train_dataloader = DataLoader(train_set, batch_size=64, shuffle=True)
val_dataloader = DataLoader(val_set, batch_size=64)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = SimpleModel().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

num_epochs = 3
for epoch in range(num_epochs):
    model.train()
    for batch_idx, (data, labels) in enumerate(train_dataloader):
        data, labels = data.to(device), labels.to(device)

        optimizer.zero_grad()
        outputs = model(data)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()

    model.eval()
    with torch.no_grad():
        val_loss = 0
        for data, labels in val_dataloader:
            data, labels = data.to(device), labels.to(device)
            outputs = model(data)
            val_loss += criterion(outputs, labels).item()
        val_loss /= len(val_dataloader)
        print(f"Epoch {epoch+1}/{num_epochs}, Validation Loss: {val_loss:.4f}")
