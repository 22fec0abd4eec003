# corpus: university homework notebook as .py: starter-code Trainer class (self.loss_history, self.val_acc_history, fit(num_epochs)), trainer.fit() in one cell then "train a bit more" at a lower lr in a later cell, model.eval() at the end, parameter count, checkpoint saved
# In[1]:


import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

# In[2]:


class ToySequences(Dataset):
    """Sum-of-sequence classification: is the sum of the sequence positive?"""

    def __init__(self, n, length=12, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n, length, 1, generator=g)
        self.y = (self.x.sum(dim=(1, 2)) > 0).long()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


train_data = ToySequences(320, seed=0)
val_data = ToySequences(96, seed=1)


# In[3]:


class RNNClassifier(nn.Module):
    def __init__(self, hidden_size=32):
        super().__init__()
        self.rnn = nn.GRU(1, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, 2)

    def forward(self, x):
        _, h = self.rnn(x)
        return self.head(h[-1])


# In[4]:


class Trainer:
    # Provided starter code -- DO NOT MODIFY
    def __init__(self, model, train_data, val_data, lr=1e-3, batch_size=32, device="cpu"):
        self.model = model.to(device)
        self.device = device
        self.train_loader = DataLoader(train_data, batch_size=batch_size, shuffle=True)
        self.val_loader = DataLoader(val_data, batch_size=batch_size)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.loss_history = []
        self.val_acc_history = []

    def train_epoch(self):
        self.model.train()
        epoch_loss = 0.0
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.loss_history.append(loss.item())
            epoch_loss += loss.item()
        return epoch_loss / len(self.train_loader)

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        correct, total = 0, 0
        for x, y in self.val_loader:
            x, y = x.to(self.device), y.to(self.device)
            correct += (self.model(x).argmax(-1) == y).sum().item()
            total += y.numel()
        return correct / total

    def fit(self, num_epochs):
        for epoch in range(num_epochs):
            start = time.time()
            train_loss = self.train_epoch()
            val_acc = self.validate()
            self.val_acc_history.append(val_acc)
            elapsed = time.time() - start
            print(f"Epoch {epoch + 1}/{num_epochs} | train loss {train_loss:.4f} | val acc {val_acc:.3f}")
            assert elapsed >= 0


# In[5]:


torch.manual_seed(0)
model = RNNClassifier()
n_params = sum(p.numel() for p in model.parameters())
print(f"The model has {n_params:,} trainable parameters")
trainer = Trainer(model, train_data, val_data, lr=5e-3)
trainer.fit(3)


# In[6]:


# Q2.3: the validation accuracy is still going up -- train a bit more with a smaller learning rate
for g in trainer.optimizer.param_groups:
    g["lr"] = 1e-3
trainer.fit(2)


# In[7]:


print("number of recorded losses:", len(trainer.loss_history))
print("val acc history:", trainer.val_acc_history)
torch.save({"model": model.state_dict(), "val_acc": trainer.val_acc_history[-1]}, "rnn_hw.pt")


# In[8]:


model.eval()
with torch.no_grad():
    probe = torch.tensor([[0.5] * 12, [-0.5] * 12]).unsqueeze(-1)
    print("probe predictions:", model(probe).argmax(-1).tolist())
