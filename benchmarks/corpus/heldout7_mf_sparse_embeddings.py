# corpus: recommender blog post: matrix factorization with nn.Embedding(sparse=True) user/item factors and biases, SparseAdam, ratings as (user, item, rating) triples in a custom Dataset, MSE, test RMSE on whole tensors each epoch, top-k recommendations after training
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(42)
np.random.seed(42)

n_users, n_items, n_factors = 100, 80, 16
n_epochs, batch_size, lr = 5, 64, 1e-2


def make_ratings(n_ratings=1500):
    # stands in for the MovieLens ml-100k u.data file: a low-rank matrix + noise, ratings 1..5
    true_u = np.random.normal(size=(n_users, 4))
    true_i = np.random.normal(size=(n_items, 4))
    users = np.random.randint(0, n_users, n_ratings)
    items = np.random.randint(0, n_items, n_ratings)
    scores = (true_u[users] * true_i[items]).sum(1) + np.random.normal(scale=0.5, size=n_ratings)
    ratings = np.clip(np.round(3 + scores), 1, 5).astype(np.float32)
    return users, items, ratings


class RatingsDataset(Dataset):
    def __init__(self, users, items, ratings):
        self.users = torch.LongTensor(users)
        self.items = torch.LongTensor(items)
        self.ratings = torch.FloatTensor(ratings)

    def __len__(self):
        return len(self.ratings)

    def __getitem__(self, idx):
        return self.users[idx], self.items[idx], self.ratings[idx]


class MatrixFactorization(nn.Module):
    def __init__(self, n_users, n_items, n_factors=20):
        super().__init__()
        self.user_factors = nn.Embedding(n_users, n_factors, sparse=True)
        self.item_factors = nn.Embedding(n_items, n_factors, sparse=True)
        self.user_biases = nn.Embedding(n_users, 1, sparse=True)
        self.item_biases = nn.Embedding(n_items, 1, sparse=True)
        self.user_factors.weight.data.uniform_(0, 0.05)
        self.item_factors.weight.data.uniform_(0, 0.05)
        self.user_biases.weight.data.zero_()
        self.item_biases.weight.data.zero_()
        self.global_bias = 3.0

    def forward(self, user, item):
        pred = self.global_bias + self.user_biases(user) + self.item_biases(item)
        pred += (self.user_factors(user) * self.item_factors(item)).sum(dim=1, keepdim=True)
        return pred.squeeze()


users, items, ratings = make_ratings()
split = int(0.8 * len(ratings))
train_ds = RatingsDataset(users[:split], items[:split], ratings[:split])
test_users = torch.LongTensor(users[split:])
test_items = torch.LongTensor(items[split:])
test_ratings = torch.FloatTensor(ratings[split:])

train_loader = DataLoader(train_ds, batch_size=batch_size, shuffle=True)

model = MatrixFactorization(n_users, n_items, n_factors=n_factors)
loss_func = nn.MSELoss()
# sparse gradients: only SparseAdam / SGD / Adagrad accept them
optimizer = torch.optim.SparseAdam(list(model.parameters()), lr=lr)

train_losses, test_rmses = [], []
for epoch in range(n_epochs):
    model.train()
    epoch_loss = 0.0
    for user, item, rating in train_loader:
        optimizer.zero_grad()
        prediction = model(user, item)
        loss = loss_func(prediction, rating)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item() * len(rating)
    epoch_loss /= len(train_ds)

    model.eval()
    with torch.no_grad():
        test_pred = model(test_users, test_items)
        rmse = torch.sqrt(loss_func(test_pred, test_ratings)).item()
    train_losses.append(epoch_loss)
    test_rmses.append(rmse)
    print(f"epoch {epoch + 1}/{n_epochs}  train mse {epoch_loss:.4f}  test rmse {rmse:.4f}")


def recommend(model, user_id, k=5):
    """Top-k items for a user, the ones already rated excluded."""
    with torch.no_grad():
        all_items = torch.arange(n_items)
        scores = model(torch.full_like(all_items, user_id), all_items)
        seen = torch.as_tensor(items[users == user_id])
        scores[seen] = -float("inf")
        return torch.topk(scores, k).indices.tolist()


for u in range(3):
    print(f"user {u}: recommended items {recommend(model, u)}")
np.save("mf_item_factors.npy", model.item_factors.weight.detach().numpy())
