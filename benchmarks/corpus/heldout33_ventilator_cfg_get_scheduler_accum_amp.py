# corpus: Kaggle sequence-regression notebook as .py (Ventilator style): CFG class with apex / gradient_accumulation_steps / scheduler name, top-level get_scheduler(cfg, optimizer), get_logger() -> train.log, train_fn(fold, train_loader, model, criterion, optimizer, epoch, scheduler, device) with GradScaler(enabled=CFG.apex) and batch-stepped cosine, valid_fn with masked L1, train_loop(folds, fold) returning OOF, get_result, trn_fold subset, fold-averaged test predictions, submission.csv
#!/usr/bin/env python
# coding: utf-8

# In[1]:


# ====================================================
# CFG
# ====================================================
class CFG:
    competition='ventilator'
    _wandb_kernel='nakama'
    apex=False
    print_freq=10
    num_workers=0
    model_name='rnn'
    scheduler='CosineAnnealingLR' # ['linear', 'cosine', 'CosineAnnealingLR', 'ReduceLROnPlateau']
    batch_scheduler=True
    factor=0.5 # ReduceLROnPlateau
    patience=2 # ReduceLROnPlateau
    eps=1e-6 # ReduceLROnPlateau
    T_max=20 # CosineAnnealingLR
    epochs=3
    max_grad_norm=1000
    gradient_accumulation_steps=2
    hidden_size=32
    lr=5e-3
    min_lr=1e-5
    weight_decay=1e-6
    batch_size=16
    n_fold=4
    trn_fold=[0, 1]
    cate_seq_cols=['R', 'C']
    cont_seq_cols=['time_step', 'u_in', 'u_out']
    train=True
    inference=True
    debug=False
    wandb=False


# In[2]:


# ====================================================
# Library
# ====================================================
import os
import gc
import sys
import time
import math
import random
from contextlib import contextmanager

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torch.optim.lr_scheduler import CosineAnnealingLR, ReduceLROnPlateau
from torch.cuda.amp import GradScaler, autocast

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

OUTPUT_DIR = './'


# In[3]:


# ====================================================
# Utils
# ====================================================
def get_score(y_trues, y_preds):
    return np.mean(np.abs(y_trues - y_preds))


def get_logger(filename=OUTPUT_DIR+'train'):
    from logging import getLogger, INFO, StreamHandler, FileHandler, Formatter
    logger = getLogger(__name__)
    logger.setLevel(INFO)
    handler1 = StreamHandler()
    handler1.setFormatter(Formatter("%(message)s"))
    handler2 = FileHandler(filename=f"{filename}.log")
    handler2.setFormatter(Formatter("%(message)s"))
    logger.addHandler(handler1)
    logger.addHandler(handler2)
    return logger

LOGGER = get_logger()


def seed_everything(seed=42):
    random.seed(seed)
    os.environ['PYTHONHASHSEED'] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True

seed_everything(seed=42)


# In[4]:


