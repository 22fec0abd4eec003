# corpus: research Trainer class: Trainer(model, loaders, cfg) with train(), _run_epoch(epoch), _run_batch(source, targets), _save_checkpoint(epoch) every save_every epochs, b_sz from the first batch
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset


class RandomRegression(Dataset):
    def __init__(self, size, dim):
        self.size = size
        self.data = [(torch.rand(dim), torch.rand(1)) for _ in range(size)]

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return self.data[index]


class Trainer:
    def __init__(self, model, loaders, cfg):
        self.device = cfg["device"]
        self.model = model.to(self.device)
        self.train_data = loaders["train"]
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=cfg["lr"])
        self.save_every = cfg["save_every"]
        self.max_epochs = cfg["max_epochs"]
        self.ckpt_path = cfg["ckpt_path"]

    def _run_batch(self, source, targets):
        self.optimizer.zero_grad()
        output = self.model(source)
        loss = F.mse_loss(output, targets)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def _run_epoch(self, epoch):
        b_sz = len(next(iter(self.train_data))[0])
        print(f"[{self.device}] Epoch {epoch} | Batchsize: {b_sz} | Steps: {len(self.train_data)}")
        total = 0.0
        for source, targets in self.train_data:
            source = source.to(self.device)
            targets = targets.to(self.device)
            total += self._run_batch(source, targets)
        return total / len(self.train_data)

    def _save_checkpoint(self, epoch):
        ckp = self.model.state_dict()
        torch.save(ckp, self.ckpt_path)
        print(f"Epoch {epoch} | Training checkpoint saved at {self.ckpt_path}")

    def train(self):
        for epoch in range(self.max_epochs):
            avg = self._run_epoch(epoch)
            print(f"Epoch {epoch} | avg loss {avg:.5f}")
            if epoch % self.save_every == 0:
                self._save_checkpoint(epoch)


def load_train_objs(cfg):
    train_set = RandomRegression(256, 20)
    model = nn.Sequential(nn.Linear(20, 16), nn.Tanh(), nn.Linear(16, 1))
    loaders = {"train": DataLoader(train_set, batch_size=cfg["batch_size"], shuffle=True, pin_memory=True)}
    return model, loaders


def main():
    torch.manual_seed(3)
    cfg = {
        "device": "cuda" if torch.cuda.is_available() else "cpu",
        "lr": 1e-2,
        "batch_size": 32,
        "max_epochs": 4,
        "save_every": 2,
        "ckpt_path": "snapshot.pt",
    }
    model, loaders = load_train_objs(cfg)
    trainer = Trainer(model, loaders, cfg)
    trainer.train()


if __name__ == "__main__":
    main()
