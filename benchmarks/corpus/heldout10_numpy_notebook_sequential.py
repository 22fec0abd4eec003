# corpus: beginner notebook: numpy arrays made by hand and split 80/20, torch.from_numpy(...).float(), nn.Sequential, for epoch in range(1000) full batch, if epoch % 100 == 0: print, then with torch.no_grad(): predicted = model(X_test).detach().numpy() and accuracy with numpy
import numpy as np
import torch
import torch.nn as nn

np.random.seed(0)
torch.manual_seed(0)

# two noisy blobs
n = 400
X0 = np.random.randn(n // 2, 2) + np.array([2.0, 2.0])
X1 = np.random.randn(n // 2, 2) + np.array([-2.0, -1.0])
X = np.vstack([X0, X1])
y = np.hstack([np.zeros(n // 2), np.ones(n // 2)]).reshape(-1, 1)

idx = np.random.permutation(n)
X, y = X[idx], y[idx]
split = int(0.8 * n)
X_train, X_test = X[:split], X[split:]
y_train, y_test = y[:split], y[split:]

X_train = torch.from_numpy(X_train).float()
y_train = torch.from_numpy(y_train).float()
X_test = torch.from_numpy(X_test).float()
y_test = torch.from_numpy(y_test).float()

model = nn.Sequential(
    nn.Linear(2, 16),
    nn.ReLU(),
    nn.Linear(16, 1),
    nn.Sigmoid(),
)

criterion = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

losses = []
for epoch in range(1000):
    y_pred = model(X_train)
    loss = criterion(y_pred, y_train)
    losses.append(loss.item())

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

    if epoch % 100 == 0:
        print(f'epoch: {epoch}, loss = {loss.item():.4f}')

with torch.no_grad():
    predicted = model(X_test).detach().numpy()

predicted_cls = (predicted > 0.5).astype(np.float32)
acc = (predicted_cls == y_test.numpy()).mean()
print(f'accuracy: {acc:.4f}')
print('final loss', losses[-1])
np.save('predictions.npy', predicted)
