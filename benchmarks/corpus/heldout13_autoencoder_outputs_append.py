# corpus: blog-post convolutional autoencoder tutorial: nn.Sequential encoder/decoder in an Autoencoder class, MSELoss on the images (labels ignored), Adam with weight_decay, per-epoch print of the last batch loss, outputs.append((epoch, img, recon)) kept for plotting (saved instead)
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset

torch.manual_seed(5)

# "MNIST" stand-in in [0, 1]
data = torch.rand(512, 1, 16, 16)
mnist_data = TensorDataset(data, torch.randint(0, 10, (512,)))
data_loader = torch.utils.data.DataLoader(dataset=mnist_data, batch_size=64, shuffle=True)

dataiter = iter(data_loader)
images, labels = next(dataiter)
print(torch.min(images), torch.max(images))


class Autoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        # N, 1, 16, 16
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, 3, stride=2, padding=1),  # -> N, 8, 8, 8
            nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1),  # -> N, 16, 4, 4
            nn.ReLU(),
            nn.Conv2d(16, 32, 4)  # -> N, 32, 1, 1
        )

        # N , 32, 1, 1
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(32, 16, 4),  # -> N, 16, 4, 4
            nn.ReLU(),
            nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1),  # N, 8, 8, 8
            nn.ReLU(),
            nn.ConvTranspose2d(8, 1, 3, stride=2, padding=1, output_padding=1),  # N, 1, 16, 16
            nn.Sigmoid()
        )

    def forward(self, x):
        encoded = self.encoder(x)
        decoded = self.decoder(encoded)
        return decoded


model = Autoencoder()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(),
                             lr=1e-3,
                             weight_decay=1e-5)

# Point to training loop video
num_epochs = 5
outputs = []
for epoch in range(num_epochs):
    for (img, _) in data_loader:
        recon = model(img)
        loss = criterion(recon, img)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    print(f'Epoch:{epoch+1}, Loss:{loss.item():.4f}')
    outputs.append((epoch, img, recon))

# plotting replaced by saving what would have been plotted
for k in range(0, num_epochs, 2):
    imgs = outputs[k][1].detach().numpy()
    recon = outputs[k][2].detach().numpy()
    print(k, imgs.shape, recon.shape, float(((imgs - recon) ** 2).mean()))

torch.save([(e, i.detach(), r.detach()) for (e, i, r) in outputs], 'ae_outputs.pt')
torch.save(model.state_dict(), 'autoencoder.pth')
