# corpus: CS231n-style assignment ported to PyTorch: starter-code Solver class (self.loss_history, train_acc_history, check_accuracy(X, y, num_samples=...), best_params), "overfit small data" sanity check solver, then the real solver
import copy

import numpy as np
import torch
import torch.nn as nn


class Solver(object):
    """Starter code: encapsulates all the logic necessary for training a model."""

    def __init__(self, model, data, **kwargs):
        self.model = model
        self.X_train = data["X_train"]
        self.y_train = data["y_train"]
        self.X_val = data["X_val"]
        self.y_val = data["y_val"]

        self.learning_rate = kwargs.pop("learning_rate", 1e-2)
        self.lr_decay = kwargs.pop("lr_decay", 1.0)
        self.batch_size = kwargs.pop("batch_size", 100)
        self.num_epochs = kwargs.pop("num_epochs", 10)
        self.num_train_samples = kwargs.pop("num_train_samples", 1000)
        self.num_val_samples = kwargs.pop("num_val_samples", None)
        self.print_every = kwargs.pop("print_every", 10)
        self.verbose = kwargs.pop("verbose", True)
        if len(kwargs) > 0:
            extra = ", ".join('"%s"' % k for k in list(kwargs.keys()))
            raise ValueError("Unrecognized arguments %s" % extra)

        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=self.learning_rate, momentum=0.9)
        self.loss_fn = nn.CrossEntropyLoss()
        self._reset()

    def _reset(self):
        self.epoch = 0
        self.best_val_acc = 0
        self.best_params = {}
        self.loss_history = []
        self.train_acc_history = []
        self.val_acc_history = []

    def _step(self):
        num_train = self.X_train.shape[0]
        batch_mask = torch.randint(0, num_train, (self.batch_size,))
        X_batch = self.X_train[batch_mask]
        y_batch = self.y_train[batch_mask]

        self.model.train()
        scores = self.model(X_batch)
        loss = self.loss_fn(scores, y_batch)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.loss_history.append(loss.item())

    def check_accuracy(self, X, y, num_samples=None, batch_size=100):
        N = X.shape[0]
        if num_samples is not None and N > num_samples:
            mask = torch.randint(0, N, (num_samples,))
            N = num_samples
            X = X[mask]
            y = y[mask]
        num_batches = N // batch_size
        if N % batch_size != 0:
            num_batches += 1
        y_pred = []
        self.model.eval()
        with torch.no_grad():
            for i in range(num_batches):
                start = i * batch_size
                end = (i + 1) * batch_size
                scores = self.model(X[start:end])
                y_pred.append(torch.argmax(scores, dim=1))
        y_pred = torch.cat(y_pred)
        acc = (y_pred == y).float().mean().item()
        return acc

    def train(self):
        num_train = self.X_train.shape[0]
        iterations_per_epoch = max(num_train // self.batch_size, 1)
        num_iterations = self.num_epochs * iterations_per_epoch

        for t in range(num_iterations):
            self._step()

            if self.verbose and t % self.print_every == 0:
                print("(Iteration %d / %d) loss: %f" % (t + 1, num_iterations, self.loss_history[-1]))

            epoch_end = (t + 1) % iterations_per_epoch == 0
            if epoch_end:
                self.epoch += 1
                for group in self.optimizer.param_groups:
                    group["lr"] *= self.lr_decay

            first_it = t == 0
            last_it = t == num_iterations - 1
            if first_it or last_it or epoch_end:
                train_acc = self.check_accuracy(self.X_train, self.y_train, num_samples=self.num_train_samples)
                val_acc = self.check_accuracy(self.X_val, self.y_val, num_samples=self.num_val_samples)
                self.train_acc_history.append(train_acc)
                self.val_acc_history.append(val_acc)
                if self.verbose:
                    print("(Epoch %d / %d) train acc: %f; val_acc: %f" % (self.epoch, self.num_epochs, train_acc, val_acc))
                if val_acc > self.best_val_acc:
                    self.best_val_acc = val_acc
                    self.best_params = copy.deepcopy(self.model.state_dict())

        self.model.load_state_dict(self.best_params)


def get_data(num_training=600, num_validation=200, dim=48, num_classes=5):
    X = torch.randn(num_training + num_validation, dim)
    centers = torch.randn(num_classes, dim) * 1.5
    y = torch.cdist(X, centers).argmin(dim=1)
    return {
        "X_train": X[:num_training], "y_train": y[:num_training],
        "X_val": X[num_training:], "y_val": y[num_training:],
    }


def TwoLayerNet(input_dim=48, hidden_dim=64, num_classes=5, dropout=0.1):
    return nn.Sequential(nn.Linear(input_dim, hidden_dim), nn.ReLU(), nn.Dropout(dropout),
                         nn.Linear(hidden_dim, num_classes))


torch.manual_seed(231)
np.random.seed(231)
data = get_data()
for k, v in data.items():
    print("%s: " % k, tuple(v.shape))

# Sanity check: overfit 50 training examples
num_train = 50
small_data = {
    "X_train": data["X_train"][:num_train], "y_train": data["y_train"][:num_train],
    "X_val": data["X_val"], "y_val": data["y_val"],
}
model = TwoLayerNet(dropout=0.0)
solver = Solver(model, small_data, num_epochs=10, batch_size=25, learning_rate=1e-1, print_every=5)
solver.train()
print("small data final train acc:", solver.train_acc_history[-1])

# Now train the real model
model = TwoLayerNet()
solver = Solver(model, data, num_epochs=3, batch_size=50, learning_rate=5e-2, lr_decay=0.9,
                num_train_samples=200, print_every=10)
solver.train()
print("best val acc:", solver.best_val_acc)
print("loss history:", [round(l, 3) for l in solver.loss_history[::6]])
torch.save(model.state_dict(), "solver_best_model.pt")
