# corpus: Analytics Vidhya / TDS binary classification on tabular data: train_test_split + StandardScaler by hand, TrainData / TestData classes, BCEWithLogitsLoss, binary_acc(y_pred, y_test) with torch.round(torch.sigmoid()), model.train() at the top of the epoch loop, confusion matrix + classification summary
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(7)
np.random.seed(7)

# df = pd.read_csv("spine_dataset.csv"): 12 features, Abnormal/Normal class -> generated
n = 310
X = np.random.randn(n, 12).astype(np.float32) * 3 + 10
logits = (X[:, 0] - 10) * 0.8 - (X[:, 3] - 10) * 0.6 + np.random.randn(n).astype(np.float32)
y = (logits > 0).astype(np.float32)

# train_test_split(X, y, test_size=0.33, random_state=69)
idx = np.random.permutation(n)
n_test = int(np.ceil(0.33 * n))
X_train, X_test = X[idx[n_test:]], X[idx[:n_test]]
y_train, y_test = y[idx[n_test:]], y[idx[:n_test]]

# scaler = StandardScaler(); X_train = scaler.fit_transform(X_train); X_test = scaler.transform(X_test)
mu, sigma = X_train.mean(axis=0), X_train.std(axis=0)
X_train = (X_train - mu) / sigma
X_test = (X_test - mu) / sigma

EPOCHS = 20
BATCH_SIZE = 64
LEARNING_RATE = 0.001


## train data
class TrainData(Dataset):

    def __init__(self, X_data, y_data):
        self.X_data = X_data
        self.y_data = y_data

    def __getitem__(self, index):
        return self.X_data[index], self.y_data[index]

    def __len__(self):
        return len(self.X_data)


train_data = TrainData(torch.FloatTensor(X_train), torch.FloatTensor(y_train))


## test data
class TestData(Dataset):

    def __init__(self, X_data):
        self.X_data = X_data

    def __getitem__(self, index):
        return self.X_data[index]

    def __len__(self):
        return len(self.X_data)


test_data = TestData(torch.FloatTensor(X_test))

train_loader = DataLoader(dataset=train_data, batch_size=BATCH_SIZE, shuffle=True)
test_loader = DataLoader(dataset=test_data, batch_size=1)


class BinaryClassification(nn.Module):
    def __init__(self):
        super(BinaryClassification, self).__init__()
        # Number of input features is 12.
        self.layer_1 = nn.Linear(12, 64)
        self.layer_2 = nn.Linear(64, 64)
        self.layer_out = nn.Linear(64, 1)

        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(p=0.1)
        self.batchnorm1 = nn.BatchNorm1d(64)
        self.batchnorm2 = nn.BatchNorm1d(64)

    def forward(self, inputs):
        x = self.relu(self.layer_1(inputs))
        x = self.batchnorm1(x)
        x = self.relu(self.layer_2(x))
        x = self.batchnorm2(x)
        x = self.dropout(x)
        x = self.layer_out(x)

        return x


device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
print(device)

model = BinaryClassification()
model.to(device)
print(model)
criterion = nn.BCEWithLogitsLoss()
optimizer = optim.Adam(model.parameters(), lr=LEARNING_RATE)


def binary_acc(y_pred, y_test):
    y_pred_tag = torch.round(torch.sigmoid(y_pred))

    correct_results_sum = (y_pred_tag == y_test).sum().float()
    acc = correct_results_sum / y_test.shape[0]
    acc = torch.round(acc * 100)

    return acc


model.train()
for e in range(1, EPOCHS + 1):
    epoch_loss = 0
    epoch_acc = 0
    for X_batch, y_batch in train_loader:
        X_batch, y_batch = X_batch.to(device), y_batch.to(device)
        optimizer.zero_grad()

        y_pred = model(X_batch)

        loss = criterion(y_pred, y_batch.unsqueeze(1))
        acc = binary_acc(y_pred, y_batch.unsqueeze(1))

        loss.backward()
        optimizer.step()

        epoch_loss += loss.item()
        epoch_acc += acc.item()

    print(f'Epoch {e+0:03}: | Loss: {epoch_loss/len(train_loader):.5f} | Acc: {epoch_acc/len(train_loader):.3f}')

y_pred_list = []
model.eval()
with torch.no_grad():
    for X_batch in test_loader:
        X_batch = X_batch.to(device)
        y_test_pred = model(X_batch)
        y_test_pred = torch.sigmoid(y_test_pred)
        y_pred_tag = torch.round(y_test_pred)
        y_pred_list.append(y_pred_tag.cpu().numpy())

y_pred_list = [a.squeeze().tolist() for a in y_pred_list]
y_pred_arr = np.array(y_pred_list)

# confusion_matrix(y_test, y_pred_list)
tn = int(((y_pred_arr == 0) & (y_test == 0)).sum())
fp = int(((y_pred_arr == 1) & (y_test == 0)).sum())
fn = int(((y_pred_arr == 0) & (y_test == 1)).sum())
tp = int(((y_pred_arr == 1) & (y_test == 1)).sum())
print([[tn, fp], [fn, tp]])

# classification_report(y_test, y_pred_list)
for name, t, p_, f in (("0.0", tn, tn + fn, tn + fp), ("1.0", tp, tp + fp, tp + fn)):
    precision = t / p_ if p_ else 0.0
    recall = t / f if f else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    print(f"{name:>8} {precision:10.2f} {recall:10.2f} {f1:10.2f} {f:10d}")
print(f"accuracy {(tp + tn) / len(y_test):.2f}")
torch.save(model.state_dict(), "binary_classifier.pt")
