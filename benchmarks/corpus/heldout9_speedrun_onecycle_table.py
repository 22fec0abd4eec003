# corpus: CIFAR speedrun style: cudnn.benchmark, SGD nesterov with weight decay split by a no_decay name test (bn / bias), OneCycleLR per batch with steps_per_epoch=len(train_loader), label-smoothing CrossEntropyLoss, zero_grad(set_to_none=True), per-epoch time.perf_counter timing, table-style metric rows
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.backends.cudnn.benchmark = True
torch.manual_seed(0)

hyp = {
    'epochs': 4,
    'batch_size': 64,
    'lr': 0.2,
    'momentum': 0.9,
    'weight_decay': 5e-4,
    'label_smoothing': 0.2,
}
dev = 'cuda' if torch.cuda.is_available() else 'cpu'

# synthetic "CIFAR": 10 classes of colour-tinted noise, 16x16
tint = torch.randn(10, 3, 1, 1)


def make_split(n):
    y = torch.randint(0, 10, (n,))
    x = torch.randn(n, 3, 16, 16) * 0.5 + tint[y]
    return x, y

xtr, ytr = make_split(1024)
xte, yte = make_split(256)
mean = xtr.mean(dim=(0, 2, 3), keepdim=True)
std = xtr.std(dim=(0, 2, 3), keepdim=True)
xtr, xte = (xtr - mean) / std, (xte - mean) / std
train_loader = DataLoader(TensorDataset(xtr, ytr), batch_size=hyp['batch_size'], shuffle=True, drop_last=True)
test_loader = DataLoader(TensorDataset(xte, yte), batch_size=256)


def conv_bn(c_in, c_out):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.GELU())


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a = conv_bn(c, c)
        self.b = conv_bn(c, c)

    def forward(self, x):
        return x + self.b(self.a(x))


class SpeedyNet(nn.Module):
    def __init__(self, w=(16, 32, 64)):
        super().__init__()
        self.net = nn.Sequential(
            conv_bn(3, w[0]),
            conv_bn(w[0], w[1]), nn.MaxPool2d(2), Residual(w[1]),
            conv_bn(w[1], w[2]), nn.MaxPool2d(2),
            nn.AdaptiveMaxPool2d(1), nn.Flatten(),
            nn.Linear(w[2], 10, bias=False),
        )

    def forward(self, x):
        return self.net(x) * 0.125


model = SpeedyNet().to(dev).to(memory_format=torch.channels_last)

decay, no_decay = [], []
for name, p in model.named_parameters():
    if not p.requires_grad:
        continue
    if p.ndim <= 1 or name.endswith('.bias') or 'bn' in name:
        no_decay.append(p)
    else:
        decay.append(p)
param_groups = [
    {'params': decay, 'weight_decay': hyp['weight_decay']},
    {'params': no_decay, 'weight_decay': 0.0},
]
opt = torch.optim.SGD(param_groups, lr=hyp['lr'], momentum=hyp['momentum'], nesterov=True)
sched = torch.optim.lr_scheduler.OneCycleLR(
    opt, max_lr=hyp['lr'], epochs=hyp['epochs'], steps_per_epoch=len(train_loader),
    pct_start=0.25, anneal_strategy='linear', div_factor=20, final_div_factor=100)
criterion = nn.CrossEntropyLoss(label_smoothing=hyp['label_smoothing'])


def evaluate():
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for x, y in test_loader:
            x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
            out = model(x)
            loss_sum += F.cross_entropy(out, y, reduction='sum').item()
            correct += (out.argmax(1) == y).sum().item()
            total += y.numel()
    return loss_sum / total, correct / total


columns = ['epoch', 'train_loss', 'train_acc', 'val_loss', 'val_acc', 'lr', 'epoch_s', 'total_s']
print('| ' + ' | '.join(f'{c:>10s}' for c in columns) + ' |')
print('|' + '|'.join('-' * 12 for _ in columns) + '|')

total_time = 0.0
for epoch in range(hyp['epochs']):
    t0 = time.perf_counter()
    lr_start = sched.get_last_lr()[0]
    model.train()
    n, tr_loss, tr_correct = 0, 0.0, 0
    for x, y in train_loader:
        x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        out = model(x)
        loss = criterion(out, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        tr_loss += loss.item() * y.size(0)
        tr_correct += (out.argmax(1) == y).sum().item()
        n += y.size(0)
    epoch_time = time.perf_counter() - t0
    total_time += epoch_time
    val_loss, val_acc = evaluate()
    row = [epoch + 1, tr_loss / n, tr_correct / n, val_loss, val_acc, lr_start, epoch_time, total_time]
    fmt = ['{:>10d}', '{:>10.4f}', '{:>10.4f}', '{:>10.4f}', '{:>10.4f}', '{:>10.5f}', '{:>10.2f}', '{:>10.2f}']
    print('| ' + ' | '.join(f.format(v) for f, v in zip(fmt, row)) + ' |')
