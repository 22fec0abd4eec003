# corpus: official "saving and loading a general checkpoint" recipe: train a few epochs, torch.save({'epoch', 'model_state_dict', 'optimizer_state_dict', 'loss'}, PATH), then a fresh model and optimizer load_state_dict from it, model.train() and training continues from the saved epoch
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)

X = torch.randn(256, 3, 16, 16)
y = (X.mean(dim=(1, 2, 3)) > 0).long() + (X[:, 0].mean(dim=(1, 2)) > 0.1).long()
trainloader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 3)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 2 * 2, 32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 2 * 2)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return x


def train_epochs(model, optimizer, start_epoch, end_epoch):
    criterion = nn.CrossEntropyLoss()
    loss = None
    for epoch in range(start_epoch, end_epoch):
        epoch_loss = 0.0
        for inputs, labels in trainloader:
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        print(f"epoch {epoch}: loss {epoch_loss / len(trainloader):.4f}")
    return loss


net = Net()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)

EPOCH = 3
PATH = "model.pt"
LOSS = train_epochs(net, optimizer, 0, EPOCH)

torch.save({
    'epoch': EPOCH,
    'model_state_dict': net.state_dict(),
    'optimizer_state_dict': optimizer.state_dict(),
    'loss': LOSS,
}, PATH)

# ---- later: resume training ----
model = Net()
optimizer = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

checkpoint = torch.load(PATH, weights_only=True)
model.load_state_dict(checkpoint['model_state_dict'])
optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
epoch = checkpoint['epoch']
loss = checkpoint['loss']
print(f"resumed from epoch {epoch}, last loss {loss.item():.4f}")

model.train()
train_epochs(model, optimizer, epoch, epoch + 2)
torch.save(model.state_dict(), "model_final.pt")
