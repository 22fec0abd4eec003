# corpus: FashionMNIST quickstart train_loop/test_loop copied into a project: argparse, logging, cuda/mps/cpu device, SummaryWriter, StepLR, ckpt every N epochs + best copy, per-class accuracy
import argparse
import logging
import os
import shutil

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.tensorboard import SummaryWriter

logging.basicConfig(level=logging.INFO, format="%(levelname)s:%(name)s:%(message)s")
logger = logging.getLogger("quickstart")

labels_map = {
    0: "T-Shirt", 1: "Trouser", 2: "Pullover", 3: "Dress", 4: "Coat",
    5: "Sandal", 6: "Shirt", 7: "Sneaker", 8: "Bag", 9: "Ankle Boot",
}


def get_args():
    parser = argparse.ArgumentParser(description="FashionMNIST quickstart (project version)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--step-size", type=int, default=2)
    parser.add_argument("--save-every", type=int, default=2)
    parser.add_argument("--ckpt-dir", type=str, default="checkpoints")
    parser.add_argument("--log-dir", type=str, default="runs/quickstart")
    return parser.parse_args()


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(14 * 14, 64),
            nn.ReLU(),
            nn.Linear(64, 64),
            nn.ReLU(),
            nn.Linear(64, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    X = torch.rand(n, 1, 14, 14, generator=g)
    y = torch.randint(0, 10, (n,), generator=g)
    # make the classes a little separable
    X[torch.arange(n), 0, y, y] += 2.0
    return TensorDataset(X, y)


def train_loop(dataloader, model, loss_fn, optimizer, device, writer, epoch):
    size = len(dataloader.dataset)
    # Set the model to training mode - important for batch normalization and dropout layers
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)
        # Compute prediction and loss
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        writer.add_scalar("Loss/train", loss.item(), epoch * len(dataloader) + batch)
        if batch % 4 == 0:
            loss, current = loss.item(), batch * args.batch_size + len(X)
            logger.info(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn, device):
    # Set the model to evaluation mode
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0

    # Evaluating the model with torch.no_grad() ensures that no gradients are computed during test mode
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()

    test_loss /= num_batches
    correct /= size
    logger.info(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    return test_loss, correct


def save_checkpoint(state, is_best, ckpt_dir, filename="checkpoint.pth"):
    path = os.path.join(ckpt_dir, filename)
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, os.path.join(ckpt_dir, "model_best.pth"))


if __name__ == "__main__":
    args = get_args()
    torch.manual_seed(0)

    device = (
        "cuda"
        if torch.cuda.is_available()
        else "mps"
        if torch.backends.mps.is_available()
        else "cpu"
    )
    logger.info(f"Using {device} device")

    training_data = make_data(512, 1)
    test_data = make_data(128, 2)
    train_dataloader = DataLoader(training_data, batch_size=args.batch_size, shuffle=True)
    test_dataloader = DataLoader(test_data, batch_size=args.batch_size)

    model = NeuralNetwork().to(device)
    logger.info(model)

    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.learning_rate * 100)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.step_size, gamma=0.5)

    os.makedirs(args.ckpt_dir, exist_ok=True)
    writer = SummaryWriter(args.log_dir)
    best_acc = 0.0

    for t in range(args.epochs):
        logger.info(f"Epoch {t+1}\n-------------------------------")
        train_loop(train_dataloader, model, loss_fn, optimizer, device, writer, t)
        test_loss, acc = test_loop(test_dataloader, model, loss_fn, device)
        scheduler.step()
        writer.add_scalar("Loss/test", test_loss, t)
        writer.add_scalar("Accuracy/test", acc, t)
        writer.add_scalar("lr", scheduler.get_last_lr()[0], t)
        is_best = acc > best_acc
        best_acc = max(acc, best_acc)
        if (t + 1) % args.save_every == 0 or is_best:
            save_checkpoint({
                "epoch": t + 1,
                "state_dict": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "best_acc": best_acc,
            }, is_best, args.ckpt_dir)
    writer.close()
    logger.info("Done!")

    # per-class accuracy on the test set
    correct_pred = {classname: 0 for classname in labels_map.values()}
    total_pred = {classname: 0 for classname in labels_map.values()}
    model.eval()
    with torch.no_grad():
        for X, y in test_dataloader:
            X, y = X.to(device), y.to(device)
            predictions = model(X).argmax(1)
            for label, prediction in zip(y, predictions):
                if label == prediction:
                    correct_pred[labels_map[label.item()]] += 1
                total_pred[labels_map[label.item()]] += 1
    for classname, correct_count in correct_pred.items():
        accuracy = 100 * float(correct_count) / max(total_pred[classname], 1)
        print(f"Accuracy for class: {classname:10s} is {accuracy:.1f} %")

    torch.save(model.state_dict(), "model.pth")
    print("Saved PyTorch Model State to model.pth")
