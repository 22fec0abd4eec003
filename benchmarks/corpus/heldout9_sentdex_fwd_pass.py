# corpus: sentdex-style tutorial: whole tensors sliced in `for i in tqdm(range(0, len(train_X), BATCH_SIZE))`, net.zero_grad(), fwd_pass(X, y, train=False) returning acc and loss, test(size=32) on a random slice every 50 steps, lines appended to a model log file
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from tqdm import tqdm

torch.manual_seed(0)

IMG_SIZE = 20
BATCH_SIZE = 32
EPOCHS = 2

# "dogs vs cats" stand-in: 2 classes, one-hot labels, grayscale images scaled to 0..1
X = torch.rand(480, IMG_SIZE, IMG_SIZE)
labels = (X[:, :10, :].mean(dim=(1, 2)) > X[:, 10:, :].mean(dim=(1, 2))).long()
y = torch.eye(2)[labels]

VAL_PCT = 0.1
val_size = int(len(X) * VAL_PCT)

train_X = X[:-val_size]
train_y = y[:-val_size]
test_X = X[-val_size:]
test_y = y[-val_size:]
print(len(train_X), len(test_X))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3)
        self.conv2 = nn.Conv2d(16, 32, 3)

        x = torch.randn(IMG_SIZE, IMG_SIZE).view(-1, 1, IMG_SIZE, IMG_SIZE)
        self._to_linear = None
        self.convs(x)

        self.fc1 = nn.Linear(self._to_linear, 64)
        self.fc2 = nn.Linear(64, 2)

    def convs(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), (2, 2))
        if self._to_linear is None:
            self._to_linear = x[0].shape[0] * x[0].shape[1] * x[0].shape[2]
        return x

    def forward(self, x):
        x = self.convs(x)
        x = x.view(-1, self._to_linear)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.softmax(x, dim=1)


net = Net()
print(net)

optimizer = optim.Adam(net.parameters(), lr=0.001)
loss_function = nn.MSELoss()

MODEL_NAME = "model-heldout9"  # f"model-{int(time.time())}" in the video; fixed here


def fwd_pass(X, y, train=False):
    if train:
        net.zero_grad()
    outputs = net(X)
    matches = [torch.argmax(i) == torch.argmax(j) for i, j in zip(outputs, y)]
    acc = matches.count(True) / len(matches)
    loss = loss_function(outputs, y)

    if train:
        loss.backward()
        optimizer.step()
    return acc, loss


def test(size=32):
    random_start = int(torch.randint(len(test_X) - size, (1,)).item())
    X, y = test_X[random_start:random_start + size], test_y[random_start:random_start + size]
    with torch.no_grad():
        val_acc, val_loss = fwd_pass(X.view(-1, 1, IMG_SIZE, IMG_SIZE), y)
    return val_acc, val_loss


def train():
    with open("model.log", "a") as f:
        for epoch in range(EPOCHS):
            for i in tqdm(range(0, len(train_X), BATCH_SIZE)):
                batch_X = train_X[i:i + BATCH_SIZE].view(-1, 1, IMG_SIZE, IMG_SIZE)
                batch_y = train_y[i:i + BATCH_SIZE]

                acc, loss = fwd_pass(batch_X, batch_y, train=True)

                if i % (BATCH_SIZE * 5) == 0:
                    val_acc, val_loss = test(size=32)
                    f.write(f"{MODEL_NAME},{epoch},{round(float(acc), 2)},{round(float(loss), 4)},"
                            f"{round(float(val_acc), 2)},{round(float(val_loss), 4)}\n")
            print(f"Epoch: {epoch}. Loss: {loss}")


train()

correct = 0
total = 0
with torch.no_grad():
    for i in range(len(test_X)):
        real_class = torch.argmax(test_y[i])
        net_out = net(test_X[i].view(-1, 1, IMG_SIZE, IMG_SIZE))[0]
        predicted_class = torch.argmax(net_out)
        if predicted_class == real_class:
            correct += 1
        total += 1
print("Accuracy:", round(correct / total, 3))
