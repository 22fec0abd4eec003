# corpus: full-batch training of a classifier, one step per "epoch" on whole tensors, test accuracy every 20 epochs
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)

# two interleaved spirals-ish blobs
n_per_class = 100
centers = torch.tensor([[1.5, 0.0], [-1.5, 0.0], [0.0, 1.5]])
X = torch.cat([centers[c] + 0.6 * torch.randn(n_per_class, 2) for c in range(3)])
Y = torch.arange(3).repeat_interleave(n_per_class)
perm = torch.randperm(len(X))
X, Y = X[perm], Y[perm]
X_train, Y_train = X[:240], Y[:240]
X_test, Y_test = X[240:], Y[240:]


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(2, 16)
        self.out = nn.Linear(16, 3)

    def forward(self, x):
        return self.out(F.relu(self.hidden(x)))


net = Classifier()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
loss_func = nn.CrossEntropyLoss()

epochs = 200
for epoch in range(epochs):
    out = net(X_train)
    loss = loss_func(out, Y_train)

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

    if epoch % 20 == 0:
        with torch.no_grad():
            prediction = net(X_test).argmax(dim=1)
            accuracy = (prediction == Y_test).float().mean().item()
        print(f"epoch {epoch:3d} | loss {loss.item():.4f} | test acc {accuracy:.3f}")
