# corpus: r/learnmachinelearning "is this how you decay the learning rate?" — functions, Adam rebuilt at the start of every epoch with lr = LR0 * 0.8 ** epoch (its moment estimates start over), L2 weight decay added to the loss by hand over model.parameters() (biases too), nn.MSELoss(reduction='none') then loss.mean() for backward with the per-sample losses kept for a "hardest samples" print
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

LR0 = 0.01
WEIGHT_DECAY = 1e-3
EPOCHS = 4
BATCH = 25


def get_loaders():
    x = torch.linspace(-3, 3, 150).unsqueeze(1)
    y = x ** 3 - 2 * x + torch.randn_like(x) * 0.5
    perm = torch.randperm(150)
    x, y = x[perm], y[perm]
    train = TensorDataset(x[:125], y[:125])
    val = TensorDataset(x[125:], y[125:])
    return DataLoader(train, batch_size=BATCH, shuffle=True), DataLoader(val, batch_size=BATCH)


def build_model():
    return nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))


def l2_penalty(model):
    reg = 0
    for p in model.parameters():
        reg = reg + (p ** 2).sum()
    return reg


def run():
    torch.manual_seed(11)
    train_loader, val_loader = get_loaders()
    model = build_model()
    criterion = nn.MSELoss(reduction='none')

    for epoch in range(EPOCHS):
        lr = LR0 * (0.8 ** epoch)
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)  # new lr each epoch
        model.train()
        worst = []
        total = 0.0
        for xb, yb in train_loader:
            per_sample = criterion(model(xb), yb)
            loss = per_sample.mean() + WEIGHT_DECAY * l2_penalty(model)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
            worst.append(per_sample.detach().max().item())
        model.eval()
        with torch.no_grad():
            val = sum(criterion(model(xb), yb).mean().item() for xb, yb in val_loader) / len(val_loader)
        print("epoch %d lr %.5f train %.4f val %.4f worst %.3f" % (epoch, lr, total / len(train_loader), val, max(worst)))

    torch.save(model.state_dict(), "cubic.pt")
    return model


if __name__ == "__main__":
    run()
