# corpus: graph-network tutorial style: one whole-graph "data" object (x, edge_index, masks), train() / test() functions called per epoch, full-batch step on masked nodes, accuracies per split printed
import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphData:
    def __init__(self, num_nodes, num_features, num_classes):
        self.x = torch.randn(num_nodes, num_features)
        self.y = torch.randint(0, num_classes, (num_nodes,))
        src = torch.randint(0, num_nodes, (num_nodes * 4,))
        dst = torch.randint(0, num_nodes, (num_nodes * 4,))
        self.edge_index = torch.stack([src, dst])
        perm = torch.randperm(num_nodes)
        self.train_mask = torch.zeros(num_nodes, dtype=torch.bool)
        self.val_mask = torch.zeros(num_nodes, dtype=torch.bool)
        self.test_mask = torch.zeros(num_nodes, dtype=torch.bool)
        self.train_mask[perm[:60]] = True
        self.val_mask[perm[60:100]] = True
        self.test_mask[perm[100:]] = True


def normalized_adjacency(edge_index, num_nodes):
    adj = torch.zeros(num_nodes, num_nodes)
    adj[edge_index[0], edge_index[1]] = 1.0
    adj = adj + torch.eye(num_nodes)
    deg = adj.sum(1)
    d = deg.pow(-0.5)
    return d[:, None] * adj * d[None, :]


class GCN(nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.lin1 = nn.Linear(in_channels, hidden_channels)
        self.lin2 = nn.Linear(hidden_channels, out_channels)

    def forward(self, x, adj):
        x = F.dropout(x, p=0.5, training=self.training)
        x = F.relu(adj @ self.lin1(x))
        x = F.dropout(x, p=0.5, training=self.training)
        return adj @ self.lin2(x)


torch.manual_seed(12345)
data = GraphData(160, 16, 4)
adj = normalized_adjacency(data.edge_index, 160)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = GCN(16, 32, 4).to(device)
data.x, data.y, adj = data.x.to(device), data.y.to(device), adj.to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
criterion = torch.nn.CrossEntropyLoss()


def train():
    model.train()
    optimizer.zero_grad()
    out = model(data.x, adj)
    loss = criterion(out[data.train_mask], data.y[data.train_mask])
    loss.backward()
    optimizer.step()
    return loss


def test():
    model.eval()
    out = model(data.x, adj)
    pred = out.argmax(dim=1)
    accs = []
    for mask in [data.train_mask, data.val_mask, data.test_mask]:
        correct = pred[mask] == data.y[mask]
        accs.append(int(correct.sum()) / int(mask.sum()))
    return accs


for epoch in range(1, 31):
    loss = train()
    train_acc, val_acc, test_acc = test()
    print(f"Epoch: {epoch:03d}, Loss: {loss:.4f}, Train: {train_acc:.4f}, Val: {val_acc:.4f}, Test: {test_acc:.4f}")
