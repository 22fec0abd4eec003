# corpus: research code: set_seed(seed) seeding random/numpy/torch with cudnn.deterministic = True and benchmark = False, AverageMeter for loss and top-1, adjust_learning_rate(optimizer, epoch, args) with a hand-written cosine called at each epoch start, save_checkpoint(state, is_best, filename) + shutil.copyfile to model_best, argparse with defaults
import argparse
import math
import os
import random
import shutil

import numpy as np
import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    cudnn.deterministic = True
    cudnn.benchmark = False


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target):
    with torch.no_grad():
        pred = output.argmax(dim=1)
        return pred.eq(target).float().mean().item() * 100.0


def adjust_learning_rate(optimizer, epoch, args):
    """Decay the learning rate with half-cycle cosine"""
    lr = args.lr * 0.5 * (1.0 + math.cos(math.pi * epoch / args.epochs))
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr
    return lr


def save_checkpoint(state, is_best, filename='checkpoint.pth.tar'):
    torch.save(state, filename)
    if is_best:
        shutil.copyfile(filename, os.path.join(os.path.dirname(filename), 'model_best.pth.tar'))


class MLP(nn.Module):
    def __init__(self, in_dim, hidden, num_classes, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, num_classes),
        )

    def forward(self, x):
        return self.net(x)


def train_one_epoch(train_loader, model, criterion, optimizer, epoch, args):
    losses = AverageMeter()
    top1 = AverageMeter()
    model.train()
    for i, (x, y) in enumerate(train_loader):
        out = model(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss.item(), x.size(0))
        top1.update(accuracy(out, y), x.size(0))
        if i % args.print_freq == 0:
            print(f'Epoch [{epoch}][{i}/{len(train_loader)}] loss {losses.val:.4f} ({losses.avg:.4f}) acc@1 {top1.val:.2f} ({top1.avg:.2f})')
    return losses.avg, top1.avg


def validate(val_loader, model, criterion):
    losses = AverageMeter()
    top1 = AverageMeter()
    model.eval()
    with torch.no_grad():
        for x, y in val_loader:
            out = model(x)
            loss = criterion(out, y)
            losses.update(loss.item(), x.size(0))
            top1.update(accuracy(out, y), x.size(0))
    print(f' * Val loss {losses.avg:.4f} Acc@1 {top1.avg:.3f}')
    return top1.avg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', default=5, type=int)
    parser.add_argument('--batch-size', default=32, type=int)
    parser.add_argument('--lr', default=0.1, type=float)
    parser.add_argument('--momentum', default=0.9, type=float)
    parser.add_argument('--wd', default=5e-4, type=float)
    parser.add_argument('--seed', default=0, type=int)
    parser.add_argument('--print-freq', default=5, type=int)
    parser.add_argument('--out', default='checkpoints', type=str)
    args = parser.parse_args()

    set_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)

    X = torch.randn(480, 20)
    w = torch.randn(20, 4)
    y = (X @ w).argmax(dim=1)
    train_loader = DataLoader(TensorDataset(X[:384], y[:384]), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(X[384:], y[384:]), batch_size=64)

    model = MLP(20, 64, 4, dropout=0.2)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=args.momentum, weight_decay=args.wd)

    best_acc1 = 0.0
    for epoch in range(args.epochs):
        lr = adjust_learning_rate(optimizer, epoch, args)
        print(f'epoch {epoch} lr {lr:.5f}')
        train_loss, train_acc = train_one_epoch(train_loader, model, criterion, optimizer, epoch, args)
        acc1 = validate(val_loader, model, criterion)
        is_best = acc1 > best_acc1
        best_acc1 = max(acc1, best_acc1)
        save_checkpoint({
            'epoch': epoch + 1,
            'state_dict': model.state_dict(),
            'best_acc1': best_acc1,
            'optimizer': optimizer.state_dict(),
        }, is_best, filename=os.path.join(args.out, 'checkpoint.pth.tar'))
    print(f'best acc@1 {best_acc1:.3f}')


if __name__ == '__main__':
    main()
