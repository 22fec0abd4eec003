# corpus: manual mini-batching without a DataLoader: tensors X/Y split by index, `perm = torch.randperm(N)` each epoch and `idx = perm[i:i + batch_size]; xb, yb = X_train[idx], Y_train[idx]` inside `for i in range(0, N, batch_size)`, running loss per epoch, validation on the whole val tensors, best state_dict kept with copy.deepcopy and saved, CONSTANTS at the top
import copy
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 123
N_SAMPLES = 600
N_FEATURES = 20
N_CLASSES = 4
BATCH_SIZE = 32
EPOCHS = 6
LR = 3e-3
WEIGHT_DECAY = 1e-4

torch.manual_seed(SEED)
device = "cuda" if torch.cuda.is_available() else "cpu"

# synthetic classification data
X = torch.randn(N_SAMPLES, N_FEATURES)
W = torch.randn(N_FEATURES, N_CLASSES)
Y = (X @ W + 0.5 * torch.randn(N_SAMPLES, N_CLASSES)).argmax(dim=1)
n_train = int(0.8 * N_SAMPLES)
X_train, Y_train = X[:n_train].to(device), Y[:n_train].to(device)
X_val, Y_val = X[n_train:].to(device), Y[n_train:].to(device)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_FEATURES, 64)
        self.fc2 = nn.Linear(64, 64)
        self.out = nn.Linear(64, N_CLASSES)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = self.drop(F.relu(self.fc2(x)))
        return self.out(x)


model = MLP().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)

best_acc = 0.0
best_state = None
N = X_train.shape[0]
for epoch in range(EPOCHS):
    t0 = time.time()
    model.train()
    perm = torch.randperm(N)
    running_loss = 0.0
    n_batches = 0
    for i in range(0, N, BATCH_SIZE):
        idx = perm[i:i + BATCH_SIZE]
        xb, yb = X_train[idx], Y_train[idx]
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        n_batches += 1

    model.eval()
    with torch.no_grad():
        val_logits = model(X_val)
        val_loss = F.cross_entropy(val_logits, Y_val).item()
        val_acc = (val_logits.argmax(1) == Y_val).float().mean().item()
    if val_acc > best_acc:
        best_acc = val_acc
        best_state = copy.deepcopy(model.state_dict())
    print("epoch %d | train loss %.4f | val loss %.4f | val acc %.3f" % (epoch, running_loss / n_batches, val_loss, val_acc))

print("best val acc: %.3f" % best_acc)
torch.save(best_state, "best_mlp.pt")
