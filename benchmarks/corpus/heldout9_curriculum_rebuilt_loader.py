# corpus: curriculum learning: the Dataset and DataLoader are rebuilt inside the epoch loop, sequence length growing with the epoch (sum-parity task for a GRU), otherwise a plain epoch x loader loop with a per-epoch validation at the current length
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

SEED = 7
START_LEN = 4
MAX_LEN = 16
LEN_STEP = 3
N_EPOCHS = 5
N_PER_EPOCH = 512
BATCH = 64
LR = 3e-3

torch.manual_seed(SEED)


class ParityDataset(Dataset):
    """Bit strings of a fixed length; label = parity of the number of ones."""

    def __init__(self, n, seq_len):
        self.x = torch.randint(0, 2, (n, seq_len)).float()
        self.y = self.x.sum(dim=1).remainder(2).long()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx].unsqueeze(-1), self.y[idx]


def seq_len_for(epoch):
    return min(START_LEN + LEN_STEP * epoch, MAX_LEN)


class ParityRNN(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.rnn = nn.GRU(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 2)

    def forward(self, x):
        _, h = self.rnn(x)
        return self.head(h[-1])


model = ParityRNN()
opt = torch.optim.Adam(model.parameters(), lr=LR)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(N_EPOCHS):
    L = seq_len_for(epoch)
    train_ds = ParityDataset(N_PER_EPOCH, L)
    train_dl = DataLoader(train_ds, batch_size=BATCH, shuffle=True)
    val_dl = DataLoader(ParityDataset(128, L), batch_size=BATCH)

    model.train()
    tot, n = 0.0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        logits = model(xb)
        loss = loss_fn(logits, yb)
        loss.backward()
        opt.step()
        tot += loss.item() * xb.size(0)
        n += xb.size(0)

    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in val_dl:
            correct += (model(xb).argmax(1) == yb).sum().item()
    print(f"epoch {epoch}  len={L:2d}  train_loss={tot / n:.4f}  val_acc={correct / len(val_dl.dataset):.3f}")

torch.save(model.state_dict(), "parity_curriculum.pt")
