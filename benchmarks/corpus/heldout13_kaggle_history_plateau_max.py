# corpus: Kaggle image-classification kernel: CFG dict, history = {'train_loss': [], 'val_loss': [], 'val_acc': []}, tqdm(enumerate(loader), total=len(loader), leave=False), ReduceLROnPlateau(mode='max') on val accuracy, early-stopping counter, best weights copy.deepcopy(model.state_dict()) restored at the end, history saved as json
import copy
import json
import random
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from tqdm import tqdm

CFG = {
    'seed': 42,
    'img_size': 16,
    'batch_size': 32,
    'epochs': 6,
    'lr': 3e-3,
    'patience': 2,
    'es_patience': 3,
    'num_classes': 5,
}


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True


seed_everything(CFG['seed'])
device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')
print(f'Using device: {device}')


class LeafDataset(Dataset):
    def __init__(self, images, labels):
        self.images = images
        self.labels = labels

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = self.images[idx]
        label = self.labels[idx]
        return img, label


n = 320
images = torch.randn(n, 3, CFG['img_size'], CFG['img_size'])
labels = torch.randint(0, CFG['num_classes'], (n,))
images[torch.arange(n), labels % 3] += 0.5  # make it learnable-ish

train_ds = LeafDataset(images[:256], labels[:256])
valid_ds = LeafDataset(images[256:], labels[256:])
train_loader = DataLoader(train_ds, batch_size=CFG['batch_size'], shuffle=True, num_workers=0)
valid_loader = DataLoader(valid_ds, batch_size=CFG['batch_size'] * 2, shuffle=False, num_workers=0)


class SimpleCNN(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(32, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


model = SimpleCNN(CFG['num_classes']).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=CFG['lr'])
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode='max', factor=0.5, patience=CFG['patience'])

history = {'train_loss': [], 'val_loss': [], 'val_acc': [], 'lr': []}
best_acc = 0.0
best_model_wts = copy.deepcopy(model.state_dict())
early_stop_counter = 0
since = time.time()

for epoch in range(CFG['epochs']):
    model.train()
    running_loss = 0.0
    pbar = tqdm(enumerate(train_loader), total=len(train_loader), leave=False, desc=f'Epoch {epoch + 1}')
    for step, (imgs, targets) in pbar:
        imgs = imgs.to(device)
        targets = targets.to(device)

        optimizer.zero_grad()
        outputs = model(imgs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()

        running_loss += loss.item() * imgs.size(0)
        pbar.set_postfix(loss=f'{loss.item():.4f}')
    epoch_loss = running_loss / len(train_ds)

    model.eval()
    val_loss = 0.0
    correct = 0
    with torch.no_grad():
        for imgs, targets in tqdm(valid_loader, total=len(valid_loader), leave=False):
            imgs = imgs.to(device)
            targets = targets.to(device)
            outputs = model(imgs)
            val_loss += criterion(outputs, targets).item() * imgs.size(0)
            preds = outputs.argmax(1)
            correct += (preds == targets).sum().item()
    val_loss /= len(valid_ds)
    val_acc = correct / len(valid_ds)

    scheduler.step(val_acc)
    current_lr = optimizer.param_groups[0]['lr']

    history['train_loss'].append(epoch_loss)
    history['val_loss'].append(val_loss)
    history['val_acc'].append(val_acc)
    history['lr'].append(current_lr)

    print(f'Epoch {epoch + 1}/{CFG["epochs"]} | train_loss {epoch_loss:.4f} | val_loss {val_loss:.4f} '
          f'| val_acc {val_acc:.4f} | lr {current_lr:.2e}')

    if val_acc > best_acc:
        best_acc = val_acc
        best_model_wts = copy.deepcopy(model.state_dict())
        torch.save(best_model_wts, 'best_model.pth')
        early_stop_counter = 0
        print(f'  >> best model saved (acc {best_acc:.4f})')
    else:
        early_stop_counter += 1
        if early_stop_counter >= CFG['es_patience']:
            print(f'Early stopping at epoch {epoch + 1}')
            break

time_elapsed = time.time() - since
print(f'Training complete in {time_elapsed // 60:.0f}m {time_elapsed % 60:.0f}s')
print(f'Best val Acc: {best_acc:4f}')

# load best model weights
model.load_state_dict(best_model_wts)

with open('history.json', 'w') as f:
    json.dump(history, f)

model.eval()
with torch.no_grad():
    probs = torch.softmax(model(valid_ds.images[:8].to(device)), dim=1)
print('sample predictions:', probs.argmax(1).tolist())
