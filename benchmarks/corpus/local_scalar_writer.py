# corpus: a tiny hand-written TensorBoard-style writer, add_scalar(tag, value, global_step) in the batch loop
import json

import torch
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset


class ScalarWriter:
    """Collects scalars like SummaryWriter does and dumps them as json lines."""

    def __init__(self, path):
        self.path = path
        self.records = []

    def add_scalar(self, tag, value, global_step):
        self.records.append({"tag": tag, "value": float(value), "step": int(global_step)})

    def close(self):
        with open(self.path, "w") as f:
            for r in self.records:
                f.write(json.dumps(r) + "\n")


torch.manual_seed(7)

inputs = torch.randn(400, 10)
targets = inputs @ torch.randn(10, 1) + 0.1 * torch.randn(400, 1)
loader = DataLoader(TensorDataset(inputs, targets), batch_size=25, shuffle=True)

model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.MSELoss()

writer = ScalarWriter("scalars.jsonl")
global_step = 0
for epoch in range(3):
    for batch_x, batch_y in loader:
        pred = model(batch_x)
        loss = loss_fn(pred, batch_y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        writer.add_scalar("train/loss", loss.item(), global_step)
        if global_step % 10 == 0:
            writer.add_scalar("train/lr", optimizer.param_groups[0]["lr"], global_step)
        global_step += 1
    print("epoch", epoch, "step", global_step, "loss", loss.item())

writer.close()
