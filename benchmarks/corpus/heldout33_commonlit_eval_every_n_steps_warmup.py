# corpus: Kaggle NLP-regression notebook as .py (CommonLit style): Config class, tokenized dict batches, tiny mean-pool encoder, get_linear_schedule_with_warmup re-implemented with LambdaLR, tqdm train loop with AverageMeter + set_postfix, validation every `eval_steps` inside the epoch saving the best RMSE per fold, LOGGER, OOF and fold-averaged submission
#!/usr/bin/env python
# coding: utf-8

# # CommonLit Readability - tiny encoder baseline
#
# Version 7: eval every n steps (helps a lot, +0.01 CV)

# In[1]:


import os
import gc
import math
import random
import logging

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader
from tqdm.auto import tqdm


# In[2]:


class Config:
    seed = 1000
    n_folds = 3
    max_len = 24
    vocab_size = 300
    hidden = 32
    batch_size = 16
    epochs = 2
    lr = 2e-3
    weight_decay = 0.01
    warmup_ratio = 0.1
    eval_steps = 5
    output_dir = 'models'

os.makedirs(Config.output_dir, exist_ok=True)


# In[3]:


def get_logger(filename='train'):
    logger = logging.getLogger(__name__)
    logger.setLevel(logging.INFO)
    sh = logging.StreamHandler()
    sh.setFormatter(logging.Formatter('%(message)s'))
    fh = logging.FileHandler(f'{filename}.log')
    fh.setFormatter(logging.Formatter('%(message)s'))
    logger.addHandler(sh)
    logger.addHandler(fh)
    return logger

LOGGER = get_logger()


def set_seed(seed=42):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    os.environ['PYTHONHASHSEED'] = str(seed)

set_seed(Config.seed)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


# In[4]:


# tokenized excerpts (the tokenizer output, synthetic): ids, mask, target
N = 240
lengths = np.random.randint(8, Config.max_len + 1, N)
input_ids = np.zeros((N, Config.max_len), dtype=np.int64)
attention_mask = np.zeros((N, Config.max_len), dtype=np.int64)
for i, L in enumerate(lengths):
    input_ids[i, :L] = np.random.randint(1, Config.vocab_size, L)
    attention_mask[i, :L] = 1
# "readability": mean token id, standardized, plus noise
target = (input_ids.sum(1) / lengths - Config.vocab_size / 2) / 50 + 0.2 * np.random.randn(N)
target = target.astype(np.float32)
# bins for stratification
bins = np.digitize(target, np.quantile(target, [0.33, 0.66]))
test_ids = np.random.randint(1, Config.vocab_size, (30, Config.max_len))
test_mask = np.ones_like(test_ids)


# In[5]:


kfold = np.zeros(N, dtype=int)
for b in np.unique(bins):
    idx = np.where(bins == b)[0]
    np.random.shuffle(idx)
    kfold[idx] = np.arange(len(idx)) % Config.n_folds


# In[6]:


class CLRPDataset(Dataset):
    def __init__(self, ids, mask, targets=None):
        self.ids = ids
        self.mask = mask
        self.targets = targets

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, item):
        d = {
            'input_ids': torch.tensor(self.ids[item], dtype=torch.long),
            'attention_mask': torch.tensor(self.mask[item], dtype=torch.long),
        }
        if self.targets is not None:
            d['target'] = torch.tensor(self.targets[item], dtype=torch.float)
        return d


# In[7]:


class AttentionHead(nn.Module):
    def __init__(self, h_size, hidden_dim=16):
        super().__init__()
        self.W = nn.Linear(h_size, hidden_dim)
        self.V = nn.Linear(hidden_dim, 1)

    def forward(self, features, mask):
        att = self.V(torch.tanh(self.W(features))).squeeze(-1)
        att = att.masked_fill(mask == 0, -1e4)
        score = torch.softmax(att, dim=1).unsqueeze(-1)
        return (score * features).sum(1)


class CLRPModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(Config.vocab_size, Config.hidden, padding_idx=0)
        self.enc = nn.GRU(Config.hidden, Config.hidden, batch_first=True)
        self.head = AttentionHead(Config.hidden)
        self.dropout = nn.Dropout(0.1)
        self.regressor = nn.Linear(Config.hidden, 1)

    def forward(self, input_ids, attention_mask):
        x = self.emb(input_ids)
        x, _ = self.enc(x)
        x = self.head(x, attention_mask)
        x = self.dropout(x)
        return self.regressor(x).squeeze(-1)


# In[8]:


CLRPModel()


# In[9]:


class AverageMeter(object):
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, last_epoch=-1):
    # copied from transformers so the notebook runs offline
    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - current_step) /
                   float(max(1, num_training_steps - num_warmup_steps)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda, last_epoch)


def loss_fn(outputs, targets):
    return torch.sqrt(nn.MSELoss()(outputs, targets))


# In[10]:


