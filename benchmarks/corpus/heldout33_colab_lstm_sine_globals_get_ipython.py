# corpus: Colab notebook as .py (time-series LSTM): get_ipython() magics guarded by try/except NameError, imports spread over cells, train_one_epoch() / evaluate() reading notebook globals, bare-expression display cells, `%%time` cell turned into a comment, train/val loss lists, best model reloaded, guarded matplotlib
# coding: utf-8

# # Predicting a (noisy) sine wave with an LSTM
# Colab notebook for my ML class project

# In[1]:


try:
    get_ipython().run_line_magic('matplotlib', 'inline')
    get_ipython().system('pip install -q torchinfo')
except NameError:
    pass  # running as a script


# In[2]:


import numpy as np
import torch


# In[3]:


torch.manual_seed(7)
np.random.seed(7)

t = np.linspace(0, 60, 1200)
series = np.sin(t) + 0.1 * np.random.randn(len(t))
series = series.astype(np.float32)
series.shape


# In[4]:


WINDOW = 20

def make_windows(s, window):
    xs, ys = [], []
    for i in range(len(s) - window):
        xs.append(s[i:i + window])
        ys.append(s[i + window])
    return np.array(xs), np.array(ys)

X, y = make_windows(series, WINDOW)
split = int(0.8 * len(X))
X_train, y_train = X[:split], y[:split]
X_val, y_val = X[split:], y[split:]
X_train.shape, X_val.shape


# In[5]:


from torch.utils.data import TensorDataset, DataLoader

train_data = TensorDataset(torch.from_numpy(X_train).unsqueeze(-1), torch.from_numpy(y_train).unsqueeze(-1))
val_data = TensorDataset(torch.from_numpy(X_val).unsqueeze(-1), torch.from_numpy(y_val).unsqueeze(-1))

batch_size = 64
train_loader = DataLoader(train_data, shuffle=False, batch_size=batch_size)  # time series -> no shuffle (?)
val_loader = DataLoader(val_data, shuffle=False, batch_size=batch_size)


# In[6]:


import torch.nn as nn

class LSTMModel(nn.Module):
    def __init__(self, input_size=1, hidden_size=24, num_layers=1, output_size=1):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(x.device)
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(x.device)
        out, _ = self.lstm(x, (h0, c0))
        out = self.fc(out[:, -1, :])
        return out


# In[7]:


is_cuda = torch.cuda.is_available()
if is_cuda:
    device = torch.device("cuda")
    print("GPU is available")
else:
    device = torch.device("cpu")
    print("GPU not available, CPU used")


# In[8]:


model = LSTMModel()
model.to(device)
model


# In[9]:


lr = 0.01
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=lr)
n_epochs = 5


# In[10]:


def train_one_epoch():
    model.train()
    epoch_loss = 0.0
    for inputs, labels in train_loader:
        inputs, labels = inputs.to(device), labels.to(device)
        optimizer.zero_grad()
        output = model(inputs)
        loss = criterion(output, labels)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5)
        optimizer.step()
        epoch_loss += loss.item() * inputs.size(0)
    return epoch_loss / len(train_loader.dataset)


def evaluate():
    model.eval()
    val_loss = 0.0
    with torch.no_grad():
        for inputs, labels in val_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            output = model(inputs)
            val_loss += criterion(output, labels).item() * inputs.size(0)
    return val_loss / len(val_loader.dataset)


# In[11]:


# %%time
train_losses = []
val_losses = []
valid_loss_min = np.inf

for epoch in range(1, n_epochs + 1):
    train_loss = train_one_epoch()
    val_loss = evaluate()
    train_losses.append(train_loss)
    val_losses.append(val_loss)
    print("Epoch: {}/{}...".format(epoch, n_epochs),
          "Loss: {:.6f}...".format(train_loss),
          "Val Loss: {:.6f}".format(val_loss))
    if val_loss <= valid_loss_min:
        torch.save(model.state_dict(), './state_dict.pt')
        print('Validation loss decreased ({:.6f} --> {:.6f}).  Saving model ...'.format(valid_loss_min, val_loss))
        valid_loss_min = val_loss


# In[12]:


try:
    import matplotlib.pyplot as plt
    plt.figure(figsize=(8, 4))
    plt.plot(train_losses, label='train')
    plt.plot(val_losses, label='val')
    plt.legend()
    plt.show()
except ImportError:
    pass


# In[13]:


# Loading the best model
model.load_state_dict(torch.load('./state_dict.pt'))


# In[14]:


model.eval()
with torch.no_grad():
    preds = model(torch.from_numpy(X_val).unsqueeze(-1).to(device)).cpu().numpy().ravel()
mse = np.mean((preds - y_val) ** 2)
print(f"val MSE of best model: {mse:.5f}")


# In[15]:


preds[:10]


# In[16]:


np.savetxt('val_predictions.csv', np.stack([y_val, preds], 1), delimiter=',', fmt='%.5f', header='y,pred')
