# corpus: while True loop with iter_num counter, next(iter) refill on StopIteration, break at max_iters
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(3)

dataset = TensorDataset(torch.randn(200, 12), torch.randint(0, 4, (200,)))
train_loader = DataLoader(dataset, batch_size=25, shuffle=True)

model = nn.Sequential(nn.Linear(12, 48), nn.ReLU(), nn.Dropout(0.1), nn.Linear(48, 4))
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
criterion = nn.CrossEntropyLoss()

max_iters = 30
log_interval = 5
iter_num = 0
data_iter = iter(train_loader)
model.train()
while True:
    try:
        inputs, targets = next(data_iter)
    except StopIteration:
        data_iter = iter(train_loader)
        inputs, targets = next(data_iter)

    logits = model(inputs)
    loss = criterion(logits, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

    if iter_num % log_interval == 0:
        print(f"iter {iter_num}: loss {loss.item():.4f}")
    iter_num += 1
    if iter_num >= max_iters:
        break

print("done after", iter_num, "iterations")
