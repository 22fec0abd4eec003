# corpus: Kaggle tabular-regression notebook as .py: config = dict(...), seed_everything, dict-batch Dataset, train_fn/valid_fn with torch.cuda.amp enabled=config['apex'], gradient accumulation, get_scheduler(cfg, optimizer) by name (ReduceLROnPlateau), early stopping, 5-fold OOF RMSE, submission.csv
#!/usr/bin/env python
# coding: utf-8

# ## Tabular NN baseline (regression)
# Simple MLP on the engineered features. CV ~ (whatever it says on the public LB)

# In[1]:


import os, gc, random, time
import numpy as np
import torch


# In[2]:


config = dict(
    seed = 2021,
    n_folds = 5,
    epochs = 6,
    batch_size = 64,
    lr = 3e-3,
    weight_decay = 1e-5,
    scheduler = 'ReduceLROnPlateau',   # 'CosineAnnealingLR' / 'ReduceLROnPlateau'
    factor = 0.5,
    patience = 1,
    min_lr = 1e-5,
    T_max = 6,
    apex = False,
    gradient_accumulation_steps = 2,
    hidden = 64,
    dropout = 0.1,
    early_stop = 3,
    n_features = 12,
    debug = False,
)
config


# In[3]:


def seed_everything(seed=42):
    random.seed(seed)
    os.environ['PYTHONHASHSEED'] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False

seed_everything(config['seed'])
DEVICE = 'cuda' if torch.cuda.is_available() else 'cpu'
DEVICE


# In[4]:


# pretend this came from pd.read_csv('../input/train.csv') after feature engineering
N_TRAIN, N_TEST = 400, 100
feature_cols = [f'f_{i}' for i in range(config['n_features'])]
X = np.random.randn(N_TRAIN, config['n_features']).astype(np.float32)
w_true = np.random.randn(config['n_features']).astype(np.float32)
y = (X @ w_true + 0.1 * np.random.randn(N_TRAIN)).astype(np.float32)
X_test = np.random.randn(N_TEST, config['n_features']).astype(np.float32)
test_ids = np.arange(N_TEST) + 100000
X.shape, y.shape, X_test.shape


# In[5]:


# KFold
kf_idx = np.random.permutation(N_TRAIN)
fold_of = np.zeros(N_TRAIN, dtype=int)
for f, chunk in enumerate(np.array_split(kf_idx, config['n_folds'])):
    fold_of[chunk] = f
np.bincount(fold_of)


# In[6]:


import torch.nn as nn
from torch.utils.data import Dataset, DataLoader
from torch.cuda.amp import autocast, GradScaler


class TabDataset(Dataset):
    def __init__(self, X, y=None):
        self.X = X
        self.y = y

    def __len__(self):
        return len(self.X)

    def __getitem__(self, idx):
        d = {'x': torch.tensor(self.X[idx], dtype=torch.float)}
        if self.y is not None:
            d['y'] = torch.tensor(self.y[idx], dtype=torch.float)
        return d


# In[7]:


class TabModel(nn.Module):
    def __init__(self, n_in, hidden, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.BatchNorm1d(n_in),
            nn.Linear(n_in, hidden),
            nn.SiLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, hidden // 2),
            nn.SiLU(),
            nn.Linear(hidden // 2, 1),
        )

    def forward(self, x):
        return self.net(x).squeeze(-1)


model = TabModel(config['n_features'], config['hidden'], config['dropout'])
model


# In[8]:


def get_scheduler(cfg, optimizer):
    if cfg['scheduler'] == 'ReduceLROnPlateau':
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer, mode='min', factor=cfg['factor'], patience=cfg['patience'], min_lr=cfg['min_lr'])
    elif cfg['scheduler'] == 'CosineAnnealingLR':
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg['T_max'], eta_min=cfg['min_lr'])
    else:
        scheduler = None
    return scheduler


def rmse(y_true, y_pred):
    return np.sqrt(np.mean((y_true - y_pred) ** 2))


# In[9]:


