# corpus: regression with the logging module, a history list of losses dumped with json at the end
import json
import logging

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
logger = logging.getLogger(__name__)

torch.manual_seed(3)

N, D = 400, 5
X = torch.randn(N, D)
true_w = torch.tensor([1.5, -2.0, 0.3, 0.0, 0.7])
y = X @ true_w + 0.1 * torch.randn(N)
y = y.unsqueeze(1)

loader = DataLoader(TensorDataset(X, y), batch_size=25, shuffle=True)


class Regressor(nn.Module):
    def __init__(self, in_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


def main():
    model = Regressor(D)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    history = {"loss": [], "epoch_loss": []}

    logger.info("training on %d samples", N)
    for epoch in range(10):
        epoch_loss = 0.0
        for step, (xb, yb) in enumerate(loader):
            pred = model(xb)
            loss = criterion(pred, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history["loss"].append(loss.item())
            epoch_loss += loss.item() * xb.size(0)
        epoch_loss /= N
        history["epoch_loss"].append(epoch_loss)
        logger.info("epoch %d mse %.5f", epoch, epoch_loss)

    with open("history.json", "w") as f:
        json.dump(history, f, indent=2)
    logger.info("saved history to history.json")


if __name__ == "__main__":
    main()
