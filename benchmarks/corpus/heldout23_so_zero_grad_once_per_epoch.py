# corpus: StackOverflow "why does my loss go up after a few batches?" — globals, optimizer.zero_grad() once per epoch before the batch loop (gradients pile up over the batches), total_loss += loss (a tensor keeping its graph) printed as total_loss / len(train_loader), test accuracy with %d %%
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)

# my real data is a csv with 20 features, here is random data with the same shape
X = torch.randn(320, 20)
y = (X[:, 0] + 0.5 * X[:, 3] > 0).long()

train_ds = TensorDataset(X[:256], y[:256])
test_ds = TensorDataset(X[256:], y[256:])
train_loader = DataLoader(train_ds, batch_size=32, shuffle=True)
test_loader = DataLoader(test_ds, batch_size=64)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(20, 64)
        self.fc2 = nn.Linear(64, 32)
        self.fc3 = nn.Linear(32, 2)
        self.relu = nn.ReLU()

    def forward(self, x):
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.005, momentum=0.9)

EPOCHS = 4

for epoch in range(EPOCHS):
    total_loss = 0
    optimizer.zero_grad()
    for i, (inputs, labels) in enumerate(train_loader):
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        total_loss += loss
    print("epoch", epoch + 1, "loss:", total_loss / len(train_loader))

correct = 0
total = 0
with torch.no_grad():
    for inputs, labels in test_loader:
        outputs = net(inputs)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()

print('Accuracy of the network on the test set: %d %%' % (100 * correct / total))
torch.save(net.state_dict(), "net.pth")
