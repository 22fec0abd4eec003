# corpus: VAE with KL annealing: beta = min(1.0, epoch / warmup_epochs), loss_function(recon_x, x, mu, logvar, beta) BCE + beta*KLD summed, train_loss += loss.item(), '====> Epoch: {} Average loss: {:.4f}' over len(train_loader.dataset), test() saving a reconstruction tensor with torch.save on its first batch
import argparse
import os

import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F

parser = argparse.ArgumentParser(description='VAE with KL warm-up')
parser.add_argument('--batch-size', type=int, default=64, metavar='N')
parser.add_argument('--epochs', type=int, default=4, metavar='N')
parser.add_argument('--warmup-epochs', type=int, default=3)
parser.add_argument('--seed', type=int, default=1, metavar='S')
parser.add_argument('--log-interval', type=int, default=5, metavar='N')
args = parser.parse_args()

torch.manual_seed(args.seed)
device = torch.device("cpu")

# binarized 28x28 "digits": blobs at random positions
def make_images(n):
    imgs = torch.zeros(n, 1, 28, 28)
    cx = torch.randint(6, 22, (n,))
    cy = torch.randint(6, 22, (n,))
    yy, xx = torch.meshgrid(torch.arange(28), torch.arange(28), indexing='ij')
    for i in range(n):
        d = (xx - cx[i]) ** 2 + (yy - cy[i]) ** 2
        imgs[i, 0] = (d < 20).float()
    return imgs, torch.zeros(n, dtype=torch.long)

train_x, train_y = make_images(640)
test_x, test_y = make_images(128)
train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(train_x, train_y),
                                           batch_size=args.batch_size, shuffle=True)
test_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(test_x, test_y),
                                          batch_size=args.batch_size, shuffle=False)


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(784, 200)
        self.fc21 = nn.Linear(200, 10)
        self.fc22 = nn.Linear(200, 10)
        self.fc3 = nn.Linear(10, 200)
        self.fc4 = nn.Linear(200, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE().to(device)
optimizer = optim.Adam(model.parameters(), lr=1e-3)


# Reconstruction + beta * KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar, beta=1.0):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction='sum')
    # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2)
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + beta * KLD


def train(epoch):
    model.train()
    beta = min(1.0, epoch / args.warmup_epochs)
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar, beta)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}\tbeta: {:.2f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader),
                loss.item() / len(data), beta))

    print('====> Epoch: {} Average loss: {:.4f}'.format(
          epoch, train_loss / len(train_loader.dataset)))


def test(epoch):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            data = data.to(device)
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
            if i == 0:
                n = min(data.size(0), 8)
                comparison = torch.cat([data[:n],
                                        recon_batch.view(args.batch_size, 1, 28, 28)[:n]])
                torch.save(comparison.cpu(), 'results/reconstruction_' + str(epoch) + '.pt')

    test_loss /= len(test_loader.dataset)
    print('====> Test set loss: {:.4f}'.format(test_loss))


if __name__ == "__main__":
    os.makedirs('results', exist_ok=True)
    for epoch in range(1, args.epochs + 1):
        train(epoch)
        test(epoch)
        with torch.no_grad():
            sample = torch.randn(16, 10).to(device)
            sample = model.decode(sample).cpu()
            torch.save(sample.view(16, 1, 28, 28), 'results/sample_' + str(epoch) + '.pt')
