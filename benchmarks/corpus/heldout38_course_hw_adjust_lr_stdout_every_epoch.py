# corpus: course assignment (2018 deep learning course HW, student solution): adjust_learning_rate(optimizer, epoch) helper, sys.stdout.write('\r...') progress, .data accuracy, torch.save(model.state_dict()) every epoch, F.cross_entropy(reduction='sum') test loss
import sys
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable
from torch.utils.data import Dataset, DataLoader

# ---------------------------------------------------------------------------
# Hyperparameters (do not change for the submitted version)
# ---------------------------------------------------------------------------
BATCH_SIZE = 16
N_EPOCHS = 4
BASE_LR = 0.05
LR_DECAY_EVERY = 2
SEED = 11

torch.manual_seed(SEED)
np.random.seed(SEED)
cuda = torch.cuda.is_available()


class FashionLike(Dataset):
    """Provided dataset class (the real one reads the .npy files from the course server)."""

    def __init__(self, n, train=True):
        g = torch.Generator().manual_seed(0 if train else 1)
        self.x = torch.randn(n, 1, 14, 14, generator=g)
        w = torch.randn(14 * 14, 5, generator=torch.Generator().manual_seed(7))
        self.y = (self.x.view(n, -1) @ w).argmax(1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


train_loader = DataLoader(FashionLike(160, train=True), batch_size=BATCH_SIZE, shuffle=True)
test_loader = DataLoader(FashionLike(64, train=False), batch_size=32, shuffle=False)


# TODO (Problem 2a): implement the network
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(16 * 3 * 3, 32)
        self.fc2 = nn.Linear(32, 5)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 16 * 3 * 3)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return x


# TODO (Problem 2b): learning rate schedule
def adjust_learning_rate(optimizer, epoch):
    """Sets the learning rate to the initial LR decayed by 10 every LR_DECAY_EVERY epochs"""
    lr = BASE_LR * (0.1 ** (epoch // LR_DECAY_EVERY))
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr
    return lr


model = Net()
if cuda:
    model.cuda()
optimizer = optim.SGD(model.parameters(), lr=BASE_LR, momentum=0.9)

train_losses = []
test_losses = []
test_accs = []


def train(epoch):
    model.train()
    lr = adjust_learning_rate(optimizer, epoch)
    start = time.time()
    n_batches = len(train_loader)
    epoch_loss = 0.0
    for batch_idx, (data, target) in enumerate(train_loader):
        if cuda:
            data, target = data.cuda(), target.cuda()
        data, target = Variable(data), Variable(target)
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.data.item()
        sys.stdout.write('\rEpoch %d [%d/%d] lr=%.4f loss=%.4f (%.1fs)' % (
            epoch, batch_idx + 1, n_batches, lr, loss.data.item(), time.time() - start))
        sys.stdout.flush()
    sys.stdout.write('\n')
    train_losses.append(epoch_loss / n_batches)


def test():
    model.eval()
    test_loss = 0
    correct = 0
    for data, target in test_loader:
        if cuda:
            data, target = data.cuda(), target.cuda()
        data, target = Variable(data, volatile=True), Variable(target)
        output = model(data)
        # was: F.cross_entropy(output, target, size_average=False).data[0]
        test_loss += F.cross_entropy(output, target, reduction='sum').item()  # sum up batch loss
        pred = output.data.max(1, keepdim=True)[1]  # get the index of the max log-probability
        correct += pred.eq(target.data.view_as(pred)).long().cpu().sum().item()

    test_loss /= len(test_loader.dataset)
    acc = 100. * correct / len(test_loader.dataset)
    test_losses.append(test_loss)
    test_accs.append(acc)
    print('Test set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)'.format(
        test_loss, correct, len(test_loader.dataset), acc))


for epoch in range(N_EPOCHS):
    train(epoch)
    test()
    torch.save(model.state_dict(), 'hw2_model_epoch%d.pth' % epoch)

np.save('hw2_curves.npy', np.array([train_losses, test_losses, test_accs]))
print('best test acc: %.1f%% (epoch %d)' % (max(test_accs), int(np.argmax(test_accs))))
