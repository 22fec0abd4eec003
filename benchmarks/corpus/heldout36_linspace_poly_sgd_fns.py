# corpus: polynomial fit of sin(x) on `torch.linspace` points as a function-style script: `make_features(x)` with `x.unsqueeze(-1).pow(p)`, `nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))`, hand-written `train(model, xx, y, steps, lr)` stepping SGD on the full tensors with `model.zero_grad()`, `if __name__ == "__main__"`, the fitted polynomial printed
import math

import torch
import torch.nn as nn


def make_data(n=2000):
    x = torch.linspace(-math.pi, math.pi, n)
    y = torch.sin(x)
    return x, y


def make_features(x, degree=3):
    # (x, x^2, x^3) so that y = a + b x + c x^2 + d x^3 is a linear layer
    p = torch.arange(1, degree + 1)
    return x.unsqueeze(-1).pow(p)


def train(model, xx, y, steps=2000, lr=1e-6):
    loss_fn = nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for t in range(steps):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        losses.append(loss.item())
        if t % 100 == 99:
            print(t, loss.item())
        model.zero_grad()
        loss.backward()
        optimizer.step()
    return losses


def main():
    torch.manual_seed(42)
    x, y = make_data()
    xx = make_features(x)
    model = nn.Sequential(
        nn.Linear(3, 1),
        nn.Flatten(0, 1),
    )
    losses = train(model, xx, y, steps=600, lr=1e-6)
    linear_layer = model[0]
    print(f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x "
          f"+ {linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3")
    print("min loss", min(losses))
    torch.save({"model": model.state_dict(), "losses": losses}, "poly_fit.pt")


if __name__ == "__main__":
    main()
