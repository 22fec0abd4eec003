# corpus: energy-based model research script (IGEBM / UvA tutorial 8 style, plain PyTorch) on 2D rings: Sampler class with a replay buffer of examples and sample_new_exmps(steps, step_size) running SGLD with inp.requires_grad_() and energy.sum().backward() on the input under torch.enable_grad(), the model frozen (requires_grad False) and put in eval() while sampling, then loss = reg_loss + cdiv_loss on real vs fake energies, Adam with betas (0.0, 0.999), StepLR per epoch, running metrics dict printed, samples and buffer saved
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

SEED = 43
torch.manual_seed(SEED)
random.seed(SEED)
np.random.seed(SEED)

DEVICE = torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")
print("Device:", DEVICE)

hparams = dict(
    hidden_features=64,
    lr=1e-3,
    beta1=0.0,
    alpha=0.1,
    batch_size=64,
    epochs=5,
    sample_steps=20,
    step_size=0.05,
)


def sample_rings(n, radii=(1.0, 2.0), noise=0.05):
    which = torch.randint(0, len(radii), (n,))
    r = torch.tensor(radii)[which]
    theta = torch.rand(n) * 2 * np.pi
    x = torch.stack([r * torch.cos(theta), r * torch.sin(theta)], dim=1)
    return x + noise * torch.randn_like(x)


class Swish(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


class EnergyNet(nn.Module):
    def __init__(self, hidden_features=64, out_dim=1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, hidden_features), Swish(),
            nn.Linear(hidden_features, hidden_features), Swish(),
            nn.Linear(hidden_features, hidden_features), Swish(),
            nn.Linear(hidden_features, out_dim),
        )

    def forward(self, x):
        # returns -energy (higher = more likely)
        return self.net(x).squeeze(dim=-1)


class Sampler:

    def __init__(self, model, sample_size, max_len=2048):
        """
        Inputs:
            model - Neural network to use for modeling E_theta
            sample_size - Batch size of the samples
            max_len - Maximum number of data points to keep in the buffer
        """
        super().__init__()
        self.model = model
        self.sample_size = sample_size
        self.max_len = max_len
        self.examples = [(torch.rand((1, 2)) * 6 - 3) for _ in range(self.sample_size)]

    def sample_new_exmps(self, steps=60, step_size=10):
        """
        Function for getting a new batch of "fake" points.
        Inputs:
            steps - Number of iterations in the MCMC algorithm
            step_size - Learning rate nu in the algorithm above
        """
        # Choose 95% of the batch from the buffer, 5% generate from scratch
        n_new = np.random.binomial(self.sample_size, 0.05)
        rand_pts = torch.rand((n_new, 2)) * 6 - 3
        old_pts = torch.cat(random.choices(self.examples, k=self.sample_size - n_new), dim=0)
        inp_pts = torch.cat([rand_pts, old_pts], dim=0).detach().to(DEVICE)

        # Perform MCMC sampling
        inp_pts = Sampler.generate_samples(self.model, inp_pts, steps=steps, step_size=step_size)

        # Add new points to the buffer and remove old ones if needed
        self.examples = list(inp_pts.to(torch.device("cpu")).chunk(self.sample_size, dim=0)) + self.examples
        self.examples = self.examples[:self.max_len]
        return inp_pts

    @staticmethod
    def generate_samples(model, inp_pts, steps=60, step_size=10, return_pts_per_step=False):
        """
        Function for sampling points for a given model.
        """
        # Before MCMC: set model parameters to "required_grad=False"
        # because we are only interested in the gradients of the input.
        is_training = model.training
        model.eval()
        for p in model.parameters():
            p.requires_grad = False
        inp_pts.requires_grad = True

        # Enable gradient calculation if not already the case
        had_gradients_enabled = torch.is_grad_enabled()
        torch.set_grad_enabled(True)

        # We use a buffer tensor in which we generate noise each loop iteration.
        noise = torch.randn(inp_pts.shape, device=inp_pts.device)

        # List for storing generations at each step (for later analysis)
        pts_per_step = []

        # Loop over K (steps)
        for _ in range(steps):
            # Part 1: Add noise to the input.
            noise.normal_(0, 0.005)
            inp_pts.data.add_(noise.data)
            inp_pts.data.clamp_(min=-3.0, max=3.0)

            # Part 2: calculate gradients for the current input.
            out_pts = -model(inp_pts)
            out_pts.sum().backward()
            inp_pts.grad.data.clamp_(-0.03, 0.03)  # For stabilizing and preventing too high gradients

            # Apply gradients to our current samples
            inp_pts.data.add_(-step_size * inp_pts.grad.data)
            inp_pts.grad.detach_()
            inp_pts.grad.zero_()
            inp_pts.data.clamp_(min=-3.0, max=3.0)

            if return_pts_per_step:
                pts_per_step.append(inp_pts.clone().detach())

        # Reactivate gradients for parameters for training
        for p in model.parameters():
            p.requires_grad = True
        model.train(is_training)

        # Reset gradient calculation to setting before this function
        torch.set_grad_enabled(had_gradients_enabled)

        if return_pts_per_step:
            return torch.stack(pts_per_step, dim=0)
        else:
            return inp_pts


