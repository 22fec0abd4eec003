# corpus: VAE with KL annealing by global step (Bowman et al. / course-project style): Trainer-less functions, @dataclass config, beta = min(1, global_step / anneal_steps) (or cyclical), reparameterize, sum-reduced BCE per sample, wandb-style log dict guarded, test ELBO per epoch, samples and checkpoint saved
import os
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

try:
    import wandb  # noqa
except ImportError:
    wandb = None


@dataclass
class TrainConfig:
    input_dim: int = 64
    hidden_dim: int = 48
    latent_dim: int = 4
    batch_size: int = 32
    epochs: int = 3
    lr: float = 1e-3
    anneal_steps: int = 20
    anneal: str = "linear"  # or "cyclical"
    n_cycles: int = 2
    out_dir: str = "vae_runs"
    seed: int = 2024


class VAE(nn.Module):
    def __init__(self, cfg: TrainConfig):
        super().__init__()
        self.fc1 = nn.Linear(cfg.input_dim, cfg.hidden_dim)
        self.fc_mu = nn.Linear(cfg.hidden_dim, cfg.latent_dim)
        self.fc_logvar = nn.Linear(cfg.hidden_dim, cfg.latent_dim)
        self.fc3 = nn.Linear(cfg.latent_dim, cfg.hidden_dim)
        self.fc4 = nn.Linear(cfg.hidden_dim, cfg.input_dim)

    def encode(self, x):
        h = F.relu(self.fc1(x))
        return self.fc_mu(h), self.fc_logvar(h)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def kl_weight(step, cfg):
    if cfg.anneal == "cyclical":
        period = cfg.anneal_steps // cfg.n_cycles
        return min(1.0, (step % period) / (period * 0.5))
    return min(1.0, step / cfg.anneal_steps)


def loss_function(recon_x, x, mu, logvar, beta):
    bce = F.binary_cross_entropy(recon_x, x, reduction="sum") / x.size(0)
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return bce + beta * kld, bce, kld


def log_metrics(metrics, step):
    if wandb is not None and wandb.run is not None:
        wandb.log(metrics, step=step)


def main(cfg: TrainConfig):
    torch.manual_seed(cfg.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    os.makedirs(cfg.out_dir, exist_ok=True)

    # binary "images": 8x8 bars
    data = (torch.rand(384, cfg.input_dim) < torch.linspace(0.1, 0.9, cfg.input_dim)).float()
    train_loader = DataLoader(TensorDataset(data[:320]), batch_size=cfg.batch_size, shuffle=True)
    test_loader = DataLoader(TensorDataset(data[320:]), batch_size=cfg.batch_size)

    model = VAE(cfg).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)

    global_step = 0
    for epoch in range(1, cfg.epochs + 1):
        model.train()
        train_loss = 0.0
        for batch_idx, (x,) in enumerate(train_loader):
            x = x.to(device)
            optimizer.zero_grad()
            recon, mu, logvar = model(x)
            beta = kl_weight(global_step, cfg)
            loss, bce, kld = loss_function(recon, x, mu, logvar, beta)
            loss.backward()
            train_loss += loss.item() * len(x)
            optimizer.step()
            log_metrics({"train/loss": loss.item(), "train/bce": bce.item(), "train/kld": kld.item(), "beta": beta}, global_step)
            global_step += 1
            if batch_idx % 5 == 0:
                print("Train Epoch: {} [{}/{}]\tLoss: {:.4f}\tbeta: {:.2f}".format(
                    epoch, batch_idx * len(x), len(train_loader.dataset), loss.item(), beta))
        print("====> Epoch: {} Average loss: {:.4f}".format(epoch, train_loss / len(train_loader.dataset)))

        model.eval()
        test_loss = 0.0
        with torch.no_grad():
            for (x,) in test_loader:
                x = x.to(device)
                recon, mu, logvar = model(x)
                test_loss += loss_function(recon, x, mu, logvar, 1.0)[0].item() * len(x)
        test_loss /= len(test_loader.dataset)
        print("====> Test set loss (ELBO, beta=1): {:.4f}".format(test_loss))
        log_metrics({"test/loss": test_loss, "epoch": epoch}, global_step)

        with torch.no_grad():
            sample = model.decode(torch.randn(16, cfg.latent_dim, device=device)).cpu()
            torch.save(sample, os.path.join(cfg.out_dir, f"sample_{epoch}.pt"))

    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": global_step},
               os.path.join(cfg.out_dir, "vae.pt"))


if __name__ == "__main__":
    main(TrainConfig())