# ====================================================
# Data Loading (synthetic breaths: 80 steps in the real data, 20 here)
# ====================================================
n_breaths, seq_len = 160, 20
R = np.random.choice([5, 20, 50], n_breaths)
C = np.random.choice([10, 20, 50], n_breaths)
time_step = np.tile(np.linspace(0, 2.5, seq_len), (n_breaths, 1))
u_in = np.abs(np.random.randn(n_breaths, seq_len)).cumsum(1) / 5
u_out = (np.arange(seq_len) >= seq_len // 3).astype(np.float32)[None].repeat(n_breaths, 0)
pressure = (u_in * (R[:, None] / 20) + time_step * (C[:, None] / 20) + 0.05 * np.random.randn(n_breaths, seq_len))
train = {'breath_id': np.arange(n_breaths), 'R': R, 'C': C, 'time_step': time_step,
         'u_in': u_in, 'u_out': u_out, 'pressure': pressure.astype(np.float32)}
test = {k: v[:40].copy() for k, v in train.items() if k != 'pressure'}
test['u_in'] = test['u_in'][::-1].copy()

{k: v.shape for k, v in train.items()}


# In[5]:


# GroupKFold on breath_id
folds = dict(train)
folds['fold'] = np.arange(n_breaths) % CFG.n_fold
np.bincount(folds['fold'])


# In[6]:


# ====================================================
# Dataset
# ====================================================
class TrainDataset(Dataset):
    def __init__(self, df):
        self.cate = np.stack([np.searchsorted([5, 20, 50], df['R']), np.searchsorted([10, 20, 50], df['C'])], 1)
        self.cont = np.stack([df[c] for c in CFG.cont_seq_cols], -1).astype(np.float32)
        self.u_out = df['u_out']
        self.labels = df['pressure']

    def __len__(self):
        return len(self.cont)

    def __getitem__(self, item):
        inputs = {
            'input_cate': torch.LongTensor(self.cate[item]),
            'input_cont': torch.FloatTensor(self.cont[item]),
            'u_out': torch.FloatTensor(self.u_out[item]),
        }
        label = torch.FloatTensor(self.labels[item])
        return inputs, label


class TestDataset(Dataset):
    def __init__(self, df):
        self.cate = np.stack([np.searchsorted([5, 20, 50], df['R']), np.searchsorted([10, 20, 50], df['C'])], 1)
        self.cont = np.stack([df[c] for c in CFG.cont_seq_cols], -1).astype(np.float32)
        self.u_out = df['u_out']

    def __len__(self):
        return len(self.cont)

    def __getitem__(self, item):
        return {
            'input_cate': torch.LongTensor(self.cate[item]),
            'input_cont': torch.FloatTensor(self.cont[item]),
            'u_out': torch.FloatTensor(self.u_out[item]),
        }


# In[7]:


# ====================================================
# Model
# ====================================================
class CustomModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.hidden_size = cfg.hidden_size
        self.r_emb = nn.Embedding(3, 2)
        self.c_emb = nn.Embedding(3, 2)
        self.seq_emb = nn.Sequential(
            nn.Linear(4 + len(cfg.cont_seq_cols), self.hidden_size),
            nn.LayerNorm(self.hidden_size),
        )
        self.lstm = nn.LSTM(self.hidden_size, self.hidden_size, batch_first=True, bidirectional=True)
        self.head = nn.Sequential(
            nn.Linear(self.hidden_size * 2, self.hidden_size),
            nn.LayerNorm(self.hidden_size),
            nn.ReLU(),
            nn.Dropout(0.),
            nn.Linear(self.hidden_size, 1),
        )

    def forward(self, cate_seq_x, cont_seq_x):
        bs, seq = cont_seq_x.size(0), cont_seq_x.size(1)
        r_emb = self.r_emb(cate_seq_x[:, 0]).unsqueeze(1).expand(bs, seq, -1)
        c_emb = self.c_emb(cate_seq_x[:, 1]).unsqueeze(1).expand(bs, seq, -1)
        seq_x = torch.cat((r_emb, c_emb, cont_seq_x), 2)
        seq_emb = self.seq_emb(seq_x)
        seq_emb, _ = self.lstm(seq_emb)
        output = self.head(seq_emb).view(bs, -1)
        return output


# In[8]:


# ====================================================
# helper function
# ====================================================
class AverageMeter(object):
    """Computes and stores the average and current value"""
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


def get_scheduler(cfg, optimizer):
    if cfg.scheduler == 'ReduceLROnPlateau':
        scheduler = ReduceLROnPlateau(optimizer, mode='min', factor=cfg.factor, patience=cfg.patience, eps=cfg.eps)
    elif cfg.scheduler == 'CosineAnnealingLR':
        scheduler = CosineAnnealingLR(optimizer, T_max=cfg.T_max, eta_min=cfg.min_lr, last_epoch=-1)
    return scheduler


def train_fn(fold, train_loader, model, criterion, optimizer, epoch, scheduler, device):
    model.train()
    scaler = GradScaler(enabled=CFG.apex)
    losses = AverageMeter()
    start = end = time.time()
    for step, (inputs, labels) in enumerate(train_loader):
        for k, v in inputs.items():
            inputs[k] = v.to(device)
        labels = labels.to(device)
        batch_size = labels.size(0)
        with autocast(enabled=CFG.apex):
            y_preds = model(inputs['input_cate'], inputs['input_cont'])
            loss = 2. * criterion(y_preds, labels).mean()
        if CFG.gradient_accumulation_steps > 1:
            loss = loss / CFG.gradient_accumulation_steps
        losses.update(loss.item(), batch_size)
        scaler.scale(loss).backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), CFG.max_grad_norm)
        if (step + 1) % CFG.gradient_accumulation_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            if CFG.batch_scheduler:
                scheduler.step()
        end = time.time()
        if step % CFG.print_freq == 0 or step == (len(train_loader)-1):
            print('Epoch: [{0}][{1}/{2}] '
                  'Loss: {loss.val:.4f}({loss.avg:.4f}) '
                  'Grad: {grad_norm:.4f}  '
                  'LR: {lr:.6f}  '
                  .format(epoch+1, step, len(train_loader),
                          loss=losses,
                          grad_norm=grad_norm,
                          lr=scheduler.get_last_lr()[0]))
    return losses.avg


def valid_fn(valid_loader, model, criterion, device):
    model.eval()
    preds = []
    losses = AverageMeter()
    for step, (inputs, labels) in enumerate(valid_loader):
        for k, v in inputs.items():
            inputs[k] = v.to(device)
        labels = labels.to(device)
        batch_size = labels.size(0)
        with torch.no_grad():
            y_preds = model(inputs['input_cate'], inputs['input_cont'])
        # only the inspiratory phase (u_out == 0) is scored
        loss = (criterion(y_preds, labels) * (1 - inputs['u_out'])).sum() / (1 - inputs['u_out']).sum()
        losses.update(loss.item(), batch_size)
        preds.append(y_preds.to('cpu').numpy())
    predictions = np.concatenate(preds)
    return losses.avg, predictions