def train():
    data = sample_rings(1024)
    loader = DataLoader(TensorDataset(data), batch_size=hparams["batch_size"], shuffle=True, drop_last=True)

    model = EnergyNet(hparams["hidden_features"]).to(DEVICE)
    sampler = Sampler(model, sample_size=hparams["batch_size"])
    optimizer = optim.Adam(model.parameters(), lr=hparams["lr"], betas=(hparams["beta1"], 0.999))
    scheduler = optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.97)  # Exponential decay over epochs

    global_step = 0
    for epoch in range(hparams["epochs"]):
        metrics = {"loss": 0.0, "loss_regularization": 0.0, "loss_contrastive_divergence": 0.0,
                   "energy_pos": 0.0, "energy_neg": 0.0}
        n = 0
        for (real_pts,) in loader:
            real_pts = real_pts.to(DEVICE)
            # We add minimal noise to the original points to prevent the model from focusing on purely "clean" inputs
            small_noise = torch.randn_like(real_pts) * 0.005
            real_pts.add_(small_noise).clamp_(min=-3.0, max=3.0)

            # Obtain samples
            fake_pts = sampler.sample_new_exmps(steps=hparams["sample_steps"], step_size=hparams["step_size"])

            # Predict energy score for all points
            inp_pts = torch.cat([real_pts, fake_pts], dim=0)
            real_out, fake_out = model(inp_pts).chunk(2, dim=0)

            # Calculate losses
            reg_loss = hparams["alpha"] * (real_out ** 2 + fake_out ** 2).mean()
            cdiv_loss = fake_out.mean() - real_out.mean()
            loss = reg_loss + cdiv_loss

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            global_step += 1

            metrics["loss"] += loss.item()
            metrics["loss_regularization"] += reg_loss.item()
            metrics["loss_contrastive_divergence"] += cdiv_loss.item()
            metrics["energy_pos"] += real_out.mean().item()
            metrics["energy_neg"] += fake_out.mean().item()
            n += 1
        scheduler.step()
        print(f"epoch {epoch} step {global_step} " + " ".join(f"{k}={v / n:.4f}" for k, v in metrics.items()))

    # final samples from scratch
    torch.manual_seed(0)
    start = torch.rand((256, 2), device=DEVICE) * 6 - 3
    samples = Sampler.generate_samples(model, start, steps=100, step_size=hparams["step_size"])
    radius = samples.norm(dim=1)
    print("mean sample radius: %.3f" % radius.mean().item())
    torch.save({"samples": samples.detach().cpu(), "buffer": torch.cat(sampler.examples[:256])}, "ebm_samples.pt")
    torch.save(model.state_dict(), "ebm.pt")
    return model


if __name__ == "__main__":
    train()
