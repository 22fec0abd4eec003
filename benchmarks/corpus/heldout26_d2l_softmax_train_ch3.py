# corpus: d2l.ai ch3 softmax regression: load_array / synthetic "fashion-mnist", Accumulator, accuracy, evaluate_accuracy, train_epoch_ch3(net, train_iter, loss, updater) with isinstance(updater, torch.optim.Optimizer), train_ch3 with a text Animator, from scratch (W, b, sgd updater) then concise (nn.Sequential, init_weights, reduction='none')
import torch
from torch import nn
from torch.utils import data


class Accumulator:  #@save
    """For accumulating sums over `n` variables."""
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def reset(self):
        self.data = [0.0] * len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]


class Animator:  #@save
    """For plotting data in animation. (No matplotlib here: prints the points instead.)"""
    def __init__(self, xlabel=None, ylabel=None, legend=None, xlim=None,
                 ylim=None, xscale='linear', yscale='linear',
                 fmts=('-', 'm--', 'g-.', 'r:'), nrows=1, ncols=1,
                 figsize=(3.5, 2.5)):
        self.legend = legend or []
        self.X, self.Y = None, None

    def add(self, x, y):
        # Add multiple data points into the figure
        if not hasattr(y, "__len__"):
            y = [y]
        n = len(y)
        if not hasattr(x, "__len__"):
            x = [x] * n
        if not self.X:
            self.X = [[] for _ in range(n)]
        if not self.Y:
            self.Y = [[] for _ in range(n)]
        for i, (a, b) in enumerate(zip(x, y)):
            if a is not None and b is not None:
                self.X[i].append(a)
                self.Y[i].append(b)
        print(f'epoch {x[0]:.2f}: ' + ', '.join(
            f'{name} {v:.4f}' for name, v in zip(self.legend, y) if v is not None))


def load_array(data_arrays, batch_size, is_train=True):  #@save
    """Construct a PyTorch data iterator."""
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


def load_data_fashion_mnist(batch_size, resize=None):  #@save
    """Synthetic stand-in for Fashion-MNIST (no download): 10 classes of 1x28x28 images,
    each class a noisy copy of its own template."""
    templates = torch.rand(10, 1, 28, 28)
    def make(n):
        y = torch.randint(0, 10, (n,))
        X = (templates[y] + 1.0 * torch.randn(n, 1, 28, 28)).clamp(0, 1)
        return X, y
    train_X, train_y = make(600)
    test_X, test_y = make(200)
    return (load_array((train_X, train_y), batch_size),
            load_array((test_X, test_y), batch_size, is_train=False))


def accuracy(y_hat, y):  #@save
    """Compute the number of correct predictions."""
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


def evaluate_accuracy(net, data_iter):  #@save
    """Compute the accuracy for a model on a dataset."""
    if isinstance(net, torch.nn.Module):
        net.eval()  # Set the model to evaluation mode
    metric = Accumulator(2)  # No. of correct predictions, no. of predictions

    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


def train_epoch_ch3(net, train_iter, loss, updater):  #@save
    """The training loop defined in Chapter 3."""
    # Set the model to training mode
    if isinstance(net, torch.nn.Module):
        net.train()
    # Sum of training loss, sum of training accuracy, no. of examples
    metric = Accumulator(3)
    for X, y in train_iter:
        # Compute gradients and update parameters
        y_hat = net(X)
        l = loss(y_hat, y)
        if isinstance(updater, torch.optim.Optimizer):
            # Using PyTorch in-built optimizer & loss criterion
            updater.zero_grad()
            l.mean().backward()
            updater.step()
        else:
            # Using custom built optimizer & loss criterion
            l.sum().backward()
            updater(X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    # Return training loss and training accuracy
    return metric[0] / metric[2], metric[1] / metric[2]


def train_ch3(net, train_iter, test_iter, loss, num_epochs, updater):  #@save
    """Train a model (defined in Chapter 3)."""
    animator = Animator(xlabel='epoch', xlim=[1, num_epochs], ylim=[0.3, 0.9],
                        legend=['train loss', 'train acc', 'test acc'])
    for epoch in range(num_epochs):
        train_metrics = train_epoch_ch3(net, train_iter, loss, updater)
        test_acc = evaluate_accuracy(net, test_iter)
        animator.add(epoch + 1, train_metrics + (test_acc,))
    train_loss, train_acc = train_metrics
    assert train_loss < 2.5, train_loss
    assert train_acc <= 1 and train_acc > 0.3, train_acc
    assert test_acc <= 1 and test_acc > 0.3, test_acc


def sgd(params, lr, batch_size):  #@save
    """Minibatch stochastic gradient descent."""
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


torch.manual_seed(0)
batch_size = 64
train_iter, test_iter = load_data_fashion_mnist(batch_size)

# ---------------------------------------------------------------------------
# 3.6 Implementation of Softmax Regression from Scratch
num_inputs = 784
num_outputs = 10

W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition  # The broadcasting mechanism is applied here


def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


def cross_entropy(y_hat, y):
    return - torch.log(y_hat[range(len(y_hat)), y])


print(evaluate_accuracy(net, test_iter))

lr = 0.1


def updater(batch_size):
    return sgd([W, b], lr, batch_size)


num_epochs = 3
train_ch3(net, train_iter, test_iter, cross_entropy, num_epochs, updater)


def predict_ch3(net, test_iter, n=6):  #@save
    """Predict labels (defined in Chapter 3)."""
    for X, y in test_iter:
        break
    trues = y.tolist()
    preds = net(X).argmax(axis=1).tolist()
    titles = [f'{true}\n{pred}' for true, pred in zip(trues, preds)]
    print([t.replace('\n', '->') for t in titles[0:n]])


predict_ch3(net, test_iter)

# ---------------------------------------------------------------------------
# 3.7 Concise Implementation of Softmax Regression
# PyTorch does not implicitly reshape the inputs. Thus we define the flatten
# layer to reshape the inputs before the linear layer in our network
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)

loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.1)

num_epochs = 3
train_ch3(net, train_iter, test_iter, loss, num_epochs, trainer)
torch.save(net.state_dict(), 'softmax_concise.params')
