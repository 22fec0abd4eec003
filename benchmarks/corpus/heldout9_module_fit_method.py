# corpus: beginner style: the nn.Module subclass has its own fit(self, train_loader, epochs, lr) method that creates the optimizer and owns the loop, plus predict(self, x); the script calls model.fit(...) then prints test accuracy
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)

# make a toy 3-class problem (like iris but bigger)
n_samples = 600
X = torch.randn(n_samples, 4)
W_true = torch.randn(4, 3)
y = (X @ W_true + 0.3 * torch.randn(n_samples, 3)).argmax(dim=1)

X_train, X_test = X[:480], X[480:]
y_train, y_test = y[:480], y[480:]

train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True)


class Classifier(nn.Module):
    def __init__(self, in_features=4, hidden=16, out_features=3):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, out_features)
        self.relu = nn.ReLU()
        self.losses = []

    def forward(self, x):
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.out(x)

    def fit(self, train_loader, epochs=10, lr=0.01):
        criterion = nn.CrossEntropyLoss()
        optimizer = torch.optim.Adam(self.parameters(), lr=lr)
        self.train()
        for epoch in range(epochs):
            epoch_loss = 0.0
            for xb, yb in train_loader:
                optimizer.zero_grad()
                y_pred = self(xb)
                loss = criterion(y_pred, yb)
                loss.backward()
                optimizer.step()
                epoch_loss += loss.item()
            self.losses.append(epoch_loss / len(train_loader))
            if epoch % 2 == 0:
                print(f"epoch {epoch} loss {self.losses[-1]:.4f}")
        return self

    def predict(self, x):
        self.eval()
        with torch.no_grad():
            logits = self(x)
        return torch.argmax(logits, dim=1)


model = Classifier()
model.fit(train_loader, epochs=8, lr=0.01)

preds = model.predict(X_test)
accuracy = (preds == y_test).float().mean().item()
print(f"Test accuracy: {accuracy * 100:.2f}%")
print("final training loss:", round(model.losses[-1], 4))
