# corpus: vanilla GAN on 2-D points, separate D and G optimizers, detach() for the D step, BCE losses
import torch
import torch.nn as nn

torch.manual_seed(999)

latent_dim = 4
batch_size = 32
num_epochs = 3
lr = 2e-3
beta1 = 0.5

# "real" data: points on a noisy ring
angles = torch.rand(512) * 2 * torch.pi
real_data = torch.stack([torch.cos(angles), torch.sin(angles)], dim=1) + 0.05 * torch.randn(512, 2)
dataloader = torch.utils.data.DataLoader(real_data, batch_size=batch_size, shuffle=True, drop_last=True)

netG = nn.Sequential(nn.Linear(latent_dim, 32), nn.ReLU(True), nn.Linear(32, 32), nn.ReLU(True), nn.Linear(32, 2))
netD = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2, inplace=True), nn.Linear(32, 1), nn.Sigmoid())

criterion = nn.BCELoss()
real_label = 1.0
fake_label = 0.0
optimizerD = torch.optim.Adam(netD.parameters(), lr=lr, betas=(beta1, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=lr, betas=(beta1, 0.999))
fixed_noise = torch.randn(16, latent_dim)

G_losses = []
D_losses = []
print("Starting Training Loop...")
for epoch in range(num_epochs):
    for i, real in enumerate(dataloader, 0):
        ############################
        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        ###########################
        netD.zero_grad()
        b_size = real.size(0)
        label = torch.full((b_size,), real_label, dtype=torch.float)
        output = netD(real).view(-1)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()

        noise = torch.randn(b_size, latent_dim)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach()).view(-1)
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()

        ############################
        # (2) Update G network: maximize log(D(G(z)))
        ###########################
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake).view(-1)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()

        if i % 5 == 0:
            print("[%d/%d][%d/%d]\tLoss_D: %.4f\tLoss_G: %.4f\tD(x): %.4f\tD(G(z)): %.4f / %.4f"
                  % (epoch, num_epochs, i, len(dataloader), errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))
        G_losses.append(errG.item())
        D_losses.append(errD.item())

with torch.no_grad():
    samples = netG(fixed_noise)
print("sample radius:", samples.norm(dim=1).mean().item())
