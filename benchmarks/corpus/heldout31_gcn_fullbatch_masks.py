# corpus: GCN (Kipf & Welling) reproduction — synthetic SBM graph, dense normalized adjacency, full-batch training with train/val/test masks, early stopping on val loss
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument('--seed', type=int, default=42, help='Random seed.')
parser.add_argument('--epochs', type=int, default=60, help='Number of epochs to train.')
parser.add_argument('--lr', type=float, default=0.01, help='Initial learning rate.')
parser.add_argument('--weight_decay', type=float, default=5e-4, help='Weight decay (L2 loss on parameters).')
parser.add_argument('--hidden', type=int, default=16, help='Number of hidden units.')
parser.add_argument('--dropout', type=float, default=0.5, help='Dropout rate (1 - keep probability).')
parser.add_argument('--patience', type=int, default=10)
parser.add_argument('--out_dir', type=str, default='gcn_out')
args = parser.parse_args([])

np.random.seed(args.seed)
torch.manual_seed(args.seed)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


def load_synthetic(n_nodes=150, n_classes=3, n_feat=24, p_in=0.08, p_out=0.03):
    labels = torch.randint(0, n_classes, (n_nodes,))
    same = labels[:, None] == labels[None, :]
    prob = torch.where(same, torch.tensor(p_in), torch.tensor(p_out))
    adj = (torch.rand(n_nodes, n_nodes) < prob).float()
    adj = torch.triu(adj, 1)
    adj = adj + adj.t()
    centers = torch.randn(n_classes, n_feat)
    features = centers[labels] + 4.0 * torch.randn(n_nodes, n_feat)
    # symmetric normalization with self loops
    adj = adj + torch.eye(n_nodes)
    d_inv_sqrt = adj.sum(1).pow(-0.5)
    adj = d_inv_sqrt[:, None] * adj * d_inv_sqrt[None, :]
    idx = torch.randperm(n_nodes)
    idx_train, idx_val, idx_test = idx[:30], idx[30:70], idx[70:]
    return adj, features, labels, idx_train, idx_val, idx_test


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features):
        super(GraphConvolution, self).__init__()
        self.weight = nn.Parameter(torch.FloatTensor(in_features, out_features))
        self.bias = nn.Parameter(torch.FloatTensor(out_features))
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1. / np.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = torch.mm(input, self.weight)
        return torch.mm(adj, support) + self.bias


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super(GCN, self).__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.gc2(x, adj)
        return F.log_softmax(x, dim=1)


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    return correct.sum() / len(labels)


adj, features, labels, idx_train, idx_val, idx_test = load_synthetic()
model = GCN(nfeat=features.shape[1], nhid=args.hidden, nclass=int(labels.max()) + 1, dropout=args.dropout)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
model = model.to(device)
adj, features, labels = adj.to(device), features.to(device), labels.to(device)
idx_train, idx_val, idx_test = idx_train.to(device), idx_val.to(device), idx_test.to(device)
os.makedirs(args.out_dir, exist_ok=True)


def train(epoch):
    t = time.time()
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()

    model.eval()
    output = model(features, adj)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    acc_val = accuracy(output[idx_val], labels[idx_val])
    print('Epoch: {:04d}'.format(epoch + 1),
          'loss_train: {:.4f}'.format(loss_train.item()),
          'acc_train: {:.4f}'.format(acc_train.item()),
          'loss_val: {:.4f}'.format(loss_val.item()),
          'acc_val: {:.4f}'.format(acc_val.item()),
          'time: {:.4f}s'.format(time.time() - t))
    return loss_val.item()


def test():
    model.eval()
    output = model(features, adj)
    loss_test = F.nll_loss(output[idx_test], labels[idx_test])
    acc_test = accuracy(output[idx_test], labels[idx_test])
    print("Test set results:",
          "loss= {:.4f}".format(loss_test.item()),
          "accuracy= {:.4f}".format(acc_test.item()))


t_total = time.time()
best_val, bad_counter, best_epoch = float('inf'), 0, 0
for epoch in range(args.epochs):
    val_loss = train(epoch)
    if val_loss < best_val:
        best_val, best_epoch, bad_counter = val_loss, epoch, 0
        torch.save({'epoch': epoch, 'model': model.state_dict(), 'optimizer': optimizer.state_dict()},
                   os.path.join(args.out_dir, 'best.pkl'))
    else:
        bad_counter += 1
    if bad_counter == args.patience:
        break
print("Optimization Finished!")
print("Total time elapsed: {:.4f}s".format(time.time() - t_total))
print('Loading {}th epoch'.format(best_epoch + 1))
model.load_state_dict(torch.load(os.path.join(args.out_dir, 'best.pkl'))['model'])
test()
