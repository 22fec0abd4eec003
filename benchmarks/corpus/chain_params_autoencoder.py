# corpus: separate encoder and decoder modules trained by one optimizer over itertools.chain of their parameters
import itertools

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(17)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(30, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 30)

    def forward(self, z):
        return torch.sigmoid(self.fc2(torch.relu(self.fc1(z))))


data = torch.rand(200, 30)
loader = DataLoader(TensorDataset(data), batch_size=20, shuffle=True)

encoder = Encoder()
decoder = Decoder()
optimizer = torch.optim.Adam(itertools.chain(encoder.parameters(), decoder.parameters()), lr=3e-3)
criterion = nn.BCELoss()

for epoch in range(4):
    encoder.train()
    decoder.train()
    total = 0.0
    for (batch,) in loader:
        z = encoder(batch)
        recon = decoder(z)
        loss = criterion(recon, batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch}: reconstruction loss {total / len(loader):.4f}")

torch.save({"encoder": encoder.state_dict(), "decoder": decoder.state_dict()}, "autoencoder.pt")
