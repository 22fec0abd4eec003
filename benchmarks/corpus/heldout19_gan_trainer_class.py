# corpus: GAN trainer class (research repo style): GANTrainer(generator, discriminator, g_opt, d_opt, config) with _critic_step / _generator_step / train_epoch / train / sample methods, d_steps_per_g config, history dict, checkpoint every N epochs, config dataclass
import os
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    latent_dim: int = 8
    data_dim: int = 16
    batch_size: int = 32
    epochs: int = 4
    lr_g: float = 1e-3
    lr_d: float = 4e-4
    d_steps_per_g: int = 2
    ckpt_every: int = 2
    ckpt_dir: str = "gan_ckpt"
    device: str = "cuda" if torch.cuda.is_available() else "cpu"
    seed: int = 5


class Generator(nn.Module):
    def __init__(self, latent_dim, data_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 32), nn.ReLU(), nn.Linear(32, data_dim))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, data_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(data_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


class GANTrainer:
    def __init__(self, generator, discriminator, g_optimizer, d_optimizer, config):
        self.G = generator
        self.D = discriminator
        self.g_opt = g_optimizer
        self.d_opt = d_optimizer
        self.cfg = config
        self.device = config.device
        self.step = 0
        self.history = {"d_loss": [], "g_loss": []}
        os.makedirs(config.ckpt_dir, exist_ok=True)

    def _noise(self, n):
        return torch.randn(n, self.cfg.latent_dim, device=self.device)

    def _critic_step(self, real):
        self.d_opt.zero_grad()
        fake = self.G(self._noise(real.size(0))).detach()
        real_logits, fake_logits = self.D(real), self.D(fake)
        # non-saturating loss with softplus
        d_loss = F.softplus(-real_logits).mean() + F.softplus(fake_logits).mean()
        d_loss.backward()
        self.d_opt.step()
        return d_loss.item()

    def _generator_step(self, n):
        self.g_opt.zero_grad()
        g_loss = F.softplus(-self.D(self.G(self._noise(n)))).mean()
        g_loss.backward()
        self.g_opt.step()
        return g_loss.item()

    def train_epoch(self, loader):
        self.G.train()
        self.D.train()
        d_losses, g_losses = [], []
        for (real,) in loader:
            real = real.to(self.device)
            d_losses.append(self._critic_step(real))
            if self.step % self.cfg.d_steps_per_g == 0:
                g_losses.append(self._generator_step(real.size(0)))
            self.step += 1
        return sum(d_losses) / len(d_losses), sum(g_losses) / max(len(g_losses), 1)

    @torch.no_grad()
    def sample(self, n=16):
        self.G.eval()
        out = self.G(self._noise(n)).cpu()
        self.G.train()
        return out

    def save(self, epoch):
        torch.save(
            {"epoch": epoch, "step": self.step, "G": self.G.state_dict(), "D": self.D.state_dict(),
             "g_opt": self.g_opt.state_dict(), "d_opt": self.d_opt.state_dict()},
            os.path.join(self.cfg.ckpt_dir, f"epoch_{epoch}.pt"),
        )

    def train(self, loader):
        for epoch in range(1, self.cfg.epochs + 1):
            d_loss, g_loss = self.train_epoch(loader)
            self.history["d_loss"].append(d_loss)
            self.history["g_loss"].append(g_loss)
            print(f"[{epoch}/{self.cfg.epochs}] step {self.step} d_loss {d_loss:.4f} g_loss {g_loss:.4f}")
            if epoch % self.cfg.ckpt_every == 0:
                self.save(epoch)
        return self.history


def main():
    cfg = Config()
    torch.manual_seed(cfg.seed)
    data = torch.randn(256, cfg.data_dim) * 0.3 + 1.0
    loader = DataLoader(TensorDataset(data), batch_size=cfg.batch_size, shuffle=True)
    G = Generator(cfg.latent_dim, cfg.data_dim).to(cfg.device)
    D = Discriminator(cfg.data_dim).to(cfg.device)
    g_opt = torch.optim.Adam(G.parameters(), lr=cfg.lr_g, betas=(0.5, 0.999))
    d_opt = torch.optim.Adam(D.parameters(), lr=cfg.lr_d, betas=(0.5, 0.999))
    trainer = GANTrainer(G, D, g_opt, d_opt, cfg)
    history = trainer.train(loader)
    samples = trainer.sample(64)
    print("final sample mean %.4f (data mean %.4f)" % (samples.mean().item(), data.mean().item()))
    torch.save(history, "gan_history.pt")


if __name__ == "__main__":
    main()
