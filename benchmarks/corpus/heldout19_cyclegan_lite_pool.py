# corpus: CycleGAN-lite (PyTorch-CycleGAN style): G_AB/G_BA in one Adam over itertools.chain, D_A/D_B own optimizers, ReplayBuffer image pools, identity + cycle + GAN losses, LambdaLR linear decay per optimizer stepped per epoch, unaligned A/B dataset
import itertools
import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

random.seed(0)
torch.manual_seed(0)

n_epochs, decay_epoch, batch_size, lr = 4, 2, 8, 0.0002
lambda_cyc, lambda_id = 10.0, 5.0
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class UnalignedDataset(Dataset):
    def __init__(self, n_a=32, n_b=28):
        self.A = torch.tanh(torch.randn(n_a, 3, 8, 8))
        self.B = torch.tanh(torch.randn(n_b, 3, 8, 8) * 0.5 + 0.3)

    def __len__(self):
        return max(len(self.A), len(self.B))

    def __getitem__(self, i):
        return {"A": self.A[i % len(self.A)], "B": self.B[random.randint(0, len(self.B) - 1)]}


def generator():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.InstanceNorm2d(8), nn.ReLU(True),
        nn.Conv2d(8, 8, 3, padding=1), nn.InstanceNorm2d(8), nn.ReLU(True),
        nn.Conv2d(8, 3, 3, padding=1), nn.Tanh(),
    )


def discriminator():
    return nn.Sequential(
        nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2, True),
        nn.Conv2d(8, 16, 4, 2, 1), nn.InstanceNorm2d(16), nn.LeakyReLU(0.2, True),
        nn.Conv2d(16, 1, 3, padding=1),
    )


class ReplayBuffer:
    def __init__(self, max_size=50):
        self.max_size = max_size
        self.data = []

    def push_and_pop(self, data):
        to_return = []
        for element in data.data:
            element = torch.unsqueeze(element, 0)
            if len(self.data) < self.max_size:
                self.data.append(element)
                to_return.append(element)
            elif random.uniform(0, 1) > 0.5:
                i = random.randint(0, self.max_size - 1)
                to_return.append(self.data[i].clone())
                self.data[i] = element
            else:
                to_return.append(element)
        return torch.cat(to_return)


class LambdaLR:
    def __init__(self, n_epochs, offset, decay_start_epoch):
        self.n_epochs, self.offset, self.decay_start_epoch = n_epochs, offset, decay_start_epoch

    def step(self, epoch):
        return 1.0 - max(0, epoch + self.offset - self.decay_start_epoch) / (self.n_epochs - self.decay_start_epoch)


G_AB, G_BA = generator().to(device), generator().to(device)
D_A, D_B = discriminator().to(device), discriminator().to(device)
criterion_GAN, criterion_cycle, criterion_identity = nn.MSELoss(), nn.L1Loss(), nn.L1Loss()

optimizer_G = torch.optim.Adam(itertools.chain(G_AB.parameters(), G_BA.parameters()), lr=lr, betas=(0.5, 0.999))
optimizer_D_A = torch.optim.Adam(D_A.parameters(), lr=lr, betas=(0.5, 0.999))
optimizer_D_B = torch.optim.Adam(D_B.parameters(), lr=lr, betas=(0.5, 0.999))

lr_scheduler_G = torch.optim.lr_scheduler.LambdaLR(optimizer_G, lr_lambda=LambdaLR(n_epochs, 0, decay_epoch).step)
lr_scheduler_D_A = torch.optim.lr_scheduler.LambdaLR(optimizer_D_A, lr_lambda=LambdaLR(n_epochs, 0, decay_epoch).step)
lr_scheduler_D_B = torch.optim.lr_scheduler.LambdaLR(optimizer_D_B, lr_lambda=LambdaLR(n_epochs, 0, decay_epoch).step)

fake_A_buffer, fake_B_buffer = ReplayBuffer(), ReplayBuffer()
dataloader = DataLoader(UnalignedDataset(), batch_size=batch_size, shuffle=True)

for epoch in range(n_epochs):
    for i, batch in enumerate(dataloader):
        real_A, real_B = batch["A"].to(device), batch["B"].to(device)

        # ------------------ Generators ------------------
        G_AB.train()
        G_BA.train()
        optimizer_G.zero_grad()
        loss_id = (criterion_identity(G_BA(real_A), real_A) + criterion_identity(G_AB(real_B), real_B)) / 2
        fake_B = G_AB(real_A)
        pred = D_B(fake_B)
        loss_GAN_AB = criterion_GAN(pred, torch.ones_like(pred))
        fake_A = G_BA(real_B)
        pred = D_A(fake_A)
        loss_GAN_BA = criterion_GAN(pred, torch.ones_like(pred))
        loss_GAN = (loss_GAN_AB + loss_GAN_BA) / 2
        loss_cycle = (criterion_cycle(G_BA(fake_B), real_A) + criterion_cycle(G_AB(fake_A), real_B)) / 2
        loss_G = loss_GAN + lambda_cyc * loss_cycle + lambda_id * loss_id
        loss_G.backward()
        optimizer_G.step()

        # ------------------ Discriminator A ------------------
        optimizer_D_A.zero_grad()
        pred_real = D_A(real_A)
        fake_A_ = fake_A_buffer.push_and_pop(fake_A)
        pred_fake = D_A(fake_A_.detach())
        loss_D_A = (criterion_GAN(pred_real, torch.ones_like(pred_real)) + criterion_GAN(pred_fake, torch.zeros_like(pred_fake))) / 2
        loss_D_A.backward()
        optimizer_D_A.step()

        # ------------------ Discriminator B ------------------
        optimizer_D_B.zero_grad()
        pred_real = D_B(real_B)
        fake_B_ = fake_B_buffer.push_and_pop(fake_B)
        pred_fake = D_B(fake_B_.detach())
        loss_D_B = (criterion_GAN(pred_real, torch.ones_like(pred_real)) + criterion_GAN(pred_fake, torch.zeros_like(pred_fake))) / 2
        loss_D_B.backward()
        optimizer_D_B.step()

        loss_D = (loss_D_A + loss_D_B) / 2
        if i % 3 == 0:
            print(f"[Epoch {epoch}/{n_epochs}] [Batch {i}/{len(dataloader)}] [D loss: {loss_D.item():.4f}] "
                  f"[G loss: {loss_G.item():.4f}, adv: {loss_GAN.item():.4f}, cycle: {loss_cycle.item():.4f}, identity: {loss_id.item():.4f}]")

    # Update learning rates
    lr_scheduler_G.step()
    lr_scheduler_D_A.step()
    lr_scheduler_D_B.step()
    print("lr G %.6f" % optimizer_G.param_groups[0]["lr"])

    torch.save(G_AB.state_dict(), "G_AB.pth")
    torch.save(G_BA.state_dict(), "G_BA.pth")
    torch.save(D_A.state_dict(), "D_A.pth")
    torch.save(D_B.state_dict(), "D_B.pth")
