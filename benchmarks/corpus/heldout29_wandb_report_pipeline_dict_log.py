# corpus: Weights & Biases "simple PyTorch integration" report: config dict, model_pipeline(hyperparameters) -> make(config) -> train / test, example_ct / batch_ct, train_batch(), train_log() printing the wandb.log dict when wandb is absent
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

try:
    import wandb
except ImportError:  # logging falls back to printing the dict
    wandb = None

# Ensure deterministic behavior
# (the report seeds with hash("...") % 2**32 - 1, which changes with PYTHONHASHSEED; fixed numbers here)
torch.backends.cudnn.deterministic = True
random.seed(4240)
np.random.seed(2023)
torch.manual_seed(1337)

# Device configuration
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

config = dict(
    epochs=3,
    classes=4,
    kernels=[4, 8],
    batch_size=32,
    learning_rate=0.005,
    dataset="MNIST-synthetic",
    architecture="CNN")


def log(metrics, step=None):
    if wandb is not None and wandb.run is not None:
        wandb.log(metrics, step=step)
    else:
        print({k: (round(v, 5) if isinstance(v, float) else v) for k, v in metrics.items()}, "step", step)


def get_data(slice=5, train=True):
    n = 480 if train else 120
    x = torch.randn(n, 1, 12, 12)
    y = torch.randint(0, config["classes"], (n,))
    x[:, 0, 6, :] += y.float().unsqueeze(1)
    full_dataset = TensorDataset(x, y)
    #  equiv to slicing with [::slice]
    sub_dataset = torch.utils.data.Subset(full_dataset, indices=range(0, len(full_dataset), slice))
    return sub_dataset


def make_loader(dataset, batch_size):
    loader = DataLoader(dataset=dataset, batch_size=batch_size, shuffle=True, pin_memory=True, num_workers=0)
    return loader


# Conventional and convolutional neural network
class ConvNet(nn.Module):
    def __init__(self, kernels, classes=10):
        super(ConvNet, self).__init__()

        self.layer1 = nn.Sequential(
            nn.Conv2d(1, kernels[0], kernel_size=3, stride=1, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.layer2 = nn.Sequential(
            nn.Conv2d(kernels[0], kernels[1], kernel_size=3, stride=1, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.fc = nn.Linear(3 * 3 * kernels[-1], classes)

    def forward(self, x):
        out = self.layer1(x)
        out = self.layer2(out)
        out = out.reshape(out.size(0), -1)
        out = self.fc(out)
        return out


def make(config):
    # Make the data
    train, test = get_data(slice=1, train=True), get_data(slice=2, train=False)
    train_loader = make_loader(train, batch_size=config.batch_size)
    test_loader = make_loader(test, batch_size=config.batch_size)

    # Make the model
    model = ConvNet(config.kernels, config.classes).to(device)

    # Make the loss and optimizer
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(
        model.parameters(), lr=config.learning_rate)

    return model, train_loader, test_loader, criterion, optimizer


def train_batch(images, labels, model, optimizer, criterion):
    images, labels = images.to(device), labels.to(device)

    # Forward pass ➡
    outputs = model(images)
    loss = criterion(outputs, labels)

    # Backward pass ⬅
    optimizer.zero_grad()
    loss.backward()

    # Step with optimizer
    optimizer.step()

    return loss


def train_log(loss, example_ct, epoch):
    # Where the magic happens
    log({"epoch": epoch, "loss": float(loss)}, step=example_ct)
    print(f"Loss after {str(example_ct).zfill(5)} examples: {loss:.3f}")


def train(model, loader, criterion, optimizer, config):
    # Tell wandb to watch what the model gets up to: gradients, weights, and more!
    if wandb is not None and wandb.run is not None:
        wandb.watch(model, criterion, log="all", log_freq=10)

    # Run training and track with wandb
    total_batches = len(loader) * config.epochs
    example_ct = 0  # number of examples seen
    batch_ct = 0
    for epoch in range(config.epochs):
        for _, (images, labels) in enumerate(loader):

            loss = train_batch(images, labels, model, optimizer, criterion)
            example_ct += len(images)
            batch_ct += 1

            # Report metrics every 5th batch
            if ((batch_ct + 1) % 5) == 0:
                train_log(loss, example_ct, epoch)
    print("total batches", total_batches)


def test(model, test_loader):
    model.eval()

    # Run the model on some test examples
    with torch.no_grad():
        correct, total = 0, 0
        for images, labels in test_loader:
            images, labels = images.to(device), labels.to(device)
            outputs = model(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()

        print(f"Accuracy of the model on the {total} " +
              f"test images: {correct / total:%}")

        log({"test_accuracy": correct / total})

    # Save the model (the report exports ONNX; a state dict here)
    torch.save(model.state_dict(), "model.pt")


class Config(dict):
    __getattr__ = dict.__getitem__


def model_pipeline(hyperparameters):

    # tell wandb to get started (wandb.init(project=..., config=...) in the report)
    config = Config(hyperparameters)
    print("config:", dict(config))

    # make the model, data, and optimization problem
    model, train_loader, test_loader, criterion, optimizer = make(config)
    print(model)

    # and use them to train the model
    train(model, train_loader, criterion, optimizer, config)

    # and test its final performance
    test(model, test_loader)

    return model


model = model_pipeline(config)
