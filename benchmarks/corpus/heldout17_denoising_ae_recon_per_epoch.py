# corpus: blog denoising autoencoder tutorial: noise drawn with randn_like in the batch loop, clamp, per-epoch train loss list, test() on a fixed noisy batch saving noisy/reconstructed tensors with torch.save each epoch, save_decoded_image helper, final model pickled
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

# constants
NUM_EPOCHS = 4
LEARNING_RATE = 1e-3
BATCH_SIZE = 32
NOISE_FACTOR = 0.5

torch.manual_seed(7)

# "FashionMNIST" stand-in: blurry blobs in [0, 1], 1x28x28
base = torch.rand(192, 1, 7, 7)
trainset = TensorDataset(F.interpolate(base[:160], size=28, mode='bilinear', align_corners=False),
                         torch.zeros(160, dtype=torch.long))
testset = TensorDataset(F.interpolate(base[160:], size=28, mode='bilinear', align_corners=False),
                        torch.zeros(32, dtype=torch.long))

trainloader = DataLoader(trainset, batch_size=BATCH_SIZE, shuffle=True)
testloader = DataLoader(testset, batch_size=BATCH_SIZE, shuffle=False)


class Autoencoder(nn.Module):
    def __init__(self):
        super(Autoencoder, self).__init__()
        # encoder layers
        self.enc1 = nn.Conv2d(1, 16, kernel_size=3, padding=1)
        self.enc2 = nn.Conv2d(16, 16, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        # decoder layers
        self.dec1 = nn.ConvTranspose2d(16, 16, kernel_size=2, stride=2)
        self.dec2 = nn.ConvTranspose2d(16, 16, kernel_size=2, stride=2)
        self.out = nn.Conv2d(16, 1, kernel_size=3, padding=1)

    def forward(self, x):
        # encode
        x = F.relu(self.enc1(x))
        x = self.pool(x)
        x = F.relu(self.enc2(x))
        x = self.pool(x)  # the latent space representation
        # decode
        x = F.relu(self.dec1(x))
        x = F.relu(self.dec2(x))
        x = torch.sigmoid(self.out(x))
        return x


net = Autoencoder()
print(net)

criterion = nn.MSELoss()
optimizer = optim.Adam(net.parameters(), lr=LEARNING_RATE)


def get_device():
    if torch.cuda.is_available():
        device = 'cuda:0'
    else:
        device = 'cpu'
    return device


def make_dir():
    image_dir = 'Saved_Images'
    if not os.path.exists(image_dir):
        os.makedirs(image_dir)


def save_decoded_image(img, name):
    img = img.view(img.size(0), 1, 28, 28)
    torch.save(img.cpu(), name)


def train(net, trainloader, NUM_EPOCHS):
    train_loss = []
    for epoch in range(NUM_EPOCHS):
        running_loss = 0.0
        for data in trainloader:
            img, _ = data  # we do not need the image labels
            # add noise to the image data
            img_noisy = img + NOISE_FACTOR * torch.randn_like(img)
            # clip to make the values fall between 0 and 1
            img_noisy = torch.clamp(img_noisy, 0., 1.)
            img_noisy = img_noisy.to(device)
            img = img.to(device)
            optimizer.zero_grad()
            outputs = net(img_noisy)
            loss = criterion(outputs, img)
            # backpropagation
            loss.backward()
            # update the parameters
            optimizer.step()
            running_loss += loss.item()

        loss = running_loss / len(trainloader)
        train_loss.append(loss)
        print('Epoch {} of {}, Train Loss: {:.3f}'.format(
            epoch + 1, NUM_EPOCHS, loss))
        test_image_reconstruction(net, testloader, epoch)
    return train_loss


def test_image_reconstruction(net, testloader, epoch):
    net.eval()
    for batch in testloader:
        img, _ = batch
        g = torch.Generator().manual_seed(0)
        img_noisy = img + NOISE_FACTOR * torch.randn(img.shape, generator=g)
        img_noisy = torch.clamp(img_noisy, 0., 1.)
        img_noisy = img_noisy.to(device)
        with torch.no_grad():
            outputs = net(img_noisy)
        save_decoded_image(img_noisy, 'Saved_Images/noisy_test_input_{}.pt'.format(epoch))
        save_decoded_image(outputs, 'Saved_Images/denoised_test_reconstruction_{}.pt'.format(epoch))
        break
    net.train()


device = get_device()
print(device)
net.to(device)

make_dir()

train_loss = train(net, trainloader, NUM_EPOCHS)

torch.save(torch.tensor(train_loss), 'dae_train_loss.pt')
torch.save(net, 'denoising_autoencoder.pth')
