# corpus: blog post "multi-class classification with a Trainer class" — nn.Softmax(dim=1) as the model's last layer fed to nn.CrossEntropyLoss, shuffle=True on the validation loader (it draws from torch's generator every epoch), batch accuracy as (preds == y).sum() / len(y) (a tensor) averaged and printed as a tensor, history saved
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(7)

N_CLASSES = 3


def make_blobs(n_per_class):
    centers = torch.tensor([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
    xs, ys = [], []
    for c in range(N_CLASSES):
        xs.append(centers[c] + 0.8 * torch.randn(n_per_class, 2))
        ys.append(torch.full((n_per_class,), c, dtype=torch.long))
    return torch.cat(xs), torch.cat(ys)


class Classifier(nn.Module):
    def __init__(self, in_dim, n_classes):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(in_dim, 16),
            nn.ReLU(),
            nn.Linear(16, n_classes),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.layers(x)


class Trainer:
    def __init__(self, model, train_loader, val_loader, lr=0.1, epochs=5):
        self.model = model
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.epochs = epochs
        self.history = {"train_loss": [], "val_loss": [], "val_acc": []}

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        probs = self.model(x)
        loss = self.criterion(probs, y)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def validate(self):
        self.model.eval()
        losses, accs = [], []
        with torch.no_grad():
            for x, y in self.val_loader:
                probs = self.model(x)
                losses.append(self.criterion(probs, y).item())
                preds = probs.argmax(dim=1)
                accs.append((preds == y).sum() / len(y))
        self.model.train()
        return sum(losses) / len(losses), sum(accs) / len(accs)

    def fit(self):
        for epoch in range(self.epochs):
            self.model.train()
            epoch_losses = [self.train_step(x, y) for x, y in self.train_loader]
            train_loss = sum(epoch_losses) / len(epoch_losses)
            val_loss, val_acc = self.validate()
            self.history["train_loss"].append(train_loss)
            self.history["val_loss"].append(val_loss)
            self.history["val_acc"].append(val_acc)
            print(f"[{epoch + 1}/{self.epochs}] train {train_loss:.4f} | val {val_loss:.4f} | acc {val_acc}")
        return self.history


if __name__ == "__main__":
    X_train, y_train = make_blobs(80)
    X_val, y_val = make_blobs(20)
    train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=24, shuffle=True)
    val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=24, shuffle=True)

    model = Classifier(2, N_CLASSES)
    trainer = Trainer(model, train_loader, val_loader, lr=0.1, epochs=5)
    history = trainer.fit()
    torch.save(history, "history.pt")
    torch.save(model.state_dict(), "classifier.pt")
