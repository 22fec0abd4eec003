# corpus: research segmentation repo: small UNet, BCEWithLogits + soft dice loss, argparse + logging to a file and stdout, AverageMeter, warmup+cosine LambdaLR stepped per iteration, validation dice every epoch, checkpoint every N epochs and best, --resume restoring model/optimizer/scheduler/epoch
import argparse
import logging
import math
import os
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

logger = logging.getLogger("unet")


def get_args():
    parser = argparse.ArgumentParser(description="Train the UNet on images and target masks")
    parser.add_argument("--epochs", "-e", type=int, default=4)
    parser.add_argument("--batch-size", "-b", dest="batch_size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--weight-decay", type=float, default=1e-8)
    parser.add_argument("--warmup-epochs", type=int, default=1)
    parser.add_argument("--dice-weight", type=float, default=1.0)
    parser.add_argument("--save-every", type=int, default=2, help="checkpoint every N epochs")
    parser.add_argument("--output-dir", default="runs/unet")
    parser.add_argument("--resume", default="", help="path to a checkpoint")
    parser.add_argument("--seed", type=int, default=42)
    return parser.parse_args()


class DoubleConv(nn.Module):
    """(convolution => [BN] => ReLU) * 2"""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.double_conv(x)


class UNet(nn.Module):
    def __init__(self, n_channels=3, n_classes=1, base=8):
        super().__init__()
        self.inc = DoubleConv(n_channels, base)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(base, base * 2))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(base * 2, base * 4))
        self.up1 = nn.ConvTranspose2d(base * 4, base * 2, kernel_size=2, stride=2)
        self.conv1 = DoubleConv(base * 4, base * 2)
        self.up2 = nn.ConvTranspose2d(base * 2, base, kernel_size=2, stride=2)
        self.conv2 = DoubleConv(base * 2, base)
        self.outc = nn.Conv2d(base, n_classes, kernel_size=1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x = self.conv1(torch.cat([x2, self.up1(x3)], dim=1))
        x = self.conv2(torch.cat([x1, self.up2(x)], dim=1))
        return self.outc(x)


def dice_coeff(probs, target, eps=1e-6):
    inter = (probs * target).sum(dim=(1, 2, 3))
    union = probs.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
    return ((2 * inter + eps) / (union + eps)).mean()


def dice_loss(logits, target):
    return 1 - dice_coeff(torch.sigmoid(logits), target)


class AverageMeter:
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def make_data(n):
    images = torch.rand(n, 3, 16, 16)
    masks = (images.mean(dim=1, keepdim=True) > 0.5).float()  # a learnable mask
    return TensorDataset(images, masks)


def warmup_cosine(total_steps, warmup_steps):
    def lr_lambda(step):
        if step < warmup_steps:
            return float(step + 1) / float(max(1, warmup_steps))
        progress = float(step - warmup_steps) / float(max(1, total_steps - warmup_steps))
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    return lr_lambda


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    dice = AverageMeter()
    for images, masks in loader:
        images, masks = images.to(device), masks.to(device)
        preds = (torch.sigmoid(model(images)) > 0.5).float()
        dice.update(dice_coeff(preds, masks).item(), images.size(0))
    model.train()
    return dice.avg


def main():
    args = get_args()
    os.makedirs(args.output_dir, exist_ok=True)
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s: %(message)s",
        handlers=[logging.FileHandler(os.path.join(args.output_dir, "train.log")), logging.StreamHandler()],
    )
    logger.info("args: %s", vars(args))
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader = DataLoader(make_data(64), batch_size=args.batch_size, shuffle=True, drop_last=True)
    val_loader = DataLoader(make_data(16), batch_size=args.batch_size, shuffle=False)

    model = UNet().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    total_steps = args.epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_cosine(total_steps, args.warmup_epochs * len(train_loader)))
    criterion = nn.BCEWithLogitsLoss()

    start_epoch, best_dice = 0, 0.0
    if args.resume:
        ckpt = torch.load(args.resume, map_location=device)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch, best_dice = ckpt["epoch"] + 1, ckpt["best_dice"]
        logger.info("resumed from %s at epoch %d", args.resume, start_epoch)

    for epoch in range(start_epoch, args.epochs):
        model.train()
        losses, batch_time = AverageMeter(), AverageMeter()
        end = time.time()
        for i, (images, masks) in enumerate(train_loader):
            images, masks = images.to(device), masks.to(device)
            logits = model(images)
            loss = criterion(logits, masks) + args.dice_weight * dice_loss(logits, masks)

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()

            losses.update(loss.item(), images.size(0))
            batch_time.update(time.time() - end)
            end = time.time()
            if i % 4 == 0:
                logger.info(
                    "Epoch [%d][%d/%d] loss %.4f (%.4f) lr %.2e time %.3f",
                    epoch, i, len(train_loader), losses.val, losses.avg, scheduler.get_last_lr()[0], batch_time.avg,
                )

        val_dice = validate(model, val_loader, device)
        is_best = val_dice > best_dice
        best_dice = max(val_dice, best_dice)
        logger.info("Epoch %d: train loss %.4f, val dice %.4f (best %.4f)", epoch, losses.avg, val_dice, best_dice)

        state = {
            "epoch": epoch,
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "best_dice": best_dice,
        }
        if (epoch + 1) % args.save_every == 0:
            torch.save(state, os.path.join(args.output_dir, f"checkpoint_epoch{epoch + 1}.pth"))
        if is_best:
            torch.save(state, os.path.join(args.output_dir, "model_best.pth"))

    logger.info("done, best val dice %.4f", best_dice)


if __name__ == "__main__":
    main()