def train_fn(loader, model, optimizer, scheduler, device):
    model.train()
    scaler = GradScaler(enabled=config['apex'])
    losses = []
    optimizer.zero_grad()
    for i, batch in enumerate(loader):
        x = batch['x'].to(device)
        y = batch['y'].to(device)
        with autocast(enabled=config['apex']):
            pred = model(x)
            loss = nn.MSELoss()(pred, y)
            loss = loss / config['gradient_accumulation_steps']
        scaler.scale(loss).backward()
        if (i + 1) % config['gradient_accumulation_steps'] == 0 or (i + 1) == len(loader):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        losses.append(loss.item() * config['gradient_accumulation_steps'])
    return np.mean(losses)


def valid_fn(loader, model, device):
    model.eval()
    losses, preds = [], []
    with torch.no_grad():
        for batch in loader:
            x = batch['x'].to(device)
            y = batch['y'].to(device)
            pred = model(x)
            loss = nn.MSELoss()(pred, y)
            losses.append(loss.item())
            preds.append(pred.detach().cpu().numpy())
    return np.mean(losses), np.concatenate(preds)


# In[10]:


def run_fold(fold):
    print(f'===== FOLD {fold} =====')
    trn = np.where(fold_of != fold)[0]
    val = np.where(fold_of == fold)[0]
    train_loader = DataLoader(TabDataset(X[trn], y[trn]), batch_size=config['batch_size'],
                              shuffle=True, drop_last=True, num_workers=0)
    valid_loader = DataLoader(TabDataset(X[val], y[val]), batch_size=config['batch_size'] * 2,
                              shuffle=False, num_workers=0)

    model = TabModel(config['n_features'], config['hidden'], config['dropout']).to(DEVICE)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config['lr'], weight_decay=config['weight_decay'])
    scheduler = get_scheduler(config, optimizer)

    best = np.inf
    bad_epochs = 0
    oof = None
    for epoch in range(config['epochs']):
        t0 = time.time()
        train_loss = train_fn(train_loader, model, optimizer, scheduler, DEVICE)
        valid_loss, preds = valid_fn(valid_loader, model, DEVICE)
        if config['scheduler'] == 'ReduceLROnPlateau':
            scheduler.step(valid_loss)
        else:
            scheduler.step()
        score = rmse(y[val], preds)
        lr = optimizer.param_groups[0]['lr']
        print(f'epoch {epoch:02d} | train {train_loss:.4f} | valid {valid_loss:.4f} | rmse {score:.4f} | lr {lr:.2e}')
        if score < best:
            best = score
            bad_epochs = 0
            oof = preds
            torch.save(model.state_dict(), f'fold{fold}_best.pth')
        else:
            bad_epochs += 1
            if bad_epochs >= config['early_stop']:
                print('early stopping')
                break
    del model, optimizer
    gc.collect()
    return val, oof, best


# In[11]:


# %%time  (was a cell magic)
oof = np.zeros(N_TRAIN)
scores = []
for fold in range(config['n_folds']):
    val_idx, oof_pred, best = run_fold(fold)
    oof[val_idx] = oof_pred
    scores.append(best)

print('fold scores:', np.round(scores, 4))
print(f'CV RMSE: {rmse(y, oof):.4f}')


# In[12]:


# inference: average the fold models
test_loader = DataLoader(TabDataset(X_test), batch_size=256, shuffle=False)
model = TabModel(config['n_features'], config['hidden'], config['dropout']).to(DEVICE)
test_preds = np.zeros(N_TEST)
for fold in range(config['n_folds']):
    model.load_state_dict(torch.load(f'fold{fold}_best.pth'))
    model.eval()
    p = []
    with torch.no_grad():
        for batch in test_loader:
            p.append(model(batch['x'].to(DEVICE)).cpu().numpy())
    test_preds += np.concatenate(p) / config['n_folds']


# In[13]:


with open('submission.csv', 'w') as f:
    f.write('id,target\n')
    for i, p in zip(test_ids, test_preds):
        f.write(f'{i},{p:.6f}\n')
test_preds[:5]
