# corpus: hand-written Trainer class owning the loop (train_epoch / evaluate / fit), config dataclass
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    epochs: int = 3
    batch_size: int = 32
    lr: float = 1e-3
    weight_decay: float = 1e-4
    seed: int = 11


class SentimentNet(nn.Module):
    def __init__(self, vocab_size=100, embed_dim=16, num_classes=2):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, mode="mean")
        self.fc = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens):
        return self.fc(self.embedding(tokens))


class Trainer:
    def __init__(self, model, train_loader, val_loader, config, device="cpu"):
        self.model = model.to(device)
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.config = config
        self.device = device
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.history = {"train_loss": [], "val_loss": [], "val_acc": []}

    def train_epoch(self):
        self.model.train()
        total_loss = 0.0
        for tokens, labels in self.train_loader:
            tokens, labels = tokens.to(self.device), labels.to(self.device)
            self.optimizer.zero_grad()
            logits = self.model(tokens)
            loss = self.criterion(logits, labels)
            loss.backward()
            self.optimizer.step()
            total_loss += loss.item()
        return total_loss / len(self.train_loader)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        total_loss, correct, count = 0.0, 0, 0
        for tokens, labels in self.val_loader:
            tokens, labels = tokens.to(self.device), labels.to(self.device)
            logits = self.model(tokens)
            total_loss += self.criterion(logits, labels).item() * len(labels)
            correct += (logits.argmax(-1) == labels).sum().item()
            count += len(labels)
        return total_loss / count, correct / count

    def fit(self):
        for epoch in range(self.config.epochs):
            train_loss = self.train_epoch()
            val_loss, val_acc = self.evaluate()
            self.history["train_loss"].append(train_loss)
            self.history["val_loss"].append(val_loss)
            self.history["val_acc"].append(val_acc)
            print(f"[{epoch + 1}/{self.config.epochs}] train {train_loss:.4f} | val {val_loss:.4f} | acc {val_acc:.3f}")
        return self.history


def make_data(n, seq_len=12, vocab_size=100):
    tokens = torch.randint(0, vocab_size, (n, seq_len))
    labels = (tokens < vocab_size // 2).sum(dim=1).gt(seq_len // 2).long()
    return TensorDataset(tokens, labels)


if __name__ == "__main__":
    cfg = Config()
    torch.manual_seed(cfg.seed)
    train_loader = DataLoader(make_data(320), batch_size=cfg.batch_size, shuffle=True)
    val_loader = DataLoader(make_data(80), batch_size=cfg.batch_size)
    trainer = Trainer(SentimentNet(), train_loader, val_loader, cfg)
    history = trainer.fit()
    print("best val acc:", max(history["val_acc"]))
