# corpus: CIFAR-10 60-minute-blitz classifier grown in a project: globals, resume block, ReduceLROnPlateau on val loss, early stopping by patience, confusion matrix
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(42)

classes = ('plane', 'car', 'bird', 'cat',
           'deer', 'dog', 'frog', 'horse', 'ship', 'truck')

BATCH_SIZE = 16
EPOCHS = 12
PATIENCE = 3
PATH = './cifar_net.pth'
RESUME_PATH = './cifar_resume.pth'

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
# Assuming that we are on a CUDA machine, this should print a CUDA device:
print(device)

# fake "CIFAR" : 3x16x16 images
images = torch.randn(480, 3, 16, 16)
labels = torch.randint(0, 10, (480,))
images[:, 0, 0, :] += labels.float().unsqueeze(1) / 5.0
full = TensorDataset(images, labels)
trainset, valset = random_split(full, [400, 80])
testset = TensorDataset(torch.randn(80, 3, 16, 16), torch.randint(0, 10, (80,)))

trainloader = DataLoader(trainset, batch_size=BATCH_SIZE, shuffle=True, num_workers=0)
valloader = DataLoader(valset, batch_size=BATCH_SIZE, shuffle=False, num_workers=0)
testloader = DataLoader(testset, batch_size=BATCH_SIZE, shuffle=False, num_workers=0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 2 * 2, 60)
        self.fc2 = nn.Linear(60, 42)
        self.fc3 = nn.Linear(42, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)  # flatten all dimensions except batch
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
net.to(device)

criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode='min', factor=0.5, patience=1)

start_epoch = 0
best_val_loss = np.inf
epochs_no_improve = 0
if os.path.exists(RESUME_PATH):
    checkpoint = torch.load(RESUME_PATH)
    net.load_state_dict(checkpoint['model_state_dict'])
    optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
    scheduler.load_state_dict(checkpoint['scheduler_state_dict'])
    start_epoch = checkpoint['epoch'] + 1
    best_val_loss = checkpoint['best_val_loss']
    print('resuming from epoch', start_epoch)

for epoch in range(start_epoch, EPOCHS):  # loop over the dataset multiple times

    net.train()
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        # get the inputs; data is a list of [inputs, labels]
        inputs, labels = data[0].to(device), data[1].to(device)

        # zero the parameter gradients
        optimizer.zero_grad()

        # forward + backward + optimize
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()

        # print statistics
        running_loss += loss.item()
        if i % 10 == 9:    # print every 10 mini-batches
            print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 10:.3f}')
            running_loss = 0.0

    # validation
    net.eval()
    val_loss = 0.0
    with torch.no_grad():
        for data in valloader:
            inputs, labels = data[0].to(device), data[1].to(device)
            outputs = net(inputs)
            val_loss += criterion(outputs, labels).item()
    val_loss = val_loss / len(valloader)
    scheduler.step(val_loss)
    print('epoch %d val_loss %.4f lr %.5f' % (epoch + 1, val_loss, optimizer.param_groups[0]['lr']))

    torch.save({
        'epoch': epoch,
        'model_state_dict': net.state_dict(),
        'optimizer_state_dict': optimizer.state_dict(),
        'scheduler_state_dict': scheduler.state_dict(),
        'best_val_loss': best_val_loss,
    }, RESUME_PATH)

    if val_loss < best_val_loss:
        best_val_loss = val_loss
        epochs_no_improve = 0
        torch.save(net.state_dict(), PATH)
        print('  saved new best model')
    else:
        epochs_no_improve += 1
        if epochs_no_improve >= PATIENCE:
            print('Early stopping at epoch', epoch + 1)
            break

print('Finished Training')

net = Net()
net.load_state_dict(torch.load(PATH))
net.to(device)

correct = 0
total = 0
confusion = torch.zeros(10, 10, dtype=torch.long)
# since we're not training, we don't need to calculate the gradients for our outputs
with torch.no_grad():
    for data in testloader:
        images, labels = data[0].to(device), data[1].to(device)
        # calculate outputs by running images through the network
        outputs = net(images)
        # the class with the highest energy is what we choose as prediction
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
        for t, p in zip(labels.view(-1), predicted.view(-1)):
            confusion[t.long(), p.long()] += 1

print(f'Accuracy of the network on the {total} test images: {100 * correct // total} %')
print('confusion matrix:')
print(confusion.numpy())
for i, classname in enumerate(classes):
    n = confusion[i].sum().item()
    print(f'Accuracy for class: {classname:5s} is {100.0 * confusion[i, i].item() / max(n, 1):.1f} %')