def valid_fn(valid_loader, model, device):
    model.eval()
    losses = AverageMeter()
    preds = []
    with torch.no_grad():
        for batch in valid_loader:
            ids = batch['input_ids'].to(device)
            mask = batch['attention_mask'].to(device)
            y = batch['target'].to(device)
            out = model(ids, mask)
            loss = nn.MSELoss()(out, y)
            losses.update(loss.item(), ids.size(0))
            preds.append(out.cpu().numpy())
    return math.sqrt(losses.avg), np.concatenate(preds)


def train_fn(train_loader, valid_loader, model, optimizer, scheduler, device, fold, epoch, best_rmse):
    losses = AverageMeter()
    best_preds = None
    tk0 = tqdm(train_loader, total=len(train_loader), leave=False)
    for step, batch in enumerate(tk0):
        model.train()
        ids = batch['input_ids'].to(device)
        mask = batch['attention_mask'].to(device)
        y = batch['target'].to(device)

        optimizer.zero_grad()
        out = model(ids, mask)
        loss = loss_fn(out, y)
        loss.backward()
        optimizer.step()
        scheduler.step()

        losses.update(loss.item(), ids.size(0))
        tk0.set_postfix(loss=losses.avg, lr=scheduler.get_last_lr()[0])

        if (step + 1) % Config.eval_steps == 0 or step == len(train_loader) - 1:
            val_rmse, preds = valid_fn(valid_loader, model, device)
            LOGGER.info(f'fold {fold} epoch {epoch} step {step+1}: train rmse {losses.avg:.4f} valid rmse {val_rmse:.4f}')
            if val_rmse < best_rmse:
                LOGGER.info(f'  rmse improved {best_rmse:.4f} -> {val_rmse:.4f}, saving')
                best_rmse = val_rmse
                best_preds = preds
                torch.save(model.state_dict(), os.path.join(Config.output_dir, f'model_fold{fold}.bin'))
    return best_rmse, best_preds


# In[11]:


def run(fold):
    trn = np.where(kfold != fold)[0]
    val = np.where(kfold == fold)[0]
    train_ds = CLRPDataset(input_ids[trn], attention_mask[trn], target[trn])
    valid_ds = CLRPDataset(input_ids[val], attention_mask[val], target[val])
    train_loader = DataLoader(train_ds, batch_size=Config.batch_size, shuffle=True, drop_last=True)
    valid_loader = DataLoader(valid_ds, batch_size=Config.batch_size * 2, shuffle=False)

    model = CLRPModel().to(device)
    no_decay = ['bias', 'LayerNorm.weight']
    optimizer_grouped_parameters = [
        {'params': [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
         'weight_decay': Config.weight_decay},
        {'params': [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
         'weight_decay': 0.0},
    ]
    optimizer = torch.optim.AdamW(optimizer_grouped_parameters, lr=Config.lr)
    num_training_steps = len(train_loader) * Config.epochs
    scheduler = get_linear_schedule_with_warmup(
        optimizer, num_warmup_steps=int(Config.warmup_ratio * num_training_steps),
        num_training_steps=num_training_steps)

    best_rmse = np.inf
    oof = np.zeros(len(val))
    for epoch in range(Config.epochs):
        best_rmse, preds = train_fn(train_loader, valid_loader, model, optimizer, scheduler,
                                    device, fold, epoch, best_rmse)
        if preds is not None:
            oof = preds
    LOGGER.info(f'===== fold {fold} best rmse {best_rmse:.4f} =====')
    del model, optimizer, scheduler
    gc.collect()
    torch.cuda.empty_cache()
    return val, oof, best_rmse


# In[12]:


oof = np.zeros(N)
fold_scores = []
for fold in range(Config.n_folds):
    val_idx, oof_fold, score = run(fold)
    oof[val_idx] = oof_fold
    fold_scores.append(score)

cv = np.sqrt(np.mean((oof - target) ** 2))
LOGGER.info(f'fold scores {np.round(fold_scores, 4)}  CV {cv:.4f}')


# In[13]:


# Inference
test_loader = DataLoader(CLRPDataset(test_ids, test_mask), batch_size=32, shuffle=False)
all_preds = []
for fold in range(Config.n_folds):
    model = CLRPModel().to(device)
    model.load_state_dict(torch.load(os.path.join(Config.output_dir, f'model_fold{fold}.bin')))
    model.eval()
    fold_preds = []
    with torch.no_grad():
        for batch in test_loader:
            fold_preds.append(model(batch['input_ids'].to(device), batch['attention_mask'].to(device)).cpu().numpy())
    all_preds.append(np.concatenate(fold_preds))
predictions = np.mean(all_preds, axis=0)


# In[14]:


with open('submission.csv', 'w') as f:
    f.write('id,target\n')
    for i, p in enumerate(predictions):
        f.write(f'{i:06d},{p:.5f}\n')
predictions[:5]
