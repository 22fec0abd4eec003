# corpus: evaluation with no_grad only around the forward, inside the per-batch body; model.eval() toggled per epoch
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(31)

train_loader = DataLoader(TensorDataset(torch.randn(120, 9), torch.randint(0, 3, (120,))), batch_size=12, shuffle=True)
test_loader = DataLoader(TensorDataset(torch.randn(36, 9), torch.randint(0, 3, (36,))), batch_size=12)

model = nn.Sequential(nn.Linear(9, 27), nn.ReLU(), nn.Dropout(0.3), nn.Linear(27, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()

for epoch in range(3):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()

    model.eval()
    correct = 0
    test_loss = 0.0
    for x, y in test_loader:
        with torch.no_grad():
            out = model(x)
        test_loss += criterion(out, y).item()
        correct += (out.argmax(dim=1) == y).sum().item()
    print("epoch {} test loss {:.4f} acc {:.2f}".format(epoch, test_loss / len(test_loader), correct / len(test_loader.dataset)))
