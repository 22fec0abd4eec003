# corpus: official pytorch/examples gcn/main.py (GraphConv with sparse normalized adjacency, full-batch train/val/test masks, Adam weight_decay, per-epoch val print), synthetic graph
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class GraphConv(nn.Module):
    """
        Graph Convolutional Layer described in "Semi-Supervised Classification with Graph Convolutional Networks".
        H' = A_hat @ H @ W
    """
    def __init__(self, input_dim, output_dim, use_bias=False):
        super(GraphConv, self).__init__()
        self.kernel = nn.Parameter(torch.Tensor(input_dim, output_dim))
        nn.init.xavier_normal_(self.kernel)
        self.bias = None
        if use_bias:
            self.bias = nn.Parameter(torch.Tensor(output_dim))
            nn.init.zeros_(self.bias)

    def forward(self, input_tensor, adj_mat):
        support = torch.mm(input_tensor, self.kernel)
        output = torch.spmm(adj_mat, support)
        if self.bias is not None:
            output = output + self.bias
        return output


class GCN(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
        super(GCN, self).__init__()
        self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
        self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input_tensor, adj_mat):
        x = self.gc1(input_tensor, adj_mat)
        x = F.relu(x)
        x = self.dropout(x)
        x = self.gc2(x, adj_mat)
        return F.log_softmax(x, dim=1)


def make_graph(num_nodes, num_features, num_classes, seed):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, num_classes, (num_nodes,), generator=g)
    features = torch.randn(num_nodes, num_features, generator=g)
    features[torch.arange(num_nodes), labels] += 2.0  # a weak signal per class
    # homophilous random edges: same-label pairs are likelier
    probs = torch.where(labels[:, None] == labels[None, :], 0.08, 0.01)
    adj = (torch.rand(num_nodes, num_nodes, generator=g) < probs).float()
    adj = ((adj + adj.t()) > 0).float()
    adj.fill_diagonal_(1.0)
    # symmetric normalization D^-1/2 A D^-1/2
    deg = adj.sum(1)
    d_inv_sqrt = deg.pow(-0.5)
    adj = d_inv_sqrt[:, None] * adj * d_inv_sqrt[None, :]
    idx = torch.randperm(num_nodes, generator=g)
    idx_train, idx_val, idx_test = idx[:40], idx[40:80], idx[80:]
    return features, labels, adj.to_sparse(), idx_train, idx_val, idx_test


def train_iter(epoch, model, optimizer, criterion, input, target, mask_train, mask_val, print_every=10):
    start_t = time.time()
    model.train()
    optimizer.zero_grad()

    output = model(*input)
    loss = criterion(output[mask_train], target[mask_train])  # Compute the loss using the training mask

    loss.backward()
    optimizer.step()

    # Evaluate the model performance on training and validation sets
    loss_train, acc_train = test(model, criterion, input, target, mask_train)
    loss_val, acc_val = test(model, criterion, input, target, mask_val)

    if epoch % print_every == 0:
        # Print the training progress at specified intervals
        print(f'Epoch: {epoch:04d} ({(time.time() - start_t):.4f}s) loss_train: {loss_train:.4f} acc_train: {acc_train:.4f} loss_val: {loss_val:.4f} acc_val: {acc_val:.4f}')


def test(model, criterion, input, target, mask):
    model.eval()
    with torch.no_grad():
        output = model(*input)
        output, target = output[mask], target[mask]

        loss = criterion(output, target)
        acc = (output.argmax(dim=1) == target).float().sum() / len(target)
    return loss.item(), acc.item()


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='PyTorch Graph Convolutional Network')
    parser.add_argument('--epochs', type=int, default=60, help='number of epochs to train (default: 60)')
    parser.add_argument('--lr', type=float, default=0.01, help='learning rate (default: 0.01)')
    parser.add_argument('--l2', type=float, default=5e-4, help='weight decay (default: 5e-4)')
    parser.add_argument('--dropout-p', type=float, default=0.5, help='dropout probability (default: 0.5)')
    parser.add_argument('--hidden-dim', type=int, default=16, help='dimension of the hidden representation (default: 16)')
    parser.add_argument('--val-every', type=int, default=10, help='epochs to wait for print training and validation evaluation (default: 10)')
    parser.add_argument('--include-bias', action='store_true', default=False, help='use bias term in convolutions (default: False)')
    parser.add_argument('--no-accel', action='store_true', default=False, help='disables accelerator')
    parser.add_argument('--dry-run', action='store_true', default=False, help='quickly check a single pass')
    parser.add_argument('--seed', type=int, default=42, metavar='S', help='random seed (default: 42)')
    args = parser.parse_args()

    use_accel = not args.no_accel and torch.accelerator.is_available()

    torch.manual_seed(args.seed)

    if use_accel:
        device = torch.accelerator.current_accelerator()
    else:
        device = torch.device('cpu')
    print(f'Using {device} device')

    features, labels, adj_mat, idx_train, idx_val, idx_test = make_graph(120, 20, 4, seed=args.seed)
    features = features.to(device)
    labels = labels.to(device)
    adj_mat = adj_mat.to(device)

    gcn = GCN(features.shape[1], args.hidden_dim, 4, args.include_bias, args.dropout_p).to(device)
    optimizer = optim.Adam(gcn.parameters(), lr=args.lr, weight_decay=args.l2)
    criterion = nn.NLLLoss()

    if args.dry_run:
        epochs = 1
    else:
        epochs = args.epochs

    for epoch in range(epochs):
        train_iter(epoch + 1, gcn, optimizer, criterion, (features, adj_mat), labels, idx_train, idx_val, args.val_every)
        if args.dry_run:
            break

    loss_test, acc_test = test(gcn, criterion, (features, adj_mat), labels, idx_test)
    print(f'Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}')
