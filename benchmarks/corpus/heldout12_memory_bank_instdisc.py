# corpus: instance-discrimination research code: memory bank of normalised features indexed by sample id, NCE-style softmax over the bank, bank rows updated by momentum after each step, weighted kNN accuracy from the bank each epoch
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

parser = argparse.ArgumentParser()
parser.add_argument("--low_dim", default=32, type=int)
parser.add_argument("--nce_t", default=0.1, type=float)
parser.add_argument("--nce_m", default=0.5, type=float)
parser.add_argument("--lr", default=0.03, type=float)
parser.add_argument("--epochs", default=4, type=int)
parser.add_argument("--batch_size", default=32, type=int)
parser.add_argument("--K", default=20, type=int, help="kNN neighbours")
args = parser.parse_args()

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)


class InstanceDataset(Dataset):
    """returns (view, target, index) like the CIFAR10Instance wrapper"""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        img = self.x[index] + 0.2 * torch.randn_like(self.x[index])
        return img, self.y[index], index


centers = torch.randn(6, 24) * 1.5
ytr = torch.randint(0, 6, (384,))
yte = torch.randint(0, 6, (96,))
trainset = InstanceDataset(centers[ytr] + torch.randn(384, 24), ytr)
testset = InstanceDataset(centers[yte] + torch.randn(96, 24), yte)
trainloader = DataLoader(trainset, batch_size=args.batch_size, shuffle=True)
testloader = DataLoader(testset, batch_size=64, shuffle=False)
ndata = len(trainset)


class Normalize(nn.Module):
    def forward(self, x):
        return F.normalize(x, dim=1)


net = nn.Sequential(nn.Linear(24, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Linear(128, args.low_dim), Normalize()).to(device)

stdv = 1.0 / math.sqrt(args.low_dim / 3)
memory = torch.rand(ndata, args.low_dim).mul_(2 * stdv).add_(-stdv).to(device)
memory = F.normalize(memory, dim=1)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)


def adjust_learning_rate(optimizer, epoch):
    lr = args.lr * (0.1 ** (epoch // 3))
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr


def kNN(net, memory, trainloader, testloader, K, sigma):
    net.eval()
    train_labels = torch.as_tensor(trainloader.dataset.y, device=device)
    total, correct = 0, 0
    with torch.no_grad():
        for inputs, targets, _ in testloader:
            inputs, targets = inputs.to(device), targets.to(device)
            features = net(inputs)
            dist = features @ memory.t()
            yd, yi = dist.topk(K, dim=1, largest=True, sorted=True)
            retrieval = train_labels[yi]
            one_hot = torch.zeros(inputs.size(0) * K, 6, device=device)
            one_hot.scatter_(1, retrieval.view(-1, 1), 1)
            yd_transform = yd.clone().div_(sigma).exp_()
            probs = torch.sum(one_hot.view(inputs.size(0), -1, 6) * yd_transform.view(inputs.size(0), -1, 1), 1)
            pred = probs.argmax(1)
            correct += pred.eq(targets).sum().item()
            total += targets.size(0)
    return correct / total


def train(epoch):
    global memory
    print("\nEpoch: %d" % epoch)
    adjust_learning_rate(optimizer, epoch)
    net.train()
    train_loss = 0.0
    for batch_idx, (inputs, targets, indexes) in enumerate(trainloader):
        inputs, indexes = inputs.to(device), indexes.to(device)
        optimizer.zero_grad()
        features = net(inputs)
        # non-parametric softmax over the whole memory bank
        out = features @ memory.t() / args.nce_t
        loss = criterion(out, indexes)
        loss.backward()
        optimizer.step()

        with torch.no_grad():
            pos = memory.index_select(0, indexes)
            pos.mul_(args.nce_m).add_(features.detach() * (1 - args.nce_m))
            memory.index_copy_(0, indexes, F.normalize(pos, dim=1))

        train_loss += loss.item()
        if batch_idx % 4 == 0:
            print("[%d/%d] Loss: %.3f (avg %.3f)" % (batch_idx, len(trainloader), loss.item(), train_loss / (batch_idx + 1)))


best_acc = 0.0
for epoch in range(args.epochs):
    train(epoch)
    acc = kNN(net, memory, trainloader, testloader, args.K, args.nce_t)
    if acc > best_acc:
        best_acc = acc
        torch.save({"net": net.state_dict(), "memory": memory.cpu(), "acc": acc, "epoch": epoch}, "instdisc_ckpt.t7")
    print("kNN accuracy: %.2f%% best %.2f%%" % (acc * 100, best_acc * 100))
print("best accuracy: {:.2f}".format(best_acc * 100))
