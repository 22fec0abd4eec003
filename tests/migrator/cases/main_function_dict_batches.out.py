# Loop in main(): dict batches moved with a comprehension, F.cross_entropy, StepLR per epoch,
# accumulators printed per epoch, best value read back after training.
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset
import torchlift.runtime as L


class Pairs(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 6)
        self.y = torch.randint(0, 3, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"features": self.x[i], "label": self.y[i]}


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, features):
        return self.net(features)


class LitClassifier(L.LightningModule):
    def __init__(self, net, best):
        super().__init__()
        self.model = net
        self.best = best

    def forward(self, features):
        return self.model(features)

    def on_train_epoch_start(self):
        self.total = 0.0

    def training_step(self, batch, batch_idx):
        logits = self(batch["features"])
        loss = F.cross_entropy(logits, batch["label"])
        self.total += loss.item()
        self.log("train_loss", loss)
        return loss

    def on_train_epoch_end(self):
        epoch = self.current_epoch + 1
        mean = self.total / len(self.trainer.train_dataloader)
        self.best = min(self.best, mean)
        print(f"epoch {epoch}: {mean:.4f}")

    def configure_optimizers(self):
        opt = optim.SGD(self.model.parameters(), lr=0.1, momentum=0.9)
        sched = StepLR(opt, step_size=1, gamma=0.5)
        return {
            "optimizer": opt,
            "lr_scheduler": {"scheduler": sched, "interval": "epoch"},
        }


def main():
    torch.manual_seed(3)
    loader = DataLoader(Pairs(32), batch_size=8, shuffle=True)
    net = Classifier()

    best = float("inf")
    lit_model = LitClassifier(net, best)
    trainer = L.Trainer(
        accelerator="cuda" if torch.cuda.is_available() else "cpu",
        devices=1,
        max_epochs=3,
    )
    trainer.fit(lit_model, loader)
    best = lit_model.best
    print("best", best)


if __name__ == "__main__":
    main()
