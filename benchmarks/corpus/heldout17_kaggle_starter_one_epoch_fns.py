# corpus: Kaggle starter notebook exported to .py (`# In[ ]:` cells): globals, train_one_epoch(model, loader, optimizer, criterion, device) / valid_one_epoch returning (loss, acc), CosineAnnealingLR, early-stopping counter, best model per fold file
#!/usr/bin/env python
# coding: utf-8

# # Simple CNN baseline [train]
# Quick baseline for the competition. Upvote if you find it useful!

# In[1]:


import gc
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from tqdm import tqdm

# In[2]:


SEED = 2021
FOLD = 0
EPOCHS = 6
BATCH_SIZE = 32
LR = 3e-3
PATIENCE = 2
NUM_CLASSES = 5
DEBUG = False
OUTPUT_DIR = './'

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def seed_everything(seed):
    random.seed(seed)
    os.environ['PYTHONHASHSEED'] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


seed_everything(SEED)


# In[3]:


# train.csv stand-in: image ids, labels and a fold column
n_images = 240
train_df = {
    'image_id': np.arange(n_images),
    'label': np.random.randint(0, NUM_CLASSES, n_images),
    'fold': np.arange(n_images) % 5,
}
images = np.random.rand(n_images, 3, 16, 16).astype(np.float32)
images[np.arange(n_images), train_df['label'] % 3] += 0.5


class LeafDataset(Dataset):
    def __init__(self, ids, labels):
        self.ids = ids
        self.labels = labels

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, idx):
        image = torch.from_numpy(images[self.ids[idx]])
        label = torch.tensor(self.labels[idx]).long()
        return image, label


# In[4]:


class SimpleCNN(nn.Module):
    def __init__(self, num_classes=NUM_CLASSES):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(32, num_classes))

    def forward(self, x):
        return self.head(self.features(x))


# In[5]:


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    running_loss = 0.0
    correct = 0
    total = 0
    for images, labels in tqdm(loader, total=len(loader), disable=True):
        images = images.to(device)
        labels = labels.to(device)

        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()

        running_loss += loss.item() * images.size(0)
        correct += (outputs.argmax(1) == labels).sum().item()
        total += labels.size(0)
    return running_loss / total, correct / total


def valid_one_epoch(model, loader, criterion, device):
    model.eval()
    running_loss = 0.0
    correct = 0
    total = 0
    with torch.no_grad():
        for images, labels in loader:
            images = images.to(device)
            labels = labels.to(device)
            outputs = model(images)
            loss = criterion(outputs, labels)
            running_loss += loss.item() * images.size(0)
            correct += (outputs.argmax(1) == labels).sum().item()
            total += labels.size(0)
    return running_loss / total, correct / total


# In[6]:


trn_idx = np.where(train_df['fold'] != FOLD)[0]
val_idx = np.where(train_df['fold'] == FOLD)[0]
if DEBUG:
    trn_idx, val_idx = trn_idx[:64], val_idx[:32]

train_dataset = LeafDataset(train_df['image_id'][trn_idx], train_df['label'][trn_idx])
valid_dataset = LeafDataset(train_df['image_id'][val_idx], train_df['label'][val_idx])
train_loader = DataLoader(train_dataset, batch_size=BATCH_SIZE, shuffle=True, num_workers=0, drop_last=True)
valid_loader = DataLoader(valid_dataset, batch_size=BATCH_SIZE * 2, shuffle=False, num_workers=0)

model = SimpleCNN().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=1e-6)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS, eta_min=1e-5)
criterion = nn.CrossEntropyLoss()


# In[7]:


best_loss = np.inf
counter = 0
for epoch in range(EPOCHS):
    start = time.time()
    train_loss, train_acc = train_one_epoch(model, train_loader, optimizer, criterion, device)
    valid_loss, valid_acc = valid_one_epoch(model, valid_loader, criterion, device)
    scheduler.step()

    print(f"Epoch {epoch+1}/{EPOCHS} - train_loss: {train_loss:.4f} train_acc: {train_acc:.4f} "
          f"- valid_loss: {valid_loss:.4f} valid_acc: {valid_acc:.4f} - lr: {optimizer.param_groups[0]['lr']:.6f}")

    if valid_loss < best_loss:
        print(f"Validation loss improved ({best_loss:.4f} --> {valid_loss:.4f}). Saving model ...")
        best_loss = valid_loss
        counter = 0
        torch.save(model.state_dict(), os.path.join(OUTPUT_DIR, f'simplecnn_fold{FOLD}_best.pth'))
    else:
        counter += 1
        print(f"EarlyStopping counter: {counter} out of {PATIENCE}")
        if counter >= PATIENCE:
            print("Early stopping")
            break

del model, optimizer
gc.collect()


# In[8]:


print(f"Best valid loss fold {FOLD}: {best_loss:.4f}")
