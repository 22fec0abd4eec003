# corpus: spatial transformer tutorial in a project: argparse, logging, device cuda/mps/cpu helper, Net.stn() with affine_grid/grid_sample, train(epoch)/test() with log_interval, StepLR, checkpoint every N epochs + best copy, SummaryWriter, confusion matrix
import argparse
import logging
import os
import shutil

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

try:
    from torch.utils.tensorboard import SummaryWriter
except ImportError:  # tensorboard not installed
    class SummaryWriter:
        def __init__(self, *a, **k):
            pass

        def add_scalar(self, *a, **k):
            pass

        def close(self):
            pass

logger = logging.getLogger("stn")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--log-interval", type=int, default=4)
    p.add_argument("--ckpt-every", type=int, default=2)
    p.add_argument("--out", default="stn_out")
    p.add_argument("--seed", type=int, default=17)
    return p.parse_args()


def pick_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    elif torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=3)
        self.conv2 = nn.Conv2d(6, 12, kernel_size=3)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(12 * 2 * 2, 24)
        self.fc2 = nn.Linear(24, 10)

        # Spatial transformer localization-network
        self.localization = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(4, 6, kernel_size=3),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True)
        )

        # Regressor for the 3 * 2 affine matrix
        self.fc_loc = nn.Sequential(
            nn.Linear(6 * 2 * 2, 16),
            nn.ReLU(True),
            nn.Linear(16, 3 * 2)
        )

        # Initialize the weights/bias with identity transformation
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    # Spatial transformer network forward function
    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 6 * 2 * 2)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)

        grid = F.affine_grid(theta, x.size(), align_corners=False)
        x = F.grid_sample(x, grid, align_corners=False)

        return x

    def forward(self, x):
        # transform the input
        x = self.stn(x)

        # Perform the usual forward pass
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 12 * 2 * 2)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def train(args, model, device, train_loader, optimizer, epoch, writer):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)

        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            logger.info('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))
            writer.add_scalar("train_loss", loss.item(), (epoch - 1) * len(train_loader) + batch_idx)


def test(model, device, test_loader, num_classes=10):
    with torch.no_grad():
        model.eval()
        test_loss = 0
        correct = 0
        cm = np.zeros((num_classes, num_classes), dtype=np.int64)
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)

            # sum up batch loss
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            # get the index of the max log-probability
            pred = output.max(1, keepdim=True)[1]
            correct += pred.eq(target.view_as(pred)).sum().item()
            for t, p in zip(target.cpu().numpy(), pred.view(-1).cpu().numpy()):
                cm[t, p] += 1

        test_loss /= len(test_loader.dataset)
        acc = 100. * correct / len(test_loader.dataset)
        logger.info('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'
                    .format(test_loss, correct, len(test_loader.dataset), acc))
        return test_loss, acc, cm


def save_checkpoint(state, is_best, out_dir, epoch):
    fname = os.path.join(out_dir, "checkpoint_epoch{}.pth.tar".format(epoch))
    torch.save(state, fname)
    if is_best:
        shutil.copyfile(fname, os.path.join(out_dir, "model_best.pth.tar"))


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    torch.manual_seed(args.seed)
    device = pick_device()
    logger.info("device: %s", device)
    os.makedirs(args.out, exist_ok=True)

    # 1x16x16 translated blobs standing in for MNIST
    def fake(n):
        x = torch.zeros(n, 1, 16, 16)
        y = torch.randint(0, 10, (n,))
        for i in range(n):
            r, c = torch.randint(0, 6, (2,)).tolist()
            x[i, 0, r + (y[i] // 4), c + (y[i] % 4) * 2] = 1.0
        return TensorDataset(x + 0.05 * torch.randn_like(x), y)

    train_loader = DataLoader(fake(384), batch_size=args.batch_size, shuffle=True, num_workers=0)
    test_loader = DataLoader(fake(96), batch_size=args.batch_size, shuffle=True, num_workers=0)

    model = Net().to(device)
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.5)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    writer = SummaryWriter(log_dir=os.path.join(args.out, "tb"))

    best_acc = 0.0
    cm = None
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch, writer)
        test_loss, acc, cm = test(model, device, test_loader)
        writer.add_scalar("test_loss", test_loss, epoch)
        writer.add_scalar("test_acc", acc, epoch)
        scheduler.step()
        is_best = acc > best_acc
        best_acc = max(best_acc, acc)
        if epoch % args.ckpt_every == 0 or is_best:
            save_checkpoint({"epoch": epoch, "state_dict": model.state_dict(), "best_acc": best_acc,
                             "optimizer": optimizer.state_dict()}, is_best, args.out, epoch)
    writer.close()

    print("confusion matrix (rows = true, cols = pred):")
    print(cm)
    per_class = cm.diagonal() / np.maximum(cm.sum(axis=1), 1)
    print("per-class acc:", np.round(per_class, 2).tolist())

    # visualize_stn() replaced by saving the transformed batch
    with torch.no_grad():
        data = next(iter(test_loader))[0][:8].to(device)
        transformed = model.stn(data).cpu()
    torch.save({"input": data.cpu(), "transformed": transformed}, os.path.join(args.out, "stn_grid.pt"))


if __name__ == "__main__":
    main()
