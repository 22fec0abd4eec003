# corpus: research-code Trainer class with a step budget: while self.step < train_num_steps over a cycled loader, eval + save every N steps
import math
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


def exists(x):
    return x is not None


def cycle(dl):
    while True:
        for data in dl:
            yield data


class NoisySignals(Dataset):
    def __init__(self, n=256, length=32):
        t = torch.linspace(0, 2 * math.pi, length)
        freqs = torch.rand(n, 1) * 3 + 1
        self.clean = torch.sin(freqs * t)
        self.noisy = self.clean + 0.3 * torch.randn(n, length)

    def __len__(self):
        return len(self.clean)

    def __getitem__(self, idx):
        return self.noisy[idx], self.clean[idx]


class Denoiser(nn.Module):
    def __init__(self, length=32, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(length, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, length))

    def forward(self, x):
        return x + self.net(x)


class Trainer(object):
    def __init__(
        self,
        model,
        dataset,
        *,
        train_batch_size=16,
        train_lr=1e-3,
        train_num_steps=60,
        warmup_steps=10,
        save_and_eval_every=20,
        results_folder="./results",
    ):
        super().__init__()
        self.model = model
        self.step = 0
        self.train_num_steps = train_num_steps
        self.save_and_eval_every = save_and_eval_every

        n_val = len(dataset) // 8
        self.val_set = torch.utils.data.Subset(dataset, range(n_val))
        train_set = torch.utils.data.Subset(dataset, range(n_val, len(dataset)))
        self.dl = cycle(DataLoader(train_set, batch_size=train_batch_size, shuffle=True, drop_last=True))

        self.opt = torch.optim.Adam(model.parameters(), lr=train_lr, betas=(0.9, 0.99))
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lambda s: min(1.0, (s + 1) / warmup_steps))
        self.results_folder = Path(results_folder)
        self.results_folder.mkdir(exist_ok=True)

    def save(self, milestone):
        data = {"step": self.step, "model": self.model.state_dict(), "opt": self.opt.state_dict()}
        torch.save(data, str(self.results_folder / f"model-{milestone}.pt"))

    def load(self, milestone):
        data = torch.load(str(self.results_folder / f"model-{milestone}.pt"))
        self.model.load_state_dict(data["model"])
        self.step = data["step"]
        self.opt.load_state_dict(data["opt"])

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        noisy = torch.stack([self.val_set[i][0] for i in range(len(self.val_set))])
        clean = torch.stack([self.val_set[i][1] for i in range(len(self.val_set))])
        val_loss = F.mse_loss(self.model(noisy), clean).item()
        self.model.train()
        return val_loss

    def train(self):
        self.model.train()
        while self.step < self.train_num_steps:
            noisy, clean = next(self.dl)
            loss = F.mse_loss(self.model(noisy), clean)
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.opt.step()
            self.opt.zero_grad()
            self.sched.step()
            self.step += 1

            if self.step != 0 and self.step % self.save_and_eval_every == 0:
                milestone = self.step // self.save_and_eval_every
                val_loss = self.evaluate()
                print(f"step {self.step}: loss {loss.item():.4f} val {val_loss:.4f}")
                self.save(milestone)
        print("training complete")


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(Denoiser(), NoisySignals(), train_num_steps=60, save_and_eval_every=20)
    trainer.train()
