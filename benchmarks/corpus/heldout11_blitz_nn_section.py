# corpus: 60 Minute Blitz "Neural Networks" section as a script: LeNet with num_flat_features-style forward, `net.zero_grad(); out.backward(torch.randn(1, 10))` demo, one manual `f.data.sub_(f.grad.data * learning_rate)` update, then `optimizer = optim.SGD(net.parameters(), lr=0.01)` in a training loop over random inputs
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


class Net(nn.Module):

    def __init__(self):
        super(Net, self).__init__()
        # 1 input image channel, 6 output channels, 5x5 square convolution
        # kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        # an affine operation: y = Wx + b
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5*5 from image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        # Convolution layer C1: 1 input image channel, 6 output channels,
        # 5x5 square convolution, it uses RELU activation function
        c1 = F.relu(self.conv1(input))
        # Subsampling layer S2: 2x2 grid
        s2 = F.max_pool2d(c1, (2, 2))
        # Convolution layer C3
        c3 = F.relu(self.conv2(s2))
        # Subsampling layer S4: 2x2 grid
        s4 = F.max_pool2d(c3, 2)
        # Flatten operation: purely functional, outputs a (N, 400) Tensor
        s4 = torch.flatten(s4, 1)
        # Fully connected layer F5
        f5 = F.relu(self.fc1(s4))
        # Fully connected layer F6
        f6 = F.relu(self.fc2(f5))
        # Gaussian layer OUTPUT
        output = self.fc3(f6)
        return output


net = Net()
print(net)

params = list(net.parameters())
print(len(params))
print(params[0].size())  # conv1's .weight

input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out)

# Zero the gradient buffers of all parameters and backprops with random gradients
net.zero_grad()
out.backward(torch.randn(1, 10))

output = net(input)
target = torch.randn(10)  # a dummy target, for example
target = target.view(1, -1)  # make it the same shape as output
criterion = nn.MSELoss()

loss = criterion(output, target)
print(loss)

print(loss.grad_fn)  # MSELoss
print(loss.grad_fn.next_functions[0][0])  # Linear
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])  # ReLU

net.zero_grad()  # zeroes the gradient buffers of all parameters

print("conv1.bias.grad before backward")
print(net.conv1.bias.grad)

loss.backward()

print("conv1.bias.grad after backward")
print(net.conv1.bias.grad)

# the simplest update rule: weight = weight - learning_rate * gradient
learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)

# create your optimizer
optimizer = optim.SGD(net.parameters(), lr=0.01)

# a handful of random "images" with random targets, so the loop has something to fit
inputs = torch.randn(20, 1, 1, 32, 32)
targets = torch.randn(20, 1, 10)

for epoch in range(5):
    epoch_loss = 0.0
    for i in range(len(inputs)):
        # in your training loop:
        optimizer.zero_grad()  # zero the gradient buffers
        output = net(inputs[i])
        loss = criterion(output, targets[i])
        loss.backward()
        optimizer.step()  # Does the update
        epoch_loss += loss.item()
    print("epoch %d loss %.5f" % (epoch + 1, epoch_loss / len(inputs)))

torch.save(net.state_dict(), "blitz_net.pth")
