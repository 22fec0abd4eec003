# corpus: "Learning PyTorch with Examples" nn/optim full-batch tutorial: x = linspace, xx = x.unsqueeze(-1).pow(p), nn.Sequential(Linear, Flatten(0, 1)), MSELoss(reduction='sum'), `for t in range(500): y_pred = model(xx)` on the whole tensor, `if t % 100 == 99: print(t, loss.item())`, RMSprop, then a full-batch 2-class classifier with its own model/optimizer names and accuracy printed every 100
# -*- coding: utf-8 -*-
import torch
import math

torch.manual_seed(0)

# Create Tensors to hold input and outputs.
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

# Prepare the input tensor (x, x^2, x^3).
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)

# Use the nn package to define our model and loss function.
model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
loss_fn = torch.nn.MSELoss(reduction='sum')

# Use the optim package to define an Optimizer that will update the weights of
# the model for us. Here we will use RMSprop; the optim package contains many other
# optimization algorithms. The first argument to the RMSprop constructor tells the
# optimizer which Tensors it should update.
learning_rate = 1e-3
optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate)
for t in range(500):
    # Forward pass: compute predicted y by passing x to the model.
    y_pred = model(xx)

    # Compute and print loss.
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, loss.item())

    # Before the backward pass, use the optimizer object to zero all of the
    # gradients for the variables it will update (which are the learnable
    # weights of the model).
    optimizer.zero_grad()

    # Backward pass: compute gradient of the loss with respect to model
    # parameters
    loss.backward()

    # Calling the step function on an Optimizer makes an update to its
    # parameters
    optimizer.step()


linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + {linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3')

# ---------------------------------------------------------------------------
# Part 2: same thing for classification (two moons-ish blobs), still full batch
# ---------------------------------------------------------------------------
N = 400
X = torch.randn(N, 2)
Y = ((X[:, 0] * X[:, 1]) > 0).long()   # XOR quadrants

clf = torch.nn.Sequential(
    torch.nn.Linear(2, 16),
    torch.nn.ReLU(),
    torch.nn.Linear(16, 2),
)
criterion = torch.nn.CrossEntropyLoss()
opt = torch.optim.SGD(clf.parameters(), lr=0.5)

for t in range(500):
    scores = clf(X)
    loss = criterion(scores, Y)

    opt.zero_grad()
    loss.backward()
    opt.step()

    if t % 100 == 0:
        acc = (scores.argmax(dim=1) == Y).float().mean()
        print("iter %d  loss %.4f  acc %.3f" % (t, loss.item(), acc.item()))

with torch.no_grad():
    final = (clf(X).argmax(1) == Y).float().mean().item()
print("final train accuracy:", round(final, 4))
torch.save(clf.state_dict(), "clf.pt")
