# corpus: research repo with a deep residual MLP using torch.utils.checkpoint in forward when training, logging to stdout and a log file, AverageMeter/ProgressMeter, argparse Namespace of many defaults, StepLR, validate() with top-1
import argparse
import logging
import os
import sys
import time

import torch
import torch.nn as nn
import torch.utils.checkpoint as cp
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    parser = argparse.ArgumentParser("deep mlp with activation checkpointing")
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--use-checkpoint", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--wd", type=float, default=1e-4)
    parser.add_argument("--step-size", type=int, default=2)
    parser.add_argument("--print-freq", type=int, default=5)
    parser.add_argument("--workdir", type=str, default="work_dirs/ckpt_mlp")
    parser.add_argument("--seed", type=int, default=3)
    return parser.parse_args()


def setup_logger(workdir):
    os.makedirs(workdir, exist_ok=True)
    logger = logging.getLogger("train")
    logger.setLevel(logging.INFO)
    fmt = logging.Formatter("[%(asctime)s] %(message)s", datefmt="%H:%M:%S")
    fh = logging.FileHandler(os.path.join(workdir, "log.txt"), mode="w")
    fh.setFormatter(fmt)
    sh = logging.StreamHandler(sys.stdout)
    sh.setFormatter(fmt)
    logger.addHandler(fh)
    logger.addHandler(sh)
    return logger


class AverageMeter:
    def __init__(self, name, fmt=":f"):
        self.name, self.fmt = name, fmt
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        return ("{name} {val" + self.fmt + "} ({avg" + self.fmt + "})").format(**self.__dict__)


class ProgressMeter:
    def __init__(self, num_batches, meters, prefix=""):
        self.num_batches, self.meters, self.prefix = num_batches, meters, prefix

    def display(self, batch, logger):
        entries = [self.prefix + "[{}/{}]".format(batch, self.num_batches)]
        entries += [str(m) for m in self.meters]
        logger.info("  ".join(entries))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fn = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width * 2), nn.GELU(), nn.Linear(width * 2, width))

    def forward(self, x):
        return x + self.fn(x)


class DeepMLP(nn.Module):
    def __init__(self, depth, width, num_classes=5, use_checkpoint=False):
        super().__init__()
        self.stem = nn.Linear(10, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        self.head = nn.Linear(width, num_classes)
        self.use_checkpoint = use_checkpoint

    def forward(self, x):
        x = self.stem(x)
        for blk in self.blocks:
            if self.use_checkpoint and self.training:
                x = cp.checkpoint(blk, x, use_reentrant=False)
            else:
                x = blk(x)
        return self.head(x)


def train_one_epoch(model, loader, criterion, optimizer, epoch, args, logger):
    batch_time, losses, top1 = AverageMeter("Time", ":.3f"), AverageMeter("Loss", ":.4f"), AverageMeter("Acc@1", ":.2f")
    progress = ProgressMeter(len(loader), [batch_time, losses, top1], prefix="Epoch: [{}]".format(epoch))
    model.train()
    end = time.time()
    for i, (x, y) in enumerate(loader):
        out = model(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss.item(), x.size(0))
        top1.update((out.argmax(1) == y).float().mean().item() * 100, x.size(0))
        batch_time.update(time.time() - end)
        end = time.time()
        if i % args.print_freq == 0:
            progress.display(i, logger)
    return losses.avg


def validate(model, loader, criterion):
    model.eval()
    top1 = AverageMeter("Acc@1", ":.2f")
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            top1.update((out.argmax(1) == y).float().mean().item() * 100, x.size(0))
    return top1.avg


def main():
    args = get_args()
    logger = setup_logger(args.workdir)
    logger.info("args: {}".format(vars(args)))
    torch.manual_seed(args.seed)

    X = torch.randn(400, 10)
    y = (X[:, :5].sum(1) * 1.5).long().clamp(-2, 2) + 2
    train_loader = DataLoader(TensorDataset(X[:320], y[:320]), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(X[320:], y[320:]), batch_size=80)

    model = DeepMLP(args.depth, args.width, use_checkpoint=bool(args.use_checkpoint))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum, weight_decay=args.wd)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.step_size, gamma=0.1)

    best_acc1 = 0.0
    for epoch in range(args.epochs):
        train_loss = train_one_epoch(model, train_loader, criterion, optimizer, epoch, args, logger)
        scheduler.step()
        acc1 = validate(model, val_loader, criterion)
        best_acc1 = max(best_acc1, acc1)
        logger.info(" * Epoch {} train_loss {:.4f} val Acc@1 {:.2f} best {:.2f}".format(epoch, train_loss, acc1, best_acc1))
        torch.save(model.state_dict(), os.path.join(args.workdir, "epoch_{}.pth".format(epoch)))
    logger.info("done")


if __name__ == "__main__":
    main()
