# corpus: energy-based model with SGLD / Langevin negatives and a replay buffer (JEM / "Implicit Generation" / UvA DL tutorial style): Sampler class with torch.autograd.grad in a loop, model frozen during sampling, contrastive-divergence loss + energy regularizer, step loop over a cycled loader, samples saved
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)

DEVICE = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
hparams = dict(lr=1e-3, beta1=0.0, alpha=0.1, steps_sgld=10, step_size=10.0, noise=0.005,
               buffer_size=256, batch_size=32, max_steps=24, log_every=6)


class EnergyNet(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, hidden // 2, 3, 2, 1), nn.SiLU(),
            nn.Conv2d(hidden // 2, hidden, 3, 2, 1), nn.SiLU(),
            nn.Flatten(), nn.Linear(hidden * 4 * 4, 1))

    def forward(self, x):
        return self.cnn(x).squeeze(dim=-1)


class Sampler:
    def __init__(self, model, img_shape, sample_size, max_len=256):
        self.model = model
        self.img_shape = img_shape
        self.sample_size = sample_size
        self.max_len = max_len
        self.examples = [(torch.rand((1,) + img_shape) * 2 - 1) for _ in range(self.sample_size)]

    def sample_new_exmps(self, steps=60, step_size=10):
        n_new = np.random.binomial(self.sample_size, 0.05)
        rand_imgs = torch.rand((n_new,) + self.img_shape) * 2 - 1
        old_imgs = torch.cat(random.choices(self.examples, k=self.sample_size - n_new), dim=0)
        inp_imgs = torch.cat([rand_imgs, old_imgs], dim=0).detach().to(DEVICE)
        inp_imgs = Sampler.generate_samples(self.model, inp_imgs, steps=steps, step_size=step_size)
        self.examples = list(inp_imgs.to(torch.device("cpu")).chunk(self.sample_size, dim=0)) + self.examples
        self.examples = self.examples[:self.max_len]
        return inp_imgs

    @staticmethod
    def generate_samples(model, inp_imgs, steps=60, step_size=10, return_img_per_step=False):
        is_training = model.training
        model.eval()
        for p in model.parameters():
            p.requires_grad = False
        inp_imgs.requires_grad = True
        had_gradients_enabled = torch.is_grad_enabled()
        torch.set_grad_enabled(True)
        noise = torch.randn(inp_imgs.shape, device=inp_imgs.device)
        for _ in range(steps):
            noise.normal_(0, hparams["noise"])
            inp_imgs.data.add_(noise.data)
            inp_imgs.data.clamp_(min=-1.0, max=1.0)
            out_imgs = -model(inp_imgs)
            out_imgs.sum().backward()
            inp_imgs.grad.data.clamp_(-0.03, 0.03)
            inp_imgs.data.add_(-step_size * inp_imgs.grad.data)
            inp_imgs.grad.detach_()
            inp_imgs.grad.zero_()
            inp_imgs.data.clamp_(min=-1.0, max=1.0)
        for p in model.parameters():
            p.requires_grad = True
        model.train(is_training)
        torch.set_grad_enabled(had_gradients_enabled)
        return inp_imgs


real = torch.tanh(torch.randn(512, 1, 16, 16) * 0.5 + torch.linspace(-1, 1, 16)[None, None, :, None])
loader = DataLoader(TensorDataset(real), batch_size=hparams["batch_size"], shuffle=True, drop_last=True)

model = EnergyNet().to(DEVICE)
sampler = Sampler(model, img_shape=(1, 16, 16), sample_size=hparams["batch_size"], max_len=hparams["buffer_size"])
optimizer = torch.optim.Adam(model.parameters(), lr=hparams["lr"], betas=(hparams["beta1"], 0.999))
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.97)

global_step = 0
history = []
while global_step < hparams["max_steps"]:
    for (real_imgs,) in loader:
        real_imgs = real_imgs.to(DEVICE)
        small_noise = torch.randn_like(real_imgs) * hparams["noise"]
        real_imgs = real_imgs.add_(small_noise).clamp_(min=-1.0, max=1.0)

        fake_imgs = sampler.sample_new_exmps(steps=hparams["steps_sgld"], step_size=hparams["step_size"])

        inp_imgs = torch.cat([real_imgs, fake_imgs], dim=0)
        real_out, fake_out = model(inp_imgs).chunk(2, dim=0)

        reg_loss = hparams["alpha"] * (real_out ** 2 + fake_out ** 2).mean()
        cdiv_loss = fake_out.mean() - real_out.mean()
        loss = reg_loss + cdiv_loss

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        global_step += 1
        history.append({"loss": loss.item(), "cdiv": cdiv_loss.item(), "reg": reg_loss.item()})

        if global_step % hparams["log_every"] == 0:
            scheduler.step()
            print(f"step {global_step:4d} loss {loss.item():+.4f} cdiv {cdiv_loss.item():+.4f} "
                  f"E(real) {real_out.mean().item():+.3f} E(fake) {fake_out.mean().item():+.3f}")
        if global_step >= hparams["max_steps"]:
            break

model.eval()
samples = Sampler.generate_samples(model, torch.rand(16, 1, 16, 16) * 2 - 1, steps=20, step_size=hparams["step_size"])
torch.save(samples.detach().cpu(), "ebm_samples.pt")
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": global_step}, "ebm.ckpt")
np.save("ebm_history.npy", np.array([h["loss"] for h in history]))
