# corpus: test accuracy printed every 50 steps inside the batch loop (reads the model after step), checkpoint every N steps
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(12)

EPOCH = 2
BATCH_SIZE = 10
LR = 0.01
EVAL_EVERY = 50
SAVE_EVERY = 40

train_x = torch.randn(500, 1, 6, 6)
train_y = (train_x.mean(dim=(1, 2, 3)) > 0).long()
test_x = torch.randn(100, 1, 6, 6)
test_y = (test_x.mean(dim=(1, 2, 3)) > 0).long()
train_loader = DataLoader(dataset=TensorDataset(train_x, train_y), batch_size=BATCH_SIZE, shuffle=True)


class CNN(nn.Module):
    def __init__(self):
        super(CNN, self).__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(1, 4, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2))
        self.out = nn.Linear(4 * 3 * 3, 2)

    def forward(self, x):
        x = self.conv1(x)
        x = x.view(x.size(0), -1)
        return self.out(x)


cnn = CNN()
optimizer = torch.optim.Adam(cnn.parameters(), lr=LR)
loss_func = nn.CrossEntropyLoss()
os.makedirs("ckpts", exist_ok=True)
step = 0

for epoch in range(EPOCH):
    for b_x, b_y in train_loader:
        output = cnn(b_x)
        loss = loss_func(output, b_y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1

        if step % EVAL_EVERY == 0:
            test_output = cnn(test_x)
            pred_y = torch.max(test_output, 1)[1]
            accuracy = float((pred_y == test_y).sum()) / float(test_y.size(0))
            print("Epoch: ", epoch, "| step: ", step, "| train loss: %.4f" % loss.item(), "| test accuracy: %.2f" % accuracy)
        if step % SAVE_EVERY == 0:
            torch.save({"step": step, "model": cnn.state_dict(), "optimizer": optimizer.state_dict()}, f"ckpts/step_{step}.pt")
