# corpus: adversarial autoencoder blog style: Q (encoder) / P (decoder) / D_gauss, three phases per batch (reconstruction with optim_Q_enc + optim_P_dec, discriminator with optim_D, regularization with optim_Q_gen), zero_grad on every net before each phase, TINY epsilon in logs
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(7)
cuda = torch.cuda.is_available()
TINY = 1e-15
z_dim = 4
X_dim = 36
N = 48
epochs = 4
gen_lr = 0.0006
reg_lr = 0.0008

data = torch.rand(160, X_dim)
train_labeled_loader = DataLoader(TensorDataset(data, torch.zeros(160)), batch_size=20, shuffle=True)


class Q_net(nn.Module):
    def __init__(self):
        super(Q_net, self).__init__()
        self.lin1 = nn.Linear(X_dim, N)
        self.lin2 = nn.Linear(N, N)
        self.lin3gauss = nn.Linear(N, z_dim)

    def forward(self, x):
        x = F.dropout(self.lin1(x), p=0.25, training=self.training)
        x = F.relu(x)
        x = F.dropout(self.lin2(x), p=0.25, training=self.training)
        x = F.relu(x)
        return self.lin3gauss(x)


class P_net(nn.Module):
    def __init__(self):
        super(P_net, self).__init__()
        self.lin1 = nn.Linear(z_dim, N)
        self.lin2 = nn.Linear(N, N)
        self.lin3 = nn.Linear(N, X_dim)

    def forward(self, x):
        x = F.relu(F.dropout(self.lin1(x), p=0.25, training=self.training))
        x = F.relu(F.dropout(self.lin2(x), p=0.25, training=self.training))
        return torch.sigmoid(self.lin3(x))


class D_net_gauss(nn.Module):
    def __init__(self):
        super(D_net_gauss, self).__init__()
        self.lin1 = nn.Linear(z_dim, N)
        self.lin2 = nn.Linear(N, N)
        self.lin3 = nn.Linear(N, 1)

    def forward(self, x):
        x = F.relu(F.dropout(self.lin1(x), p=0.2, training=self.training))
        x = F.relu(F.dropout(self.lin2(x), p=0.2, training=self.training))
        return torch.sigmoid(self.lin3(x))


Q, P, D_gauss = Q_net(), P_net(), D_net_gauss()
if cuda:
    Q, P, D_gauss = Q.cuda(), P.cuda(), D_gauss.cuda()

optim_P = torch.optim.Adam(P.parameters(), lr=gen_lr)
optim_Q_enc = torch.optim.Adam(Q.parameters(), lr=gen_lr)
optim_Q_gen = torch.optim.Adam(Q.parameters(), lr=reg_lr)
optim_D = torch.optim.Adam(D_gauss.parameters(), lr=reg_lr)


def train(P, Q, D_gauss, P_decoder, Q_encoder, Q_generator, D_gauss_solver, data_loader):
    Q.train()
    P.train()
    D_gauss.train()
    for X, _ in data_loader:
        if cuda:
            X = X.cuda()
        P.zero_grad()
        Q.zero_grad()
        D_gauss.zero_grad()

        # Reconstruction phase
        z_sample = Q(X)
        X_sample = P(z_sample)
        recon_loss = F.binary_cross_entropy(X_sample + TINY, X + TINY)
        recon_loss.backward()
        P_decoder.step()
        Q_encoder.step()

        P.zero_grad()
        Q.zero_grad()
        D_gauss.zero_grad()

        # Regularization phase: discriminator
        Q.eval()
        z_real_gauss = torch.randn(X.size(0), z_dim) * 5.0
        if cuda:
            z_real_gauss = z_real_gauss.cuda()
        z_fake_gauss = Q(X)
        D_real_gauss = D_gauss(z_real_gauss)
        D_fake_gauss = D_gauss(z_fake_gauss)
        D_loss = -torch.mean(torch.log(D_real_gauss + TINY) + torch.log(1 - D_fake_gauss + TINY))
        D_loss.backward()
        D_gauss_solver.step()

        P.zero_grad()
        Q.zero_grad()
        D_gauss.zero_grad()

        # Regularization phase: generator
        Q.train()
        z_fake_gauss = Q(X)
        D_fake_gauss = D_gauss(z_fake_gauss)
        G_loss = -torch.mean(torch.log(D_fake_gauss + TINY))
        G_loss.backward()
        Q_generator.step()

        P.zero_grad()
        Q.zero_grad()
        D_gauss.zero_grad()
    return D_loss, G_loss, recon_loss


for epoch in range(epochs):
    D_loss_gauss, G_loss, recon_loss = train(P, Q, D_gauss, optim_P, optim_Q_enc, optim_Q_gen, optim_D, train_labeled_loader)
    print("Epoch-{}; D_loss_gauss: {:.4}; G_loss: {:.4}; recon_loss: {:.4}".format(
        epoch, D_loss_gauss.item(), G_loss.item(), recon_loss.item()))

torch.save(Q.state_dict(), "Q_encoder.pt")
torch.save(P.state_dict(), "P_decoder.pt")
