# corpus: "logistic regression from scratch" blog tutorial: hand-made numpy blobs, feature scaling by hand, class LogisticRegression(nn.Module) with torch.sigmoid, full-batch loop with optimizer.zero_grad() AFTER optimizer.step(), print every 10 epochs, accuracy under no_grad with .round(), predictions saved via .detach().numpy()
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(4)
np.random.seed(4)

# 0) prepare data (a breast-cancer-like binary problem)
n_samples, n_features = 300, 8
X_pos = np.random.randn(n_samples // 2, n_features) + 1.0
X_neg = np.random.randn(n_samples // 2, n_features) - 1.0
X = np.vstack([X_pos, X_neg])
y = np.concatenate([np.ones(n_samples // 2), np.zeros(n_samples // 2)])

perm = np.random.permutation(n_samples)
X, y = X[perm], y[perm]
n_train = int(0.8 * n_samples)
X_train, X_test = X[:n_train], X[n_train:]
y_train, y_test = y[:n_train], y[n_train:]

# scale (StandardScaler by hand)
mean = X_train.mean(axis=0)
std = X_train.std(axis=0)
X_train = (X_train - mean) / std
X_test = (X_test - mean) / std

X_train = torch.from_numpy(X_train.astype(np.float32))
X_test = torch.from_numpy(X_test.astype(np.float32))
y_train = torch.from_numpy(y_train.astype(np.float32))
y_test = torch.from_numpy(y_test.astype(np.float32))

y_train = y_train.view(y_train.shape[0], 1)
y_test = y_test.view(y_test.shape[0], 1)


# 1) model
# f = wx + b, sigmoid at the end
class LogisticRegression(nn.Module):

    def __init__(self, n_input_features):
        super(LogisticRegression, self).__init__()
        self.linear = nn.Linear(n_input_features, 1)

    def forward(self, x):
        y_predicted = torch.sigmoid(self.linear(x))
        return y_predicted


model = LogisticRegression(n_features)

# 2) loss and optimizer
num_epochs = 100
learning_rate = 0.01
criterion = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

# 3) training loop
for epoch in range(num_epochs):
    # forward pass and loss
    y_predicted = model(X_train)
    loss = criterion(y_predicted, y_train)

    # backward pass
    loss.backward()

    # updates
    optimizer.step()

    # zero gradients
    optimizer.zero_grad()

    if (epoch + 1) % 10 == 0:
        print(f'epoch: {epoch+1}, loss = {loss.item():.4f}')

with torch.no_grad():
    y_predicted = model(X_test)
    y_predicted_cls = y_predicted.round()
    acc = y_predicted_cls.eq(y_test).sum() / float(y_test.shape[0])
    print(f'accuracy: {acc.item():.4f}')

[w, b] = model.parameters()
print('w =', w.detach().numpy().round(3), 'b =', b.item())

predicted = model(X_test).detach().numpy()
np.save('predicted.npy', predicted)
print('first predictions:', predicted[:5].ravel().round(3))
