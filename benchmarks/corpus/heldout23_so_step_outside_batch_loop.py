# corpus: StackOverflow "my model only learns from the last batch?" — optimizer.step() indented one level out (once per epoch, after the batch loop, with only the last batch's gradient since zero_grad() is inside the loop), running_loss / i (i is the last batch index, not the count), loss.data printed, predictions on a few samples at the end with model.eval()
import torch
import torch.nn as nn

torch.manual_seed(5)

# XOR-ish toy problem
x = torch.rand(400, 2) * 2 - 1
y = ((x[:, 0] > 0) ^ (x[:, 1] > 0)).float().unsqueeze(1)

dataset = torch.utils.data.TensorDataset(x, y)
trainloader = torch.utils.data.DataLoader(dataset, batch_size=50, shuffle=True)

net = nn.Sequential(
    nn.Linear(2, 16),
    nn.ReLU(),
    nn.Linear(16, 16),
    nn.ReLU(),
    nn.Linear(16, 1),
    nn.Sigmoid(),
)
criterion = nn.BCELoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.5)

for epoch in range(12):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        running_loss += loss.item()
    optimizer.step()
    if epoch % 3 == 2:
        print('[%d] loss: %.3f (last batch %s)' % (epoch + 1, running_loss / i, loss.data))

print('Finished Training')

net.eval()
with torch.no_grad():
    test = torch.tensor([[0.5, 0.5], [-0.5, 0.5], [0.5, -0.5], [-0.5, -0.5]])
    print(net(test).squeeze(1))
torch.save(net.state_dict(), './xor_net.pth')
