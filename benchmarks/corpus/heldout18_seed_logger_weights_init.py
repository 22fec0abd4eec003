# corpus: research repo train.py with habits: set_seed(seed) (random / np.random / torch.manual_seed / cuda.manual_seed_all, cudnn.deterministic = True, benchmark = False), get_logger() from logging.getLogger writing to <save_dir>/train.log and the console, model.apply(weights_init) (kaiming conv / xavier linear / constant BN), MultiStepLR, train_one_epoch / evaluate returning (loss, acc), latest + best checkpoints, config dumped with json
import argparse
import json
import logging
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


def parse_args():
    parser = argparse.ArgumentParser(description='Train a classifier')
    parser.add_argument('--save_dir', type=str, default='./exp/baseline')
    parser.add_argument('--epochs', type=int, default=5)
    parser.add_argument('--batch_size', type=int, default=64)
    parser.add_argument('--lr', type=float, default=0.05)
    parser.add_argument('--momentum', type=float, default=0.9)
    parser.add_argument('--weight_decay', type=float, default=1e-4)
    parser.add_argument('--milestones', type=int, nargs='+', default=[3, 4])
    parser.add_argument('--seed', type=int, default=3407)
    parser.add_argument('--log_freq', type=int, default=5)
    parser.add_argument('--num_workers', type=int, default=0)
    return parser.parse_args()


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


def get_logger(log_file, name='train'):
    logger = logging.getLogger(name)
    logger.setLevel(logging.INFO)
    formatter = logging.Formatter('[%(asctime)s] %(levelname)s: %(message)s', datefmt='%Y-%m-%d %H:%M:%S')
    fh = logging.FileHandler(log_file, mode='w')
    fh.setFormatter(formatter)
    sh = logging.StreamHandler()
    sh.setFormatter(formatter)
    logger.addHandler(fh)
    logger.addHandler(sh)
    return logger


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
    elif classname.find('BatchNorm') != -1:
        nn.init.constant_(m.weight, 1)
        nn.init.constant_(m.bias, 0)
    elif classname.find('Linear') != -1:
        nn.init.xavier_uniform_(m.weight)
        nn.init.zeros_(m.bias)


class SignalDataset(Dataset):
    """1-D signals of 3 waveform classes, generated once."""
    def __init__(self, n, length=64):
        t = torch.linspace(0, 1, length)
        self.labels = torch.randint(0, 3, (n,))
        freq = 2 + 3 * self.labels.float().unsqueeze(1)
        self.signals = torch.sin(2 * np.pi * freq * t) + 0.5 * torch.randn(n, length)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return self.signals[idx].unsqueeze(0), self.labels[idx]


class Net(nn.Module):
    def __init__(self, num_classes=3):
        super(Net, self).__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 16, 5, padding=2), nn.BatchNorm1d(16), nn.ReLU(inplace=True), nn.MaxPool1d(2),
            nn.Conv1d(16, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(inplace=True), nn.AdaptiveAvgPool1d(1))
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def train_one_epoch(model, loader, criterion, optimizer, device, epoch, logger, log_freq):
    model.train()
    total_loss, correct, n = 0.0, 0, 0
    for it, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss = criterion(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * x.size(0)
        correct += (logits.argmax(1) == y).sum().item()
        n += x.size(0)
        if it % log_freq == 0:
            logger.info('Epoch[%d] Iter[%d/%d] loss=%.4f lr=%.5f', epoch, it, len(loader), loss.item(),
                        optimizer.param_groups[0]['lr'])
    return total_loss / n, correct / n


@torch.no_grad()
def evaluate(model, loader, criterion, device):
    model.eval()
    total_loss, correct, n = 0.0, 0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        total_loss += criterion(logits, y).item() * x.size(0)
        correct += (logits.argmax(1) == y).sum().item()
        n += x.size(0)
    return total_loss / n, correct / n


def main():
    args = parse_args()
    os.makedirs(args.save_dir, exist_ok=True)
    logger = get_logger(os.path.join(args.save_dir, 'train.log'))
    logger.info('args: %s', vars(args))
    with open(os.path.join(args.save_dir, 'config.json'), 'w') as f:
        json.dump(vars(args), f, indent=2)
    set_seed(args.seed)
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    train_set, val_set = SignalDataset(640), SignalDataset(160)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, shuffle=False, num_workers=args.num_workers)

    model = Net().to(device)
    model.apply(weights_init)
    logger.info('#params: %d', sum(p.numel() for p in model.parameters()))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                                weight_decay=args.weight_decay)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=args.milestones, gamma=0.1)

    best_acc = 0.0
    for epoch in range(1, args.epochs + 1):
        tic = time.time()
        train_loss, train_acc = train_one_epoch(model, train_loader, criterion, optimizer, device, epoch,
                                                logger, args.log_freq)
        val_loss, val_acc = evaluate(model, val_loader, criterion, device)
        scheduler.step()
        logger.info('Epoch %d done in %.1fs | train loss %.4f acc %.4f | val loss %.4f acc %.4f', epoch,
                    time.time() - tic, train_loss, train_acc, val_loss, val_acc)
        state = {'epoch': epoch, 'state_dict': model.state_dict(), 'optimizer': optimizer.state_dict(),
                 'scheduler': scheduler.state_dict(), 'best_acc': max(best_acc, val_acc)}
        torch.save(state, os.path.join(args.save_dir, 'latest.pth'))
        if val_acc > best_acc:
            best_acc = val_acc
            torch.save(state, os.path.join(args.save_dir, 'best.pth'))
            logger.info('new best acc %.4f saved', best_acc)
    logger.info('training finished, best val acc %.4f', best_acc)


if __name__ == '__main__':
    main()
