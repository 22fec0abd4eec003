# corpus: minibatches by manual slicing of a shuffled tensor (randperm), no DataLoader, numpy-course style
import numpy as np
import torch
from torch import nn

torch.manual_seed(2)
np.random.seed(2)

N, D_in, H, D_out = 512, 16, 32, 1
x_np = np.random.randn(N, D_in).astype(np.float32)
y_np = (np.sin(x_np[:, :1]) + 0.5 * x_np[:, 1:2] ** 2).astype(np.float32)
x_all = torch.from_numpy(x_np)
y_all = torch.from_numpy(y_np)

model = nn.Sequential(nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.MSELoss()

bs = 64
n_epochs = 4
for epoch in range(n_epochs):
    permutation = torch.randperm(x_all.size(0))
    losses = []
    for i in range(0, x_all.size(0), bs):
        indices = permutation[i:i + bs]
        xb, yb = x_all[indices], y_all[indices]
        pred = model(xb)
        loss = loss_fn(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    print("epoch %d, mean loss %.5f" % (epoch, np.mean(losses)))
