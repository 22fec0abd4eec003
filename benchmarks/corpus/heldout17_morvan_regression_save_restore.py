# corpus: MorvanZhou PyTorch tutorial (301 regression + 304 save/reload): full batch, `for t in range(200): prediction = net(x)`, whole net pickled with torch.save(net) and the params saved apart, both restored
import numpy as np
import torch
import torch.nn.functional as F

torch.manual_seed(1)    # reproducible

x = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1)  # x data (tensor), shape=(100, 1)
y = x.pow(2) + 0.2 * torch.rand(x.size())                 # noisy y data (tensor), shape=(100, 1)


class Net(torch.nn.Module):
    def __init__(self, n_feature, n_hidden, n_output):
        super(Net, self).__init__()
        self.hidden = torch.nn.Linear(n_feature, n_hidden)   # hidden layer
        self.predict = torch.nn.Linear(n_hidden, n_output)   # output layer

    def forward(self, x):
        x = F.relu(self.hidden(x))      # activation function for hidden layer
        x = self.predict(x)             # linear output
        return x


def save():
    # save net1
    net1 = Net(n_feature=1, n_hidden=10, n_output=1)     # define the network
    print(net1)  # net architecture

    optimizer = torch.optim.SGD(net1.parameters(), lr=0.2)
    loss_func = torch.nn.MSELoss()  # this is for regression mean squared loss

    snapshots = []
    for t in range(200):
        prediction = net1(x)     # input x and predict based on x

        loss = loss_func(prediction, y)     # must be (1. nn output, 2. target)

        optimizer.zero_grad()   # clear gradients for next train
        loss.backward()         # backpropagation, compute gradients
        optimizer.step()        # apply gradients

        if t % 5 == 0:
            # plot and show learning process (no matplotlib here: keep the curve)
            snapshots.append(prediction.data.numpy().copy())
            if t % 50 == 0:
                print('t=%d Loss=%.4f' % (t, loss.data.numpy()))

    # 2 ways to save the net
    torch.save(net1, 'net.pkl')  # save entire net
    torch.save(net1.state_dict(), 'net_params.pkl')   # save only the parameters
    torch.save(torch.from_numpy(np.array(snapshots)).squeeze(-1), 'snapshots.pt')
    return prediction


def restore_net():
    # restore entire net1 to net2
    net2 = torch.load('net.pkl', weights_only=False)
    prediction = net2(x)
    return prediction


def restore_params():
    # restore only the parameters in net1 to net3
    net3 = Net(n_feature=1, n_hidden=10, n_output=1)

    # copy net1's parameters into net3
    net3.load_state_dict(torch.load('net_params.pkl'))
    prediction = net3(x)
    return prediction


# save net1
p1 = save()

# restore entire net (may slow)
p2 = restore_net()

# restore only the net parameters
p3 = restore_params()

print('final loss net1 %.4f' % F.mse_loss(p1, y).item())
print('restored net2 %.4f' % F.mse_loss(p2, y).item())
print('restored net3 %.4f' % F.mse_loss(p3, y).item())
