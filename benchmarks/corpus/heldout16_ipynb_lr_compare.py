# corpus: Jupyter notebook exported with nbconvert: `# In[N]:` cells, module-level globals, train() from an earlier cell called for two learning rates in sequence, results dict, print(model) and parameter count
#!/usr/bin/env python
# coding: utf-8

# # Homework 3 - Part 2: MLP on synthetic "digits"
# Compare two learning rates.

# In[1]:


import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

# In[2]:


torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device)


# In[3]:


X = torch.randn(512, 64)
W_true = torch.randn(64, 10)
y = (X @ W_true).argmax(dim=1)
X_train, y_train = X[:400], y[:400]
X_test, y_test = X[400:], y[400:]
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True)
test_loader = DataLoader(TensorDataset(X_test, y_test), batch_size=64)
len(train_loader), len(test_loader)


# In[4]:


class MLP(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.fc1 = nn.Linear(64, hidden)
        self.fc2 = nn.Linear(hidden, 10)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return self.fc2(x)


model = MLP().to(device)
print(model)
print("params:", sum(p.numel() for p in model.parameters() if p.requires_grad))


# In[5]:


criterion = nn.CrossEntropyLoss()


def train(model, optimizer, epochs=3):
    losses = []
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for xb, yb in train_loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            out = model(xb)
            loss = criterion(out, yb)
            loss.backward()
            optimizer.step()
            total += loss.item()
        losses.append(total / len(train_loader))
        print(f"epoch {epoch}: loss {losses[-1]:.4f}")
    return losses


def evaluate(model):
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in test_loader:
            xb, yb = xb.to(device), yb.to(device)
            correct += (model(xb).argmax(1) == yb).sum().item()
    return correct / len(test_loader.dataset)


# In[6]:


results = {}
lr = 0.1
torch.manual_seed(1)
model = MLP().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
losses = train(model, optimizer)
results[lr] = (losses, evaluate(model))
print(losses)


# In[7]:


lr = 0.01
torch.manual_seed(1)
model = MLP().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
losses = train(model, optimizer)
results[lr] = (losses, evaluate(model))
print(losses)


# In[8]:


for lr, (losses, acc) in results.items():
    print(f"lr={lr}: final loss {losses[-1]:.4f}, test acc {acc:.3f}")


# In[ ]:
