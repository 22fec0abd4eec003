# corpus: image-classification research repo: model.apply(weights_init), cudnn.benchmark, CutMix when np.random.rand() < cutmix_prob else plain batch, label-smoothing CrossEntropy, MultiStepLR per epoch, top-1 error and best error tracked
import argparse
import time

import numpy as np
import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser(description="CutMix PyTorch training")
parser.add_argument("--epochs", default=4, type=int)
parser.add_argument("-b", "--batch_size", default=32, type=int)
parser.add_argument("--lr", default=0.05, type=float)
parser.add_argument("--momentum", default=0.9, type=float)
parser.add_argument("--weight_decay", default=1e-4, type=float)
parser.add_argument("--print-freq", default=4, type=int)
parser.add_argument("--beta", default=1.0, type=float, help="hyperparameter beta")
parser.add_argument("--cutmix_prob", default=0.5, type=float)
parser.add_argument("--smoothing", default=0.1, type=float)
parser.add_argument("--expname", default="cutmix_run", type=str)

best_err1 = 100


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    elif classname.find("BatchNorm") != -1:
        nn.init.constant_(m.weight, 1)
        nn.init.constant_(m.bias, 0)
    elif classname.find("Linear") != -1:
        nn.init.normal_(m.weight, 0, 0.01)
        nn.init.constant_(m.bias, 0)


class SmallNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, stride=2)
        self.bn2 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def rand_bbox(size, lam):
    W, H = size[2], size[3]
    cut_rat = np.sqrt(1.0 - lam)
    cut_w, cut_h = int(W * cut_rat), int(H * cut_rat)
    cx, cy = np.random.randint(W), np.random.randint(H)
    bbx1, bby1 = np.clip(cx - cut_w // 2, 0, W), np.clip(cy - cut_h // 2, 0, H)
    bbx2, bby2 = np.clip(cx + cut_w // 2, 0, W), np.clip(cy + cut_h // 2, 0, H)
    return bbx1, bby1, bbx2, bby2


def train(train_loader, model, criterion, optimizer, epoch):
    model.train()
    losses = []
    start = time.time()
    for i, (input, target) in enumerate(train_loader):
        input, target = input.cuda() if args.cuda else input, target.cuda() if args.cuda else target
        r = np.random.rand(1)
        if args.beta > 0 and r < args.cutmix_prob:
            lam = np.random.beta(args.beta, args.beta)
            rand_index = torch.randperm(input.size()[0])
            target_a = target
            target_b = target[rand_index]
            bbx1, bby1, bbx2, bby2 = rand_bbox(input.size(), lam)
            input[:, :, bbx1:bbx2, bby1:bby2] = input[rand_index, :, bbx1:bbx2, bby1:bby2]
            lam = 1 - ((bbx2 - bbx1) * (bby2 - bby1) / (input.size()[-1] * input.size()[-2]))
            output = model(input)
            loss = criterion(output, target_a) * lam + criterion(output, target_b) * (1.0 - lam)
        else:
            output = model(input)
            loss = criterion(output, target)
        losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % args.print_freq == 0:
            print("Epoch: [{0}/{1}][{2}/{3}]\tLoss {4:.4f}\tLR {5:.4f}".format(
                epoch, args.epochs, i, len(train_loader), loss.item(), optimizer.param_groups[0]["lr"]))
    print("* Epoch: [{0}/{1}]\t Train Loss {2:.3f}\t ({3:.1f}s)".format(epoch, args.epochs, np.mean(losses), time.time() - start))
    return np.mean(losses)


def validate(val_loader, model, criterion, epoch):
    model.eval()
    wrong, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for input, target in val_loader:
            input, target = input.cuda() if args.cuda else input, target.cuda() if args.cuda else target
            output = model(input)
            loss_sum += criterion(output, target).item() * input.size(0)
            wrong += (output.argmax(1) != target).sum().item()
            total += input.size(0)
    err1 = 100.0 * wrong / total
    print("* Epoch: [{0}/{1}]\t Top 1-err {2:.3f}\t Test Loss {3:.3f}".format(epoch, args.epochs, err1, loss_sum / total))
    return err1


def main():
    global args, best_err1
    args = parser.parse_args()
    args.cuda = torch.cuda.is_available()
    torch.manual_seed(0)
    np.random.seed(0)

    X = torch.randn(320, 3, 16, 16)
    y = torch.randint(0, 10, (320,))
    X[torch.arange(320), y % 3, :4, :4] += 2.0
    train_loader = DataLoader(TensorDataset(X[:256], y[:256]), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(X[256:], y[256:]), batch_size=64)

    model = SmallNet()
    model.apply(weights_init)
    if args.cuda:
        model = torch.nn.DataParallel(model).cuda()
    criterion = nn.CrossEntropyLoss(label_smoothing=args.smoothing)
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=args.momentum,
                                weight_decay=args.weight_decay, nesterov=True)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2, 3], gamma=0.1)
    cudnn.benchmark = True

    for epoch in range(0, args.epochs):
        train_loss = train(train_loader, model, criterion, optimizer, epoch)
        err1 = validate(val_loader, model, criterion, epoch)
        scheduler.step()
        is_best = err1 <= best_err1
        best_err1 = min(err1, best_err1)
        print("Current best accuracy (top-1 error):", best_err1)
        torch.save({"epoch": epoch, "arch": "small", "state_dict": model.state_dict(), "best_err1": best_err1,
                    "optimizer": optimizer.state_dict(), "train_loss": train_loss},
                   "%s_checkpoint.pth.tar" % args.expname)
        if is_best:
            torch.save(model.state_dict(), "%s_model_best.pth" % args.expname)
    print("Best accuracy (top-1 error):", best_err1)


if __name__ == "__main__":
    main()
