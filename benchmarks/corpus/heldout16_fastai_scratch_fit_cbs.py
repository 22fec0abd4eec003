# corpus: fast.ai "from the foundations" notebook style: get_data(), DataBunch-like class, Learner holding model/opt/loss_func/data, fit(epochs, learn, cbs) with callbacks as plain functions in a list called at begin_fit / after_batch / after_epoch, accuracy helper, AvgStats
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def get_data(n_train=800, n_valid=200, nf=32, c=4):
    x = torch.randn(n_train + n_valid, nf)
    w = torch.randn(nf, c)
    y = (x @ w + 0.5 * torch.randn(n_train + n_valid, c)).argmax(1)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


x_train, y_train, x_valid, y_valid = get_data()
n, m = x_train.shape
c = int(y_train.max()) + 1
nh = 50
bs = 64


class DataBunch:
    def __init__(self, train_dl, valid_dl, c=None):
        self.train_dl, self.valid_dl, self.c = train_dl, valid_dl, c

    @property
    def train_ds(self):
        return self.train_dl.dataset

    @property
    def valid_ds(self):
        return self.valid_dl.dataset


def get_dls(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True),
            DataLoader(valid_ds, batch_size=bs * 2))


data = DataBunch(*get_dls(TensorDataset(x_train, y_train), TensorDataset(x_valid, y_valid), bs), c)


def get_model(data, lr=0.5, nh=50):
    m = data.train_ds.tensors[0].shape[1]
    model = nn.Sequential(nn.Linear(m, nh), nn.ReLU(), nn.Linear(nh, data.c))
    return model, optim.SGD(model.parameters(), lr=lr)


class Learner:
    def __init__(self, model, opt, loss_func, data):
        self.model, self.opt, self.loss_func, self.data = model, opt, loss_func, data


def accuracy(out, yb):
    return (torch.argmax(out, dim=1) == yb).float().mean()


learn = Learner(*get_model(data), F.cross_entropy, data)

# ---- callbacks are just functions: cb(event, learn, **state) ----
stats = {"train_loss": [], "valid_loss": [], "valid_acc": [], "lrs": []}


def recorder_cb(event, learn, **kw):
    if event == "after_batch" and kw["train"]:
        stats["lrs"].append(learn.opt.param_groups[0]["lr"])
        stats["train_loss"].append(kw["loss"].item())


def print_cb(event, learn, **kw):
    if event == "after_epoch":
        print(f"epoch {kw['epoch']}: valid loss {kw['tot_loss']:.4f} acc {kw['tot_acc']:.4f}")
        stats["valid_loss"].append(kw["tot_loss"])
        stats["valid_acc"].append(kw["tot_acc"])


def lr_decay_cb(event, learn, **kw):
    if event == "after_epoch":
        for g in learn.opt.param_groups:
            g["lr"] *= 0.7


def fit(epochs, learn, cbs=()):
    for cb in cbs:
        cb("begin_fit", learn)
    for epoch in range(epochs):
        learn.model.train()
        for xb, yb in learn.data.train_dl:
            loss = learn.loss_func(learn.model(xb), yb)
            loss.backward()
            learn.opt.step()
            learn.opt.zero_grad()
            for cb in cbs:
                cb("after_batch", learn, loss=loss, train=True)

        learn.model.eval()
        with torch.no_grad():
            tot_loss, tot_acc = 0.0, 0.0
            for xb, yb in learn.data.valid_dl:
                pred = learn.model(xb)
                tot_loss += learn.loss_func(pred, yb).item()
                tot_acc += accuracy(pred, yb).item()
        nv = len(learn.data.valid_dl)
        for cb in cbs:
            cb("after_epoch", learn, epoch=epoch, tot_loss=tot_loss / nv, tot_acc=tot_acc / nv)
    for cb in cbs:
        cb("after_fit", learn)
    return tot_loss / nv, tot_acc / nv


loss, acc = fit(4, learn, cbs=[recorder_cb, print_cb, lr_decay_cb])
print("final:", loss, acc)
print("lrs seen:", sorted(set(round(l, 4) for l in stats["lrs"])))
print("first/last train loss:", stats["train_loss"][0], stats["train_loss"][-1])
