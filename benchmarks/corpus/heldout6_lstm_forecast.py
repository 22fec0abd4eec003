# corpus: time-series blog: numpy sliding windows, MinMax scaling by hand, LSTM regressor on whole tensors, print every 100 epochs, predictions on all data after training
import numpy as np
import torch
import torch.nn as nn

np.random.seed(0)
torch.manual_seed(0)
series = np.sin(np.linspace(0, 20, 300)) + 0.1 * np.random.randn(300)
series = (series - series.min()) / (series.max() - series.min())


def sliding_windows(data, seq_length):
    x, y = [], []
    for i in range(len(data) - seq_length - 1):
        x.append(data[i : i + seq_length])
        y.append(data[i + seq_length])
    return np.array(x), np.array(y)


seq_length = 8
x, y = sliding_windows(series, seq_length)
train_size = int(len(y) * 0.67)
dataX = torch.Tensor(np.array(x)).unsqueeze(-1)
dataY = torch.Tensor(np.array(y)).unsqueeze(-1)
trainX = torch.Tensor(np.array(x[0:train_size])).unsqueeze(-1)
trainY = torch.Tensor(np.array(y[0:train_size])).unsqueeze(-1)


class LSTM(nn.Module):
    def __init__(self, num_classes, input_size, hidden_size, num_layers):
        super(LSTM, self).__init__()
        self.num_layers = num_layers
        self.hidden_size = hidden_size
        self.lstm = nn.LSTM(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        h_0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        c_0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        ula, (h_out, _) = self.lstm(x, (h_0, c_0))
        h_out = h_out.view(-1, self.hidden_size)
        return self.fc(h_out)


num_epochs = 300
learning_rate = 0.01
lstm = LSTM(1, 1, 2, 1)
criterion = torch.nn.MSELoss()
optimizer = torch.optim.Adam(lstm.parameters(), lr=learning_rate)
for epoch in range(num_epochs):
    outputs = lstm(trainX)
    optimizer.zero_grad()
    loss = criterion(outputs, trainY)
    loss.backward()
    optimizer.step()
    if epoch % 100 == 0:
        print("Epoch: %d, loss: %1.5f" % (epoch, loss.item()))

lstm.eval()
train_predict = lstm(dataX)
data_predict = train_predict.data.numpy()
print("rmse", float(np.sqrt(np.mean((data_predict - dataY.numpy()) ** 2))))
