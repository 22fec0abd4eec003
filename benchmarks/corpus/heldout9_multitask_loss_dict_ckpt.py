# corpus: multi-task research code: shared trunk with classification and regression heads, two criterions weighted by a config dict, loss_dict = {'cls': ..., 'reg': ...} averaged in a defaultdict(float), clip_grad_norm_ return value logged, validate() returning a dict, best checkpoint on a combined metric saved as {'epoch', 'model', 'optimizer', 'best'} to ckpt.pth
import argparse
import random
from collections import defaultdict

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {
    'seed': 3,
    'epochs': 5,
    'batch_size': 32,
    'lr': 2e-3,
    'weight_decay': 1e-4,
    'grad_clip': 1.0,
    'loss_weights': {'cls': 1.0, 'reg': 0.5},
    'print_freq': 10,
}


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def build_data(n, d=12, seed=0):
    w = torch.Generator().manual_seed(1000)  # the same task for every split
    w_cls = torch.randn(d, 4, generator=w)
    w_reg = torch.randn(d, 1, generator=w)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    y_cls = (x @ w_cls).argmax(1)
    y_reg = torch.tanh(x @ w_reg).squeeze(1) + 0.05 * torch.randn(n, generator=g)
    return TensorDataset(x, y_cls, y_reg)


class MultiTaskNet(nn.Module):
    def __init__(self, d_in=12, d_hidden=64, n_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Dropout(0.1),
            nn.Linear(d_hidden, d_hidden), nn.ReLU(),
        )
        self.cls_head = nn.Linear(d_hidden, n_classes)
        self.reg_head = nn.Linear(d_hidden, 1)

    def forward(self, x):
        feat = self.backbone(x)
        return {'cls': self.cls_head(feat), 'reg': self.reg_head(feat).squeeze(-1)}


def compute_losses(outputs, y_cls, y_reg, criterions, weights):
    loss_dict = {
        'cls': criterions['cls'](outputs['cls'], y_cls),
        'reg': criterions['reg'](outputs['reg'], y_reg),
    }
    total = sum(weights[k] * v for k, v in loss_dict.items())
    return total, loss_dict


@torch.no_grad()
def validate(model, loader, criterions):
    model.eval()
    sums = defaultdict(float)
    n = 0
    for x, y_cls, y_reg in loader:
        out = model(x)
        bs = x.size(0)
        sums['cls_loss'] += criterions['cls'](out['cls'], y_cls).item() * bs
        sums['mae'] += (out['reg'] - y_reg).abs().sum().item()
        sums['acc'] += (out['cls'].argmax(1) == y_cls).sum().item()
        n += bs
    return {k: v / n for k, v in sums.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=CFG['epochs'])
    parser.add_argument('--out', default='ckpt.pth')
    args = parser.parse_args()

    set_seed(CFG['seed'])
    train_set = build_data(640, seed=1)
    val_set = build_data(160, seed=2)
    train_loader = DataLoader(train_set, batch_size=CFG['batch_size'], shuffle=True)
    val_loader = DataLoader(val_set, batch_size=64)

    model = MultiTaskNet()
    criterions = {'cls': nn.CrossEntropyLoss(), 'reg': nn.SmoothL1Loss()}
    optimizer = torch.optim.AdamW(model.parameters(), lr=CFG['lr'], weight_decay=CFG['weight_decay'])

    best = -float('inf')
    for epoch in range(args.epochs):
        model.train()
        meters = defaultdict(float)
        count = 0
        for it, (x, y_cls, y_reg) in enumerate(train_loader):
            outputs = model(x)
            loss, loss_dict = compute_losses(outputs, y_cls, y_reg, criterions, CFG['loss_weights'])

            optimizer.zero_grad()
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), CFG['grad_clip'])
            optimizer.step()

            count += 1
            meters['loss'] += loss.item()
            for k, v in loss_dict.items():
                meters[k] += v.item()
            if it % CFG['print_freq'] == 0:
                avg = {k: v / count for k, v in meters.items()}
                print('[{}][{:3d}/{}] loss {:.4f} (cls {:.4f}, reg {:.4f}) grad_norm {:.3f}'.format(
                    epoch, it, len(train_loader), avg['loss'], avg['cls'], avg['reg'], grad_norm.item()))

        metrics = validate(model, val_loader, criterions)
        score = metrics['acc'] - metrics['mae']
        print('epoch {} val: '.format(epoch) + ', '.join('{}={:.4f}'.format(k, v) for k, v in sorted(metrics.items()))
              + ' | score {:.4f}'.format(score))
        if score > best:
            best = score
            torch.save({'epoch': epoch, 'model': model.state_dict(),
                        'optimizer': optimizer.state_dict(), 'best': best}, args.out)
            print('  saved new best ({:.4f})'.format(best))

    ckpt = torch.load(args.out)
    print('best epoch {} score {:.4f}'.format(ckpt['epoch'], ckpt['best']))


if __name__ == '__main__':
    main()
