# corpus: "Deep Learning with PyTorch" book ch. 8: training_loop(n_epochs, optimizer, model, loss_fn, train_loader) with hand-written L2 penalty, datetime print every 10 epochs, validate() on both loaders
import datetime

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(123)

device = (torch.device('cuda') if torch.cuda.is_available()
          else torch.device('cpu'))
print(f"Training on device {device}.")

# birds vs airplanes, 3x32x32 (synthetic stand-in for the CIFAR-2 subset)
class_names = ['airplane', 'bird']
n_train, n_val = 96, 32
imgs = torch.randn(n_train + n_val, 3, 32, 32)
labels = (imgs[:, 2].mean(dim=(1, 2)) > imgs[:, 0].mean(dim=(1, 2))).long()
cifar2 = [(imgs[i], labels[i].item()) for i in range(n_train)]
cifar2_val = [(imgs[i], labels[i].item()) for i in range(n_train, n_train + n_val)]

train_loader = torch.utils.data.DataLoader(cifar2, batch_size=32, shuffle=True)


class Net(nn.Module):
    def __init__(self, n_chans1=16):
        super().__init__()
        self.n_chans1 = n_chans1
        self.conv1 = nn.Conv2d(3, n_chans1, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(n_chans1, n_chans1 // 2, kernel_size=3, padding=1)
        self.fc1 = nn.Linear(8 * 8 * n_chans1 // 2, 32)
        self.fc2 = nn.Linear(32, 2)

    def forward(self, x):
        out = F.max_pool2d(torch.tanh(self.conv1(x)), 2)
        out = F.max_pool2d(torch.tanh(self.conv2(out)), 2)
        out = out.view(-1, 8 * 8 * self.n_chans1 // 2)
        out = torch.tanh(self.fc1(out))
        out = self.fc2(out)
        return out


def training_loop_l2reg(n_epochs, optimizer, model, loss_fn, train_loader):
    for epoch in range(1, n_epochs + 1):
        loss_train = 0.0
        for imgs, labels in train_loader:
            imgs = imgs.to(device=device)
            labels = labels.to(device=device)
            outputs = model(imgs)
            loss = loss_fn(outputs, labels)

            l2_lambda = 0.001
            l2_norm = sum(p.pow(2.0).sum()
                          for p in model.parameters())  # Replaces pow(2.0) with abs() for L1 regularization
            loss = loss + l2_lambda * l2_norm

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

            loss_train += loss.item()
        if epoch == 1 or epoch % 10 == 0:
            print('{} Epoch {}, Training loss {}'.format(
                datetime.datetime.now(), epoch,
                loss_train / len(train_loader)))


def validate(model, train_loader, val_loader):
    accdict = {}
    for name, loader in [("train", train_loader), ("val", val_loader)]:
        correct = 0
        total = 0

        with torch.no_grad():
            for imgs, labels in loader:
                imgs = imgs.to(device=device)
                labels = labels.to(device=device)
                outputs = model(imgs)
                _, predicted = torch.max(outputs, dim=1)
                total += labels.shape[0]
                correct += int((predicted == labels).sum())

        print("Accuracy {}: {:.2f}".format(name, correct / total))
        accdict[name] = correct / total
    return accdict


model = Net().to(device=device)
optimizer = optim.SGD(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()

training_loop_l2reg(
    n_epochs=20,
    optimizer=optimizer,
    model=model,
    loss_fn=loss_fn,
    train_loader=train_loader,
)

train_loader = torch.utils.data.DataLoader(cifar2, batch_size=32, shuffle=False)
val_loader = torch.utils.data.DataLoader(cifar2_val, batch_size=32, shuffle=False)
all_acc_dict = {}
all_acc_dict["l2 reg"] = validate(model, train_loader, val_loader)

torch.save(model.state_dict(), 'birds_vs_airplanes.pt')
print(sum(p.numel() for p in model.parameters()), 'parameters')
