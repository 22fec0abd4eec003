# corpus: metric learning: embedding net with L2-normalised output, TripletMarginLoss(margin=0.2), batch-hard negative mining function called per batch on the detached embeddings, optimizer.zero_grad(set_to_none=True), recall@1 computed by hand on the test set every epoch, best embedding net saved
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(7)

NUM_CLASSES = 8
centers = torch.randn(NUM_CLASSES, 24) * 2
train_labels = torch.arange(NUM_CLASSES).repeat(40)
test_labels = torch.arange(NUM_CLASSES).repeat(10)
train_x = centers[train_labels] + torch.randn(len(train_labels), 24)
test_x = centers[test_labels] + torch.randn(len(test_labels), 24)

train_loader = DataLoader(TensorDataset(train_x, train_labels), batch_size=64, shuffle=True, drop_last=True)
test_loader = DataLoader(TensorDataset(test_x, test_labels), batch_size=80)


class EmbeddingNet(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(24, 64), nn.PReLU(), nn.Linear(64, dim))

    def forward(self, x):
        return F.normalize(self.fc(x), p=2, dim=1)


def mine_hard_triplets(embeddings, labels):
    """For every anchor: the farthest positive and the closest negative in the batch."""
    dist = torch.cdist(embeddings, embeddings)
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    eye = torch.eye(len(labels), dtype=torch.bool)
    pos_dist = dist.masked_fill(~same | eye, -1.0)
    neg_dist = dist.masked_fill(same, float('inf'))
    pos_idx = pos_dist.argmax(dim=1)
    neg_idx = neg_dist.argmin(dim=1)
    valid = (pos_dist.max(dim=1).values >= 0) & torch.isfinite(neg_dist.min(dim=1).values)
    anchors = torch.nonzero(valid).flatten()
    return anchors, pos_idx[anchors], neg_idx[anchors]


@torch.no_grad()
def recall_at_1(model, loader):
    model.eval()
    embs, labels = [], []
    for x, y in loader:
        embs.append(model(x))
        labels.append(y)
    embs = torch.cat(embs)
    labels = torch.cat(labels)
    dist = torch.cdist(embs, embs)
    dist.fill_diagonal_(float('inf'))
    nn_idx = dist.argmin(dim=1)
    return (labels[nn_idx] == labels).float().mean().item()


model = EmbeddingNet()
criterion = nn.TripletMarginLoss(margin=0.2, p=2)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

best_recall = 0.0
for epoch in range(5):
    model.train()
    running, steps = 0.0, 0
    for x, y in train_loader:
        emb = model(x)
        a, p, n = mine_hard_triplets(emb.detach(), y)
        loss = criterion(emb[a], emb[p], emb[n])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        running += loss.item()
        steps += 1
    r1 = recall_at_1(model, test_loader)
    print(f"epoch {epoch} loss {running / steps:.4f} recall@1 {r1:.4f}")
    if r1 > best_recall:
        best_recall = r1
        torch.save(model.state_dict(), "best_embedding.pt")

print(f"best recall@1 {best_recall:.4f}")
