# corpus: PyTorch TensorBoard tutorial: SummaryWriter('runs/fashion_experiment_1'), running_loss every 10 mini-batches logged with writer.add_scalar('training loss', running_loss / 10, epoch * len(trainloader) + i), a test-accuracy scalar per epoch, writer.close()
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(0)

# fake "FashionMNIST": 10 classes of 1x28x28 images with a class-dependent mean
classes = ('T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat',
           'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle Boot')
labels = torch.randint(0, 10, (640,))
images = torch.randn(640, 1, 28, 28) * 0.5 + labels.view(-1, 1, 1, 1).float() / 10
trainset = TensorDataset(images[:512], labels[:512])
testset = TensorDataset(images[512:], labels[512:])

trainloader = DataLoader(trainset, batch_size=16, shuffle=True)
testloader = DataLoader(testset, batch_size=16, shuffle=False)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 4 * 4)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)

# default `log_dir` is "runs" - we'll be more specific here
writer = SummaryWriter('runs/fashion_experiment_1')

running_loss = 0.0
for epoch in range(2):  # loop over the dataset multiple times

    for i, data in enumerate(trainloader, 0):

        # get the inputs; data is a list of [inputs, labels]
        inputs, labels = data

        # zero the parameter gradients
        optimizer.zero_grad()

        # forward + backward + optimize
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()

        running_loss += loss.item()
        if i % 10 == 9:    # every 10 mini-batches...

            # ...log the running loss
            writer.add_scalar('training loss',
                              running_loss / 10,
                              epoch * len(trainloader) + i)
            print('[%d, %5d] loss: %.3f' % (epoch + 1, i + 1, running_loss / 10))
            running_loss = 0.0

    correct = 0
    total = 0
    with torch.no_grad():
        for data in testloader:
            images, labels = data
            outputs = net(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    writer.add_scalar('test accuracy', correct / total, epoch)
    print('Accuracy of the network on the test images: %d %%' % (100 * correct / total))

print('Finished Training')
writer.close()
