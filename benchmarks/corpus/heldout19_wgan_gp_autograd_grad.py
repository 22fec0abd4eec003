# corpus: WGAN-GP research style: compute_gradient_penalty(D, real, fake) with torch.autograd.grad(create_graph=True), Adam(0.0, 0.9), critic step every batch and G every n_critic, losses appended to lists and saved
import os

import torch
import torch.autograd as autograd
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
device = "cuda" if torch.cuda.is_available() else "cpu"

# hyper-parameters
LATENT = 16
DATA_DIM = 2
BATCH = 32
EPOCHS = 5
N_CRITIC = 5
LAMBDA_GP = 10
LR = 1e-4

# 8 gaussians toy data
centers = torch.tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]]) * 2
idx = torch.randint(0, 4, (512,))
X = centers[idx] + 0.05 * torch.randn(512, DATA_DIM)
loader = DataLoader(TensorDataset(X), batch_size=BATCH, shuffle=True, drop_last=True)


class G(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, DATA_DIM))

    def forward(self, z):
        return self.net(z)


class D(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DATA_DIM, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)


def compute_gradient_penalty(D, real_samples, fake_samples):
    """Calculates the gradient penalty loss for WGAN GP"""
    alpha = torch.rand(real_samples.size(0), 1, device=real_samples.device)
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = torch.ones(real_samples.shape[0], 1, device=real_samples.device)
    gradients = autograd.grad(
        outputs=d_interpolates,
        inputs=interpolates,
        grad_outputs=fake,
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    gradients = gradients.view(gradients.size(0), -1)
    gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
    return gradient_penalty


generator = G().to(device)
critic = D().to(device)
opt_G = torch.optim.Adam(generator.parameters(), lr=LR, betas=(0.0, 0.9))
opt_D = torch.optim.Adam(critic.parameters(), lr=LR, betas=(0.0, 0.9))

G_losses, D_losses, W_dists = [], [], []
os.makedirs("checkpoints", exist_ok=True)

for epoch in range(1, EPOCHS + 1):
    for i, (real,) in enumerate(loader):
        real = real.to(device)

        # ---- critic ----
        opt_D.zero_grad()
        z = torch.randn(real.size(0), LATENT, device=device)
        fake = generator(z)
        real_validity = critic(real)
        fake_validity = critic(fake.detach())
        gp = compute_gradient_penalty(critic, real.data, fake.data)
        d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + LAMBDA_GP * gp
        d_loss.backward()
        opt_D.step()
        D_losses.append(d_loss.item())
        W_dists.append((torch.mean(real_validity) - torch.mean(fake_validity)).item())

        # ---- generator every n_critic steps ----
        if i % N_CRITIC == 0:
            opt_G.zero_grad()
            fake = generator(z)
            g_loss = -torch.mean(critic(fake))
            g_loss.backward()
            opt_G.step()
            G_losses.append(g_loss.item())

    print(f"epoch {epoch:2d} | D {sum(D_losses[-len(loader):]) / len(loader):.4f} | G {G_losses[-1]:.4f} | W {W_dists[-1]:.4f}")

    if epoch % 2 == 0:
        torch.save(
            {"epoch": epoch, "G": generator.state_dict(), "D": critic.state_dict(), "opt_G": opt_G.state_dict(), "opt_D": opt_D.state_dict()},
            f"checkpoints/wgan_gp_{epoch}.pt",
        )

torch.save({"G": G_losses, "D": D_losses, "W": W_dists}, "losses.pt")
with torch.no_grad():
    samples = generator(torch.randn(256, LATENT, device=device)).cpu()
print("sample mean", samples.mean(0).tolist(), "std", samples.std(0).tolist())
