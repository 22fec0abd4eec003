# corpus: autoencoder tutorial on flattened images: Adam with weight_decay, print the last batch's loss per epoch, outputs.append((epoch, img, recon))
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset

torch.manual_seed(0)

# stand-in for datasets.MNIST(..., transform=transforms.ToTensor())
mnist_data = TensorDataset(torch.rand(320, 1, 28, 28), torch.randint(0, 10, (320,)))
data_loader = torch.utils.data.DataLoader(dataset=mnist_data, batch_size=64, shuffle=True)

dataiter = iter(data_loader)
images, labels = next(dataiter)
print(torch.min(images), torch.max(images))


class Autoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        # N, 784
        self.encoder = nn.Sequential(
            nn.Linear(28 * 28, 128),  # N, 784 -> N, 128
            nn.ReLU(),
            nn.Linear(128, 64),
            nn.ReLU(),
            nn.Linear(64, 12),
            nn.ReLU(),
            nn.Linear(12, 3)  # -> N, 3
        )
        self.decoder = nn.Sequential(
            nn.Linear(3, 12),
            nn.ReLU(),
            nn.Linear(12, 64),
            nn.ReLU(),
            nn.Linear(64, 128),
            nn.ReLU(),
            nn.Linear(128, 28 * 28),
            nn.Sigmoid()
        )

    def forward(self, x):
        encoded = self.encoder(x)
        decoded = self.decoder(encoded)
        return decoded


model = Autoencoder()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-5)

num_epochs = 4
outputs = []
for epoch in range(num_epochs):
    for (img, _) in data_loader:
        img = img.reshape(-1, 28 * 28)
        recon = model(img)
        loss = criterion(recon, img)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    print(f'Epoch:{epoch+1}, Loss:{loss.item():.4f}')
    outputs.append((epoch, img, recon))

# instead of plt.imshow: how close the last reconstructions of some epochs are
for k in range(0, num_epochs, 2):
    imgs = outputs[k][1].detach().numpy()
    recon = outputs[k][2].detach().numpy()
    print(k, imgs.shape, float(abs(imgs - recon).mean()))
