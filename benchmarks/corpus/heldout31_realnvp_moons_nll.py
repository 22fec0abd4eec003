# corpus: RealNVP course assignment — affine coupling layers with alternating masks, exact NLL loss, StepLR, samples + log-likelihood eval
import os

import numpy as np
import torch
from torch import nn, optim
from torch.distributions import MultivariateNormal

config = {
    "n_couplings": 4,
    "hidden": 32,
    "batch_size": 128,
    "epochs": 8,
    "lr": 5e-3,
    "save_path": "checkpoints/realnvp.pt",
    "seed": 3,
}


def make_moons(n, noise=0.08):
    n1 = n // 2
    a = np.linspace(0, np.pi, n1)
    b = np.linspace(0, np.pi, n - n1)
    x = np.concatenate([np.stack([np.cos(a), np.sin(a)], 1), np.stack([1 - np.cos(b), 0.5 - np.sin(b)], 1)])
    x += noise * np.random.randn(*x.shape)
    return torch.tensor(x, dtype=torch.float32)


class Coupling(nn.Module):
    def __init__(self, mask, hidden):
        super().__init__()
        self.register_buffer("mask", mask)
        self.s = nn.Sequential(nn.Linear(2, hidden), nn.LeakyReLU(), nn.Linear(hidden, 2), nn.Tanh())
        self.t = nn.Sequential(nn.Linear(2, hidden), nn.LeakyReLU(), nn.Linear(hidden, 2))

    def forward(self, x):  # data -> latent
        xm = x * self.mask
        s = self.s(xm) * (1 - self.mask)
        t = self.t(xm) * (1 - self.mask)
        z = xm + (1 - self.mask) * (x * torch.exp(s) + t)
        return z, s.sum(1)

    def inverse(self, z):
        zm = z * self.mask
        s = self.s(zm) * (1 - self.mask)
        t = self.t(zm) * (1 - self.mask)
        return zm + (1 - self.mask) * ((z - t) * torch.exp(-s))


class RealNVP(nn.Module):
    def __init__(self, n, hidden):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(n)]
        self.layers = nn.ModuleList([Coupling(m, hidden) for m in masks])
        self.register_buffer("loc", torch.zeros(2))
        self.register_buffer("cov", torch.eye(2))

    @property
    def prior(self):
        return MultivariateNormal(self.loc, self.cov)

    def log_prob(self, x):
        logdet = torch.zeros(x.shape[0], device=x.device)
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        return self.prior.log_prob(x) + logdet

    def sample(self, n):
        z = self.prior.sample((n,))
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


def nll_loss(model, x):
    return -model.log_prob(x).mean()


if __name__ == "__main__":
    np.random.seed(config["seed"])
    torch.manual_seed(config["seed"])
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_x = make_moons(1024)
    val_x = make_moons(256)
    train_loader = torch.utils.data.DataLoader(train_x, batch_size=config["batch_size"], shuffle=True)

    flow = RealNVP(config["n_couplings"], config["hidden"]).to(device)
    optimizer = optim.Adam(flow.parameters(), lr=config["lr"])
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)

    for epoch in range(config["epochs"]):
        flow.train()
        epoch_loss = []
        for batch in train_loader:
            batch = batch.to(device)
            loss = nll_loss(flow, batch)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(flow.parameters(), 5.0)
            optimizer.step()
            epoch_loss.append(loss.item())
        scheduler.step()
        flow.eval()
        with torch.no_grad():
            val_nll = nll_loss(flow, val_x.to(device)).item()
        print("Epoch {:3d} | train nll {:.4f} | val nll {:.4f} | lr {:.5f}".format(
            epoch, np.mean(epoch_loss), val_nll, optimizer.param_groups[0]["lr"]))

    os.makedirs(os.path.dirname(config["save_path"]), exist_ok=True)
    torch.save({"epoch": config["epochs"], "model": flow.state_dict(), "optimizer": optimizer.state_dict(),
                "config": config}, config["save_path"])
    with torch.no_grad():
        samples = flow.sample(500).cpu()
    np.save("realnvp_samples.npy", samples.numpy())
    print("sample mean", samples.mean(0).numpy().round(3), "bits/dim", round(val_nll / (2 * np.log(2)), 4))
