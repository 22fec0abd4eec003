# corpus: Kaggle-style pseudo-labelling: a train_model() helper fitted on the labeled set, confident predictions on the unlabeled set kept above a threshold, then a second fit on labeled + pseudo-labeled data (ConcatDataset), test accuracy of both stages
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import ConcatDataset, DataLoader, TensorDataset

SEED = 2024
EPOCHS = 6
BATCH_SIZE = 32
LR = 1e-2
THRESHOLD = 0.9
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

torch.manual_seed(SEED)
np.random.seed(SEED)

# --- data -------------------------------------------------------------------
n_features, n_classes = 8, 3
means = np.random.randn(n_classes, n_features) * 0.8
def sample(n):
    y = np.random.randint(0, n_classes, n)
    x = means[y] + np.random.randn(n, n_features)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.long)

X_lab, y_lab = sample(60)
X_unlab, y_unlab_hidden = sample(600)
X_test, y_test = sample(200)

labeled_ds = TensorDataset(X_lab, y_lab)
test_loader = DataLoader(TensorDataset(X_test, y_test), batch_size=100)


def build_model():
    return nn.Sequential(
        nn.Linear(n_features, 32), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(32, 32), nn.ReLU(),
        nn.Linear(32, n_classes),
    ).to(DEVICE)


def accuracy(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(DEVICE), yb.to(DEVICE)
            correct += (model(xb).argmax(1) == yb).sum().item()
    return correct / len(loader.dataset)


def train_model(model, dataset, epochs=EPOCHS, tag=""):
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    criterion = nn.CrossEntropyLoss()
    losses = []
    for epoch in range(epochs):
        model.train()
        epoch_loss = 0.0
        for xb, yb in loader:
            xb, yb = xb.to(DEVICE), yb.to(DEVICE)
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item() * xb.size(0)
        losses.append(epoch_loss / len(dataset))
        print(f"{tag} epoch {epoch + 1}/{epochs} loss {losses[-1]:.4f} test acc {accuracy(model, test_loader):.3f}")
    return model, losses


@torch.no_grad()
def predict_proba(model, X):
    model.eval()
    return torch.softmax(model(X.to(DEVICE)), dim=1).cpu()


# --- stage 1: labeled data only ------------------------------------------------
teacher, stage1_losses = train_model(build_model(), labeled_ds, tag="[stage1]")
acc1 = accuracy(teacher, test_loader)

# --- pseudo labels -------------------------------------------------------------
probs = predict_proba(teacher, X_unlab)
conf, pseudo = probs.max(1)
keep = conf > THRESHOLD
print(f"kept {keep.sum().item()}/{len(keep)} pseudo labels, "
      f"their accuracy {(pseudo[keep] == y_unlab_hidden[keep]).float().mean().item():.3f}")
pseudo_ds = TensorDataset(X_unlab[keep], pseudo[keep])

# --- stage 2: labeled + pseudo-labeled ----------------------------------------
student, stage2_losses = train_model(build_model(), ConcatDataset([labeled_ds, pseudo_ds]), epochs=4, tag="[stage2]")
acc2 = accuracy(student, test_loader)

print(f"test accuracy: stage1 {acc1:.3f} -> stage2 {acc2:.3f}")
torch.save(student.state_dict(), "student_pseudo.pt")
np.savez("pseudo_label_run.npz", stage1=np.array(stage1_losses), stage2=np.array(stage2_losses),
         kept=keep.numpy(), pseudo=pseudo.numpy())
