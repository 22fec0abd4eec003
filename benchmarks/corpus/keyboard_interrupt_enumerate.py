# corpus: try/except KeyboardInterrupt around training, for epoch, _ in enumerate(range(...)), enumerate(loader, start=1)
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(77)

seq = torch.randn(140, 10, 3)
target = seq.sum(dim=(1, 2)).unsqueeze(1) / 10.0
loader = DataLoader(TensorDataset(seq, target), batch_size=14, shuffle=True)


class RNNRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(3, 16, batch_first=True)
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


model = RNNRegressor()
optimizer = torch.optim.RMSprop(model.parameters(), lr=5e-3)
criterion = nn.MSELoss()
n_epochs = 3
log_every = 5

try:
    for epoch, _ in enumerate(range(n_epochs)):
        epoch_start = time.time()
        model.train()
        total_loss = 0.0
        for batch, (x, y) in enumerate(loader, start=1):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            total_loss += loss.item()
            if batch % log_every == 0:
                print(f"| epoch {epoch:2d} | {batch:3d}/{len(loader)} batches | loss {total_loss / log_every:.4f}")
                total_loss = 0.0
        print(f"| end of epoch {epoch:2d} | time {time.time() - epoch_start:.2f}s")
except KeyboardInterrupt:
    print("-" * 50)
    print("Exiting from training early")

torch.save(model.state_dict(), "gru_regressor.pt")