# In[9]:


# ====================================================
# train loop
# ====================================================
def train_loop(folds, fold):

    LOGGER.info(f"========== fold: {fold} training ==========")

    trn_idx = np.where(folds['fold'] != fold)[0]
    val_idx = np.where(folds['fold'] == fold)[0]
    train_folds = {k: v[trn_idx] for k, v in folds.items()}
    valid_folds = {k: v[val_idx] for k, v in folds.items()}

    train_dataset = TrainDataset(train_folds)
    valid_dataset = TrainDataset(valid_folds)

    train_loader = DataLoader(train_dataset,
                              batch_size=CFG.batch_size,
                              shuffle=True,
                              num_workers=CFG.num_workers, pin_memory=True, drop_last=True)
    valid_loader = DataLoader(valid_dataset,
                              batch_size=CFG.batch_size * 2,
                              shuffle=False,
                              num_workers=CFG.num_workers, pin_memory=True, drop_last=False)

    model = CustomModel(CFG)
    model.to(device)

    optimizer = torch.optim.AdamW(model.parameters(), lr=CFG.lr, weight_decay=CFG.weight_decay)
    scheduler = get_scheduler(CFG, optimizer)

    criterion = nn.L1Loss(reduction='none')

    best_score = np.inf

    for epoch in range(CFG.epochs):

        start_time = time.time()

        # train
        avg_loss = train_fn(fold, train_loader, model, criterion, optimizer, epoch, scheduler, device)

        # eval
        avg_val_loss, preds = valid_fn(valid_loader, model, criterion, device)

        if isinstance(scheduler, ReduceLROnPlateau):
            scheduler.step(avg_val_loss)
        elif isinstance(scheduler, CosineAnnealingLR) and not CFG.batch_scheduler:
            scheduler.step()

        # scoring
        score = avg_val_loss

        LOGGER.info(f'Epoch {epoch+1} - avg_train_loss: {avg_loss:.4f}  avg_val_loss: {avg_val_loss:.4f}')
        LOGGER.info(f'Epoch {epoch+1} - MAE Score (without expiratory phase): {score:.4f}')

        if score < best_score:
            best_score = score
            LOGGER.info(f'Epoch {epoch+1} - Save Best Score: {best_score:.4f} Model')
            torch.save({'model': model.state_dict(),
                        'preds': preds},
                        OUTPUT_DIR+f"fold{fold}_best.pth")

    preds = torch.load(OUTPUT_DIR+f"fold{fold}_best.pth", map_location=torch.device('cpu'), weights_only=False)['preds']
    valid_folds['preds'] = preds

    torch.cuda.empty_cache()
    gc.collect()

    return valid_folds


# In[10]:


# ====================================================
# main
# ====================================================
def main():

    def get_result(result_df):
        mask = result_df['u_out'] == 0
        score = get_score(result_df['pressure'][mask], result_df['preds'][mask])
        LOGGER.info(f'Score (without expiratory phase): {score:<.4f}')

    if CFG.train:
        # train
        oof_df = None
        for fold in range(CFG.n_fold):
            if fold in CFG.trn_fold:
                _oof_df = train_loop(folds, fold)
                if oof_df is None:
                    oof_df = _oof_df
                else:
                    oof_df = {k: np.concatenate([oof_df[k], _oof_df[k]]) for k in oof_df}
                LOGGER.info(f"========== fold: {fold} result ==========")
                get_result(_oof_df)
        # CV result
        LOGGER.info(f"========== CV ==========")
        get_result(oof_df)
        np.save(OUTPUT_DIR+'oof_preds.npy', oof_df['preds'])

    if CFG.inference:
        test_loader = DataLoader(TestDataset(test), batch_size=CFG.batch_size * 2, shuffle=False,
                                 num_workers=CFG.num_workers, pin_memory=True)
        predictions = []
        for fold in CFG.trn_fold:
            model = CustomModel(CFG)
            state = torch.load(OUTPUT_DIR+f"fold{fold}_best.pth", map_location=torch.device('cpu'), weights_only=False)
            model.load_state_dict(state['model'])
            model.to(device)
            model.eval()
            fold_preds = []
            for inputs in test_loader:
                for k, v in inputs.items():
                    inputs[k] = v.to(device)
                with torch.no_grad():
                    fold_preds.append(model(inputs['input_cate'], inputs['input_cont']).cpu().numpy())
            predictions.append(np.concatenate(fold_preds))
        predictions = np.mean(predictions, 0)
        with open(OUTPUT_DIR+'submission.csv', 'w') as f:
            f.write('id,pressure\n')
            row = 1
            for b in range(predictions.shape[0]):
                for s in range(predictions.shape[1]):
                    f.write(f'{row},{predictions[b, s]:.4f}\n')
                    row += 1


if __name__ == '__main__':
    main()
