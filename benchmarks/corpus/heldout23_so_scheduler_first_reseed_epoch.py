# corpus: StackOverflow "UserWarning: Detected call of lr_scheduler.step() before optimizer.step()" — device idiom, scheduler.step() at the top of every epoch (before any optimizer.step()), torch.manual_seed(epoch) inside the epoch loop "for reproducibility" (reseeds the shuffle and dropout each epoch), MultiStepLR, lr read from param_groups, test under no_grad after training
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
torch.manual_seed(123)

n_features = 10
w_true = torch.randn(n_features, 1)
X = torch.randn(300, n_features)
y = X @ w_true + 0.1 * torch.randn(300, 1)

train_loader = DataLoader(TensorDataset(X[:240], y[:240]), batch_size=40, shuffle=True)
test_loader = DataLoader(TensorDataset(X[240:], y[240:]), batch_size=60, shuffle=False)

model = nn.Sequential(
    nn.Linear(n_features, 32),
    nn.ReLU(),
    nn.Dropout(p=0.2),
    nn.Linear(32, 1),
)
model = model.to(device)

criterion = nn.MSELoss()
optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2, 4], gamma=0.1)

num_epochs = 5
for epoch in range(num_epochs):
    torch.manual_seed(epoch)
    scheduler.step()
    model.train()
    epoch_loss = 0.0
    for batch_x, batch_y in train_loader:
        batch_x = batch_x.to(device)
        batch_y = batch_y.to(device)

        optimizer.zero_grad()
        output = model(batch_x)
        loss = criterion(output, batch_y)
        loss.backward()
        optimizer.step()

        epoch_loss += loss.item() * batch_x.size(0)

    epoch_loss = epoch_loss / len(train_loader.dataset)
    print('Epoch {}/{} - loss: {:.6f} - lr: {}'.format(epoch + 1, num_epochs, epoch_loss, optimizer.param_groups[0]['lr']))

model.eval()
test_loss = 0.0
with torch.no_grad():
    for batch_x, batch_y in test_loader:
        batch_x, batch_y = batch_x.to(device), batch_y.to(device)
        test_loss += criterion(model(batch_x), batch_y).item() * batch_x.size(0)
print('Test MSE: {:.6f}'.format(test_loss / len(test_loader.dataset)))
