# corpus: domain-adaptation repo (DAN-style): epoch over the labelled source loader, unlabelled target batches from an iterator created once and refilled by try/except StopIteration, multi-kernel Gaussian MMD on bottleneck features with a lambda ramp 2/(1+exp(-10p))-1, per-group lr (backbone x0.1), target test accuracy per epoch, best model saved
import argparse
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    parser = argparse.ArgumentParser(description='DAN')
    parser.add_argument('--nepoch', type=int, default=5)
    parser.add_argument('--batch_size', type=int, default=32)
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--momentum', type=float, default=0.9)
    parser.add_argument('--decay', type=float, default=5e-4)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--n_class', type=int, default=4)
    return parser.parse_args()


def make_domain(n, n_class, shift, generator):
    y = torch.randint(0, n_class, (n,), generator=generator)
    centers = torch.linspace(-2, 2, n_class).unsqueeze(1).repeat(1, 20)
    x = centers[y] + torch.randn(n, 20, generator=generator) + shift
    return x, y


class DANNet(nn.Module):
    def __init__(self, n_class):
        super(DANNet, self).__init__()
        self.backbone = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.bottleneck = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.3))
        self.classifier = nn.Linear(32, n_class)

    def forward(self, x):
        feat = self.bottleneck(self.backbone(x))
        return self.classifier(feat), feat


def guassian_kernel(source, target, kernel_mul=2.0, kernel_num=5):
    n_samples = int(source.size(0)) + int(target.size(0))
    total = torch.cat([source, target], dim=0)
    L2_distance = ((total.unsqueeze(0) - total.unsqueeze(1)) ** 2).sum(2)
    bandwidth = torch.sum(L2_distance.data) / (n_samples ** 2 - n_samples)
    bandwidth /= kernel_mul ** (kernel_num // 2)
    bandwidth_list = [bandwidth * (kernel_mul ** i) for i in range(kernel_num)]
    kernel_val = [torch.exp(-L2_distance / bw) for bw in bandwidth_list]
    return sum(kernel_val)


def mmd_loss(source, target):
    batch_size = int(source.size(0))
    kernels = guassian_kernel(source, target)
    XX = kernels[:batch_size, :batch_size]
    YY = kernels[batch_size:, batch_size:]
    XY = kernels[:batch_size, batch_size:]
    YX = kernels[batch_size:, :batch_size]
    return torch.mean(XX + YY - XY - YX)


def test(model, loader, device):
    model.eval()
    correct = 0
    test_loss = 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            pred, _ = model(data)
            test_loss += F.cross_entropy(pred, target, reduction='sum').item()
            correct += pred.argmax(1).eq(target).sum().item()
    n = len(loader.dataset)
    return test_loss / n, 100. * correct / n


if __name__ == '__main__':
    args = get_args()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    DEVICE = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    g = torch.Generator().manual_seed(args.seed)
    xs, ys = make_domain(320, args.n_class, 0.0, g)
    xt, yt = make_domain(200, args.n_class, 1.5, g)
    source_loader = DataLoader(TensorDataset(xs, ys), batch_size=args.batch_size, shuffle=True, drop_last=True)
    target_train_loader = DataLoader(TensorDataset(xt), batch_size=args.batch_size, shuffle=True, drop_last=True)
    target_test_loader = DataLoader(TensorDataset(xt, yt), batch_size=64, shuffle=False)

    model = DANNet(args.n_class).to(DEVICE)
    optimizer = torch.optim.SGD([
        {'params': model.backbone.parameters(), 'lr': args.lr * 0.1},
        {'params': model.bottleneck.parameters()},
        {'params': model.classifier.parameters()},
    ], lr=args.lr, momentum=args.momentum, weight_decay=args.decay)

    len_source = len(source_loader)
    target_iter = iter(target_train_loader)
    best_acc = 0
    for epoch in range(1, args.nepoch + 1):
        model.train()
        train_loss_clf, train_loss_mmd = [], []
        for i, (data_source, label_source) in enumerate(source_loader):
            try:
                (data_target,) = next(target_iter)
            except StopIteration:
                target_iter = iter(target_train_loader)
                (data_target,) = next(target_iter)
            data_source, label_source = data_source.to(DEVICE), label_source.to(DEVICE)
            data_target = data_target.to(DEVICE)

            p = float(i + (epoch - 1) * len_source) / args.nepoch / len_source
            lamb = 2. / (1. + math.exp(-10 * p)) - 1

            pred_source, feat_source = model(data_source)
            _, feat_target = model(data_target)
            loss_clf = F.cross_entropy(pred_source, label_source)
            loss_mmd = mmd_loss(feat_source, feat_target)
            loss = loss_clf + lamb * loss_mmd

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            train_loss_clf.append(loss_clf.item())
            train_loss_mmd.append(loss_mmd.item())

        t_loss, t_acc = test(model, target_test_loader, DEVICE)
        print('Epoch: [{:2d}/{}], cls_loss: {:.4f}, mmd_loss: {:.4f}, lambda: {:.3f}, target loss: {:.4f}, target acc: {:.2f}%'.format(
            epoch, args.nepoch, np.mean(train_loss_clf), np.mean(train_loss_mmd), lamb, t_loss, t_acc))
        if t_acc > best_acc:
            best_acc = t_acc
            torch.save(model.state_dict(), 'dan_best.pth')
    print('Transfer result: best target acc {:.2f}%'.format(best_acc))
