# corpus: "What is torch.nn really?" tutorial final form: get_data/get_model/loss_batch/fit(epochs, model, loss_func, opt, train_dl, valid_dl), WrappedDataLoader with a preprocess function, numpy-weighted validation loss
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

# "MNIST" as flat 784-vectors, like the pickled arrays the tutorial loads
n_train, n_valid = 512, 128
x_train = torch.randn(n_train, 784)
y_train = torch.randint(0, 10, (n_train,))
x_valid = torch.randn(n_valid, 784)
y_valid = torch.randint(0, 10, (n_valid,))

train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)

bs = 64  # batch size
lr = 0.1  # learning rate
epochs = 3  # how many epochs to train for
loss_func = F.cross_entropy

dev = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


def get_data(train_ds, valid_ds, bs):
    return (
        DataLoader(train_ds, batch_size=bs, shuffle=True),
        DataLoader(valid_ds, batch_size=bs * 2),
    )


def preprocess(x, y):
    return x.view(-1, 1, 28, 28).to(dev), y.to(dev)


class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield (self.func(*b))


def get_model():
    model = nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
    )
    model.to(dev)
    return model, optim.SGD(model.parameters(), lr=lr, momentum=0.9)


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)

    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()

    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)

        model.eval()
        with torch.no_grad():
            losses, nums = zip(
                *[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl]
            )
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)

        print(epoch, val_loss)


train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
train_dl = WrappedDataLoader(train_dl, preprocess)
valid_dl = WrappedDataLoader(valid_dl, preprocess)
model, opt = get_model()
fit(epochs, model, loss_func, opt, train_dl, valid_dl)

torch.save(model.state_dict(), "nn_really_model.pt")
