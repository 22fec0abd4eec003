# corpus: forum post "why is my validation accuracy higher than training?" — train_epoch()/evaluate() functions in main(), model.train() called once before the epoch loop while evaluate() calls model.eval() and never switches back (epochs 2+ train with dropout off and batchnorm on running stats), evaluation without torch.no_grad
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, 12, 12, generator=g)
    y = (x[:, :, :6, :].mean(dim=(1, 2, 3)) > x[:, :, 6:, :].mean(dim=(1, 2, 3))).long()
    return TensorDataset(x, y)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(8 * 6 * 6, 32),
            nn.ReLU(),
            nn.Dropout(0.5),
            nn.Linear(32, 2),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def train_epoch(model, loader, optimizer, loss_fn):
    running = 0.0
    n = 0
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        loss = loss_fn(out, y)
        loss.backward()
        optimizer.step()
        running += loss.item() * x.size(0)
        n += x.size(0)
    return running / n


def evaluate(model, loader, loss_fn):
    model.eval()
    total_loss, correct = 0, 0
    for x, y in loader:
        out = model(x)
        total_loss += loss_fn(out, y).item() * x.size(0)
        correct += (out.argmax(1) == y).sum().item()
    return total_loss / len(loader.dataset), correct / len(loader.dataset)


def main():
    torch.manual_seed(42)
    train_ds = make_data(192, 1)
    val_ds = make_data(64, 2)
    train_loader = DataLoader(train_ds, batch_size=32, shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=32)

    model = SmallCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    history = []
    model.train()
    for epoch in range(4):
        tr_loss = train_epoch(model, train_loader, optimizer, loss_fn)
        val_loss, val_acc = evaluate(model, val_loader, loss_fn)
        print(f"Epoch {epoch + 1}: train_loss={tr_loss:.4f} val_loss={val_loss:.4f} val_acc={val_acc:.3f}")
        history.append((tr_loss, val_loss, val_acc))

    torch.save({"model": model.state_dict(), "history": history}, "cnn_checkpoint.pt")


if __name__ == "__main__":
    main()
