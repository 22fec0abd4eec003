# corpus: VAE-GAN (Larsen et al. re-implementation style): Encoder / Decoder / Discriminator with one RMSprop each, KL + feature-space reconstruction (D's hidden layer) + GAN losses, encoder/decoder/discriminator losses backpropagated with retain_graph=True, train() function per epoch returning mean losses, recon tensor saved
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

Z = 8
GAMMA = 15.0
EPOCHS = 3

X = torch.sigmoid(torch.randn(192, 64) * 2)
train_loader = DataLoader(TensorDataset(X), batch_size=32, shuffle=True)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(64, 48), nn.ReLU())
        self.mu = nn.Linear(48, Z)
        self.logvar = nn.Linear(48, Z)

    def forward(self, x):
        h = self.fc(x)
        return self.mu(h), self.logvar(h)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(Z, 48), nn.ReLU(), nn.Linear(48, 64), nn.Sigmoid())

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 32), nn.LeakyReLU(0.2))
        self.out = nn.Linear(32, 1)

    def forward(self, x):
        f = self.features(x)
        return torch.sigmoid(self.out(f)), f


enc, dec, dis = Encoder().to(device), Decoder().to(device), Discriminator().to(device)
opt_enc = torch.optim.RMSprop(enc.parameters(), lr=3e-4)
opt_dec = torch.optim.RMSprop(dec.parameters(), lr=3e-4)
opt_dis = torch.optim.RMSprop(dis.parameters(), lr=3e-4)


def reparameterize(mu, logvar):
    std = torch.exp(0.5 * logvar)
    eps = torch.randn_like(std)
    return mu + eps * std


def train(epoch):
    enc.train(); dec.train(); dis.train()
    sums = {"enc": 0.0, "dec": 0.0, "dis": 0.0}
    for batch_idx, (x,) in enumerate(train_loader):
        x = x.to(device)
        bs = x.size(0)
        ones = torch.ones(bs, 1, device=device)
        zeros = torch.zeros(bs, 1, device=device)

        mu, logvar = enc(x)
        z = reparameterize(mu, logvar)
        x_tilde = dec(z)
        x_p = dec(torch.randn(bs, Z, device=device))

        d_real, f_real = dis(x)
        d_tilde, f_tilde = dis(x_tilde)
        d_p, _ = dis(x_p)

        kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / bs
        rec = F.mse_loss(f_tilde, f_real.detach(), reduction="sum") / bs
        gan = F.binary_cross_entropy(d_real, ones) + F.binary_cross_entropy(d_tilde, zeros) + F.binary_cross_entropy(d_p, zeros)

        loss_enc = kl + rec
        loss_dec = GAMMA * rec - gan
        loss_dis = gan

        enc.zero_grad()
        loss_enc.backward(retain_graph=True)
        dec.zero_grad()
        loss_dec.backward(retain_graph=True)
        dis.zero_grad()
        loss_dis.backward()
        opt_enc.step()
        opt_dec.step()
        opt_dis.step()

        sums["enc"] += loss_enc.item()
        sums["dec"] += loss_dec.item()
        sums["dis"] += loss_dis.item()
        if batch_idx % 2 == 0:
            print("Train Epoch: {} [{}/{}]\tenc: {:.4f}\tdec: {:.4f}\tdis: {:.4f}".format(
                epoch, batch_idx * len(x), len(train_loader.dataset), loss_enc.item(), loss_dec.item(), loss_dis.item()))
    return {k: v / len(train_loader) for k, v in sums.items()}


history = []
for epoch in range(1, EPOCHS + 1):
    means = train(epoch)
    history.append(means)
    print("====> Epoch: {} enc {:.4f} dec {:.4f} dis {:.4f}".format(epoch, means["enc"], means["dec"], means["dis"]))

enc.eval(); dec.eval()
with torch.no_grad():
    mu, _ = enc(X[:16].to(device))
    recon = dec(mu)
torch.save({"recon": recon.cpu(), "history": history}, "vaegan_out.pt")
torch.save({"enc": enc.state_dict(), "dec": dec.state_dict(), "dis": dis.state_dict()}, "vaegan.pth")
