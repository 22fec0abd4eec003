# corpus: Medium "PyTorch CNN in 5 minutes" — official-example-style train(model, device, loader, optimizer, epoch) / test() functions, model.train() called inside test()'s batch loop (validation runs with dropout on and updates batchnorm stats), accuracy from pred.eq(target.data.view_as(pred)).sum() (a tensor) divided by the dataset length, scheduler.step() both at the end of train() and in the epoch loop (twice per epoch)
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.bn1 = nn.BatchNorm2d(6)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(6 * 5 * 5, 24)
        self.fc2 = nn.Linear(24, 4)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 2)
        x = self.dropout(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def train(model, device, train_loader, optimizer, scheduler, epoch, log_interval=3):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))
    scheduler.step()


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            model.train()
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.data.view_as(pred)).sum()

    test_loss /= len(test_loader.dataset)
    acc = 100. * correct / len(test_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset), acc))
    return acc


def main():
    torch.manual_seed(1)
    use_cuda = torch.cuda.is_available()
    device = torch.device("cuda" if use_cuda else "cpu")

    images = torch.randn(160, 1, 12, 12)
    labels = torch.randint(0, 4, (160,))
    train_loader = DataLoader(TensorDataset(images[:128], labels[:128]), batch_size=16, shuffle=True)
    test_loader = DataLoader(TensorDataset(images[128:], labels[128:]), batch_size=16)

    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)

    for epoch in range(1, 4):
        train(model, device, train_loader, optimizer, scheduler, epoch)
        test(model, device, test_loader)
        scheduler.step()

    torch.save(model.state_dict(), "small_cnn.pt")


if __name__ == '__main__':
    main()
