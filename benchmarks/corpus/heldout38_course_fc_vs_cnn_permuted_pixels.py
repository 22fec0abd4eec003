# corpus: course notebook (2018-2019 deep learning course, convnet lab exported to .py): one train(epoch, model, perm)/test(model, perm) pair reused for an FC net and a CNN, permuted-pixel rerun, size_average=False -> reduction='sum', .data.max accuracy, accuracy_list
# coding: utf-8

# # Convolutional Neural Network vs fully connected, on (fake) MNIST

# In[1]:


import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import numpy as np
from torch.utils.data import TensorDataset, DataLoader


# In[2]:


# function to count number of parameters
def get_n_params(model):
    np = 0
    for p in list(model.parameters()):
        np += p.nelement()
    return np


# In[3]:


torch.manual_seed(123)
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

input_size = 14 * 14   # images are 14x14 pixels (downsampled)
output_size = 10       # there are 10 classes

# stand-in for datasets.MNIST('../data', ...) with Normalize((0.1307,), (0.3081,))
proto = torch.randn(10, 1, 14, 14)
ytr = torch.randint(0, 10, (320,))
xtr = proto[ytr] + 0.8 * torch.randn(320, 1, 14, 14)
yte = torch.randint(0, 10, (100,))
xte = proto[yte] + 0.8 * torch.randn(100, 1, 14, 14)
train_loader = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)
test_loader = DataLoader(TensorDataset(xte, yte), batch_size=100, shuffle=True)


# In[4]:


class FC2Layer(nn.Module):
    def __init__(self, input_size, n_hidden, output_size):
        super(FC2Layer, self).__init__()
        self.input_size = input_size
        self.network = nn.Sequential(
            nn.Linear(input_size, n_hidden),
            nn.ReLU(),
            nn.Linear(n_hidden, n_hidden),
            nn.ReLU(),
            nn.Linear(n_hidden, output_size),
            nn.LogSoftmax(dim=1)
        )

    def forward(self, x):
        x = x.view(-1, self.input_size)
        return self.network(x)


class CNN(nn.Module):
    def __init__(self, input_size, n_feature, output_size):
        super(CNN, self).__init__()
        self.n_feature = n_feature
        self.conv1 = nn.Conv2d(in_channels=1, out_channels=n_feature, kernel_size=3)
        self.conv2 = nn.Conv2d(n_feature, n_feature, kernel_size=3)
        self.fc1 = nn.Linear(n_feature * 2 * 2, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x, verbose=False):
        x = self.conv1(x)
        x = F.relu(x)
        x = F.max_pool2d(x, kernel_size=2)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, kernel_size=2)
        x = x.view(-1, self.n_feature * 2 * 2)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.log_softmax(x, dim=1)
        return x


# In[5]:


accuracy_list = []


def train(epoch, model, perm=torch.arange(0, 196).long()):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        # send to device
        data, target = data.to(device), target.to(device)

        # permute pixels
        data = data.view(-1, 14 * 14)
        data = data[:, perm]
        data = data.view(-1, 1, 14, 14)

        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 2 == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))


def test(model, perm=torch.arange(0, 196).long()):
    model.eval()
    test_loss = 0
    correct = 0
    for data, target in test_loader:
        # send to device
        data, target = data.to(device), target.to(device)

        # permute pixels
        data = data.view(-1, 14 * 14)
        data = data[:, perm]
        data = data.view(-1, 1, 14, 14)
        output = model(data)
        test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
        pred = output.data.max(1, keepdim=True)[1]  # get the index of the max log-probability
        correct += pred.eq(target.data.view_as(pred)).cpu().sum().item()

    test_loss /= len(test_loader.dataset)
    accuracy = 100. * correct / len(test_loader.dataset)
    accuracy_list.append(accuracy)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        accuracy))


# # Train a small fully-connected network

# In[6]:


n_hidden = 8  # number of hidden units

model_fnn = FC2Layer(input_size, n_hidden, output_size)
model_fnn.to(device)
optimizer = optim.SGD(model_fnn.parameters(), lr=0.01, momentum=0.5)
print('Number of parameters: {}'.format(get_n_params(model_fnn)))

for epoch in range(0, 1):
    train(epoch, model_fnn)
    test(model_fnn)


# # Train a ConvNet with the same number of parameters

# In[7]:


# Training settings
n_features = 6  # number of feature maps

model_cnn = CNN(input_size, n_features, output_size)
model_cnn.to(device)
optimizer = optim.SGD(model_cnn.parameters(), lr=0.01, momentum=0.5)
print('Number of parameters: {}'.format(get_n_params(model_cnn)))

for epoch in range(0, 1):
    train(epoch, model_cnn)
    test(model_cnn)


# # The ConvNet's performance drops when we permute the pixels, but the Fully-Connected Network's performance stays the same

# In[8]:


perm = torch.randperm(196)
plt_perm = np.arange(196)[perm.numpy()]

# CNN
model_cnn = CNN(input_size, n_features, output_size)
model_cnn.to(device)
optimizer = optim.SGD(model_cnn.parameters(), lr=0.01, momentum=0.5)
print('Number of parameters: {}'.format(get_n_params(model_cnn)))

for epoch in range(0, 1):
    train(epoch, model_cnn, perm)
    test(model_cnn, perm)

# Fully-Connected Net
model_fnn = FC2Layer(input_size, n_hidden, output_size)
model_fnn.to(device)
optimizer = optim.SGD(model_fnn.parameters(), lr=0.01, momentum=0.5)
print('Number of parameters: {}'.format(get_n_params(model_fnn)))

for epoch in range(0, 1):
    train(epoch, model_fnn, perm)
    test(model_fnn, perm)


# In[9]:


print('accuracies (FC, CNN, CNN-perm, FC-perm):', accuracy_list)
np.save('accuracy_list.npy', np.array(accuracy_list))
