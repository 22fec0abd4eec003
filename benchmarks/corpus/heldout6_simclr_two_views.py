# corpus: self-supervised contrastive (SimCLR-like) tutorial: two random augmented views per batch drawn in the loop, NT-Xent loss written out, projection head, labels ignored
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def augment(x):
    noise = 0.1 * torch.randn_like(x)
    mask = (torch.rand_like(x) > 0.1).float()
    return (x + noise) * mask


def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    sim = z @ z.t() / temperature
    n = z1.size(0)
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32))
        self.projector = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 16))

    def forward(self, x):
        return self.projector(self.backbone(x))


torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.randn(256, 32), torch.zeros(256)), batch_size=32, shuffle=True, drop_last=True)
model = Encoder()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-4, weight_decay=1e-6)
for epoch in range(3):
    total = 0.0
    for x, _ in loader:
        x1, x2 = augment(x), augment(x)
        loss = nt_xent(model(x1), model(x2))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch} loss {total / len(loader):.4f}")
torch.save(model.backbone.state_dict(), "backbone.pt")
