# corpus: VAE course project — reparameterization, KL weight annealed by global step, logging, best/last checkpoints
import argparse
import logging
import os

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
logger = logging.getLogger(__name__)

parser = argparse.ArgumentParser()
parser.add_argument("--latent_dim", type=int, default=4)
parser.add_argument("--hidden", type=int, default=64)
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--bs", type=int, default=50)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--anneal_steps", type=int, default=20, help="steps to ramp beta 0->1")
parser.add_argument("--out_dir", default="vae_out")
args = parser.parse_args([])


class VAE(nn.Module):
    def __init__(self, in_dim=64, hidden=64, latent=4):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc_mu = nn.Linear(hidden, latent)
        self.fc_logvar = nn.Linear(hidden, latent)
        self.fc3 = nn.Linear(latent, hidden)
        self.fc4 = nn.Linear(hidden, in_dim)

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


def loss_function(recon_x, x, mu, logvar, beta):
    bce = F.binary_cross_entropy(recon_x, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + beta * kld, bce, kld


def kl_weight(step):
    return min(1.0, step / args.anneal_steps)


torch.manual_seed(1)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
os.makedirs(args.out_dir, exist_ok=True)

# binary-ish "images": 8x8 patterns
codes = torch.randn(400, 3)
mix = torch.randn(3, 64)
data = torch.sigmoid(codes @ mix)
train_loader = DataLoader(TensorDataset(data[:300]), batch_size=args.bs, shuffle=True)
test_loader = DataLoader(TensorDataset(data[300:]), batch_size=args.bs)

model = VAE(64, args.hidden, args.latent_dim).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
global_step = 0


def train(epoch):
    global global_step
    model.train()
    train_loss = 0
    for batch_idx, (x,) in enumerate(train_loader):
        x = x.to(device)
        optimizer.zero_grad()
        recon, mu, logvar = model(x)
        beta = kl_weight(global_step)
        loss, bce, kld = loss_function(recon, x, mu, logvar, beta)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        global_step += 1
        if batch_idx % 3 == 0:
            logger.info(
                f"Train Epoch: {epoch} [{batch_idx * len(x)}/{len(train_loader.dataset)}] "
                f"Loss: {loss.item() / len(x):.4f} beta={beta:.3f}"
            )
    logger.info(f"====> Epoch: {epoch} Average loss: {train_loss / len(train_loader.dataset):.4f}")


@torch.no_grad()
def test(epoch):
    model.eval()
    test_loss = 0
    for (x,) in test_loader:
        x = x.to(device)
        recon, mu, logvar = model(x)
        test_loss += loss_function(recon, x, mu, logvar, 1.0)[0].item()
    test_loss /= len(test_loader.dataset)
    logger.info(f"====> Test set loss: {test_loss:.4f}")
    return test_loss


best = float("inf")
for epoch in range(1, args.epochs + 1):
    train(epoch)
    val = test(epoch)
    state = {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": global_step}
    torch.save(state, os.path.join(args.out_dir, "last.pt"))
    if val < best:
        best = val
        torch.save(state, os.path.join(args.out_dir, "best.pt"))
    with torch.no_grad():
        sample = model.decode(torch.randn(16, args.latent_dim).to(device)).cpu()
        torch.save(sample.view(16, 1, 8, 8), os.path.join(args.out_dir, f"sample_{epoch}.pt"))

logger.info(f"best test loss {best:.4f} after {global_step} steps")
