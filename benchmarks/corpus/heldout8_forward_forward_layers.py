# corpus: pytorch/examples forward-forward: each Layer(nn.Linear) owns its optimizer and trains itself on a local goodness loss, Net.train(x_pos, x_neg) goes layer by layer (h_pos, h_neg = layer.train(h_pos, h_neg)), full-batch, label overlaid on the input
import argparse
import time

import torch
import torch.nn as nn
from torch.optim import Adam


def overlay_y_on_x(x, y, num_classes=10):
    """Replace the first num_classes pixels of x with a one-hot of y."""
    x_ = x.clone()
    x_[:, :num_classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims, args):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers += [Layer(dims[d], dims[d + 1], args)]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness += [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer: ", i)
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, args, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=args.lr)
        self.threshold = args.threshold
        self.num_epochs = args.epochs
        self.log_interval = args.log_interval

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            # The following loss pushes pos (neg) samples to
            # values larger (smaller) than the self.threshold.
            loss = torch.log(1 + torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))).mean()
            self.opt.zero_grad()
            # this backward just compute the derivative and hence
            # is not considered backpropagation.
            loss.backward()
            self.opt.step()
            if i % self.log_interval == 0:
                print("Loss: ", loss.item())
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(10, 64, generator=g) * 2
    y = torch.randint(0, 10, (n,), generator=g)
    x = centers[y] + torch.randn(n, 64, generator=g)
    return x, y


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30, help="number of epochs to train (default: 30)")
    parser.add_argument("--lr", type=float, default=0.03, help="learning rate (default: 0.03)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default: 1)")
    parser.add_argument("--threshold", type=float, default=2, help="threshold for training")
    parser.add_argument("--log-interval", type=int, default=10, help="how many batches to wait before logging")
    parser.add_argument("--train-size", type=int, default=300, help="size of training set")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    device = torch.device("cpu")

    x, y = make_data(args.train_size, seed=args.seed)
    x_te, y_te = make_data(200, seed=args.seed + 1)
    x, y, x_te, y_te = x.to(device), y.to(device), x_te.to(device), y_te.to(device)

    net = Net([64, 100, 100], args)
    x_pos = overlay_y_on_x(x, y)
    rnd = torch.randperm(x.size(0))
    x_neg = overlay_y_on_x(x, y[rnd])

    start = time.time()
    net.train(x_pos, x_neg)
    print("train error:", 1.0 - net.predict(x).eq(y).float().mean().item())
    print("test error:", 1.0 - net.predict(x_te).eq(y_te).float().mean().item())
    print("took %.2fs" % (time.time() - start))
