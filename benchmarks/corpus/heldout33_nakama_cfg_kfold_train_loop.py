# corpus: Kaggle notebook exported as .py (Nakama-style baseline): CFG class, get_logger, AverageMeter/timeSince, train_fn/valid_fn, get_scheduler by name, K-fold train_loop, OOF, fold-averaged inference, submission.csv
#!/usr/bin/env python
# coding: utf-8

# # About this notebook
# - PyTorch resnet-ish starter code (tiny version for the synthetic data)
# - Inference notebook is here: (link)
#
# If this notebook is helpful, feel free to upvote :)

# # Directory settings

# In[1]:


# ====================================================
# Directory settings
# ====================================================
import os

OUTPUT_DIR = './'
if not os.path.exists(OUTPUT_DIR):
    os.makedirs(OUTPUT_DIR)

TRAIN_PATH = '../input/train_images'  # not used, synthetic data below
TEST_PATH = '../input/test_images'


# # CFG

# In[2]:


# ====================================================
# CFG
# ====================================================
class CFG:
    debug=False
    apex=False
    print_freq=5
    num_workers=0
    model_name='simple_cnn'
    size=16
    scheduler='CosineAnnealingWarmRestarts' # ['ReduceLROnPlateau', 'CosineAnnealingLR', 'CosineAnnealingWarmRestarts']
    epochs=3
    #factor=0.2 # ReduceLROnPlateau
    #patience=4 # ReduceLROnPlateau
    #eps=1e-6 # ReduceLROnPlateau
    #T_max=10 # CosineAnnealingLR
    T_0=3 # CosineAnnealingWarmRestarts
    lr=1e-3
    min_lr=1e-6
    batch_size=32
    weight_decay=1e-6
    gradient_accumulation_steps=1
    max_grad_norm=1000
    seed=42
    target_size=5
    target_col='label'
    n_fold=3
    trn_fold=[0, 1, 2]
    train=True
    inference=True


# # Library

# In[3]:


# ====================================================
# Library
# ====================================================
import sys
import math
import time
import random
import shutil
from pathlib import Path
from contextlib import contextmanager
from collections import defaultdict, Counter

import numpy as np

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Adam, SGD
from torch.optim.lr_scheduler import CosineAnnealingWarmRestarts, CosineAnnealingLR, ReduceLROnPlateau
from torch.utils.data import DataLoader, Dataset

import warnings
warnings.filterwarnings('ignore')

if CFG.apex:
    from torch.cuda.amp import autocast, GradScaler

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


# # Utils

# In[4]:


# ====================================================
# Utils
# ====================================================
def get_score(y_true, y_pred):
    return (y_true == y_pred).mean()


@contextmanager
def timer(name):
    t0 = time.time()
    LOGGER.info(f'[{name}] start')
    yield
    LOGGER.info(f'[{name}] done in {time.time() - t0:.0f} s.')


def init_logger(log_file=OUTPUT_DIR+'train.log'):
    from logging import getLogger, INFO, FileHandler,  Formatter,  StreamHandler
    logger = getLogger(__name__)
    logger.setLevel(INFO)
    handler1 = StreamHandler()
    handler1.setFormatter(Formatter("%(message)s"))
    handler2 = FileHandler(filename=log_file)
    handler2.setFormatter(Formatter("%(message)s"))
    logger.addHandler(handler1)
    logger.addHandler(handler2)
    return logger

LOGGER = init_logger()


def seed_torch(seed=42):
    random.seed(seed)
    os.environ['PYTHONHASHSEED'] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True

seed_torch(seed=CFG.seed)


# # Data Loading

# In[5]:


# synthetic stand-in for train.csv: image ids, labels and the images themselves
n_train = 240
n_test = 40
train = {
    'image_id': np.array([f'{i:05d}.jpg' for i in range(n_train)]),
    'label': np.random.randint(0, CFG.target_size, n_train),
}
train_images = torch.randn(n_train, 3, CFG.size, CFG.size)
# make the label learnable: shift one channel by the label
train_images[:, 0] += torch.from_numpy(train['label']).float().view(-1, 1, 1) * 0.5
test = {
    'image_id': np.array([f't{i:04d}.jpg' for i in range(n_test)]),
}
test_images = torch.randn(n_test, 3, CFG.size, CFG.size)


# In[6]:


{k: v[:5] for k, v in train.items()}


# In[7]:


Counter(train['label'].tolist())


# In[8]:


if CFG.debug:
    CFG.epochs = 1
    train = {k: v[:100] for k, v in train.items()}


# # CV split

# In[9]:


# StratifiedKFold by hand (no sklearn in this kernel)
folds = dict(train)
folds['fold'] = np.zeros(len(folds['label']), dtype=int)
for c in range(CFG.target_size):
    idx = np.where(folds['label'] == c)[0]
    np.random.shuffle(idx)
    for n, part in enumerate(np.array_split(idx, CFG.n_fold)):
        folds['fold'][part] = n
print(Counter(zip(folds['fold'].tolist(), folds['label'].tolist())).most_common(3))


# # Dataset

# In[10]:


# ====================================================
# Dataset
# ====================================================
class TrainDataset(Dataset):
    def __init__(self, df, images, transform=None):
        self.df = df
        self.file_names = df['image_id']
        self.labels = df['label']
        self.images = images
        self.transform = transform

    def __len__(self):
        return len(self.file_names)

    def __getitem__(self, idx):
        image = self.images[idx]
        if self.transform:
            image = self.transform(image)
        label = torch.tensor(self.labels[idx]).long()
        return image, label


class TestDataset(Dataset):
    def __init__(self, df, images, transform=None):
        self.df = df
        self.file_names = df['image_id']
        self.images = images
        self.transform = transform

    def __len__(self):
        return len(self.file_names)

    def __getitem__(self, idx):
        image = self.images[idx]
        if self.transform:
            image = self.transform(image)
        return image


# In[11]:


train_dataset = TrainDataset(train, train_images, transform=None)

for i in range(1):
    image, label = train_dataset[i]
    print(image.shape, label)


# # Transforms

# In[12]:


# ====================================================
# Transforms
# ====================================================
def get_transforms(*, data):
    if data == 'train':
        return None  # albumentations in the original, identity here
    elif data == 'valid':
        return None


# # MODEL

# In[13]:


# ====================================================
# MODEL
# ====================================================
class CustomModel(nn.Module):
    def __init__(self, model_name='simple_cnn', pretrained=False):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        n_features = 8
        self.fc = nn.Linear(n_features, CFG.target_size)

    def forward(self, x):
        x = self.model(x)
        x = self.fc(x)
        return x


# In[14]:


model = CustomModel(model_name=CFG.model_name, pretrained=False)
train_loader = DataLoader(train_dataset, batch_size=4, shuffle=True,
                          num_workers=0, pin_memory=True, drop_last=True)

for image, label in train_loader:
    output = model(image)
    print(output)
    break


# # Helper functions

# In[15]:


# ====================================================
# Helper functions
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


def asMinutes(s):
    m = math.floor(s / 60)
    s -= m * 60
    return '%dm %ds' % (m, s)


def timeSince(since, percent):
    now = time.time()
    s = now - since
    es = s / (percent)
    rs = es - s
    return '%s (remain %s)' % (asMinutes(s), asMinutes(rs))


def train_fn(train_loader, model, criterion, optimizer, epoch, scheduler, device):
    if CFG.apex:
        scaler = GradScaler()
    batch_time = AverageMeter()
    data_time = AverageMeter()
    losses = AverageMeter()
    scores = AverageMeter()
    # switch to train mode
    model.train()
    start = end = time.time()
    global_step = 0
    for step, (images, labels) in enumerate(train_loader):
        # measure data loading time
        data_time.update(time.time() - end)
        images = images.to(device)
        labels = labels.to(device)
        batch_size = labels.size(0)
        if CFG.apex:
            with autocast():
                y_preds = model(images)
                loss = criterion(y_preds, labels)
        else:
            y_preds = model(images)
            loss = criterion(y_preds, labels)
        # record loss
        losses.update(loss.item(), batch_size)
        if CFG.gradient_accumulation_steps > 1:
            loss = loss / CFG.gradient_accumulation_steps
        if CFG.apex:
            scaler.scale(loss).backward()
        else:
            loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), CFG.max_grad_norm)
        if (step + 1) % CFG.gradient_accumulation_steps == 0:
            if CFG.apex:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            optimizer.zero_grad()
            global_step += 1
        # measure elapsed time
        batch_time.update(time.time() - end)
        end = time.time()
        if step % CFG.print_freq == 0 or step == (len(train_loader)-1):
            print('Epoch: [{0}][{1}/{2}] '
                  'Loss: {loss.val:.4f}({loss.avg:.4f}) '
                  'Grad: {grad_norm:.4f}  '
                  #'LR: {lr:.6f}  '
                  .format(
                   epoch+1, step, len(train_loader),
                   loss=losses,
                   grad_norm=grad_norm,
                   #lr=scheduler.get_lr()[0],
                   ))
    return losses.avg


def valid_fn(valid_loader, model, criterion, device):
    batch_time = AverageMeter()
    data_time = AverageMeter()
    losses = AverageMeter()
    scores = AverageMeter()
    # switch to evaluation mode
    model.eval()
    preds = []
    start = end = time.time()
    for step, (images, labels) in enumerate(valid_loader):
        # measure data loading time
        data_time.update(time.time() - end)
        images = images.to(device)
        labels = labels.to(device)
        batch_size = labels.size(0)
        # compute loss
        with torch.no_grad():
            y_preds = model(images)
        loss = criterion(y_preds, labels)
        losses.update(loss.item(), batch_size)
        # record accuracy
        preds.append(y_preds.softmax(1).to('cpu').numpy())
        if CFG.gradient_accumulation_steps > 1:
            loss = loss / CFG.gradient_accumulation_steps
        # measure elapsed time
        batch_time.update(time.time() - end)
        end = time.time()
        if step % CFG.print_freq == 0 or step == (len(valid_loader)-1):
            print('EVAL: [{0}/{1}] '
                  'Loss: {loss.val:.4f}({loss.avg:.4f}) '
                  .format(
                   step, len(valid_loader),
                   loss=losses,
                   ))
    predictions = np.concatenate(preds)
    return losses.avg, predictions


def inference(model, states, test_loader, device):
    model.to(device)
    probs = []
    for i, (images) in enumerate(test_loader):
        images = images.to(device)
        avg_preds = []
        for state in states:
            model.load_state_dict(state['model'])
            model.eval()
            with torch.no_grad():
                y_preds = model(images)
            avg_preds.append(y_preds.softmax(1).to('cpu').numpy())
        avg_preds = np.mean(avg_preds, axis=0)
        probs.append(avg_preds)
    probs = np.concatenate(probs)
    return probs


# # Train loop

# In[16]:


# ====================================================
# Train loop
# ====================================================
def train_loop(folds, fold):

    LOGGER.info(f"========== fold: {fold} training ==========")

    # ====================================================
    # loader
    # ====================================================
    trn_idx = np.where(folds['fold'] != fold)[0]
    val_idx = np.where(folds['fold'] == fold)[0]

    train_folds = {k: v[trn_idx] for k, v in folds.items()}
    valid_folds = {k: v[val_idx] for k, v in folds.items()}

    train_dataset = TrainDataset(train_folds, train_images[trn_idx],
                                 transform=get_transforms(data='train'))
    valid_dataset = TrainDataset(valid_folds, train_images[val_idx],
                                 transform=get_transforms(data='valid'))

    train_loader = DataLoader(train_dataset,
                              batch_size=CFG.batch_size,
                              shuffle=True,
                              num_workers=CFG.num_workers, pin_memory=True, drop_last=True)
    valid_loader = DataLoader(valid_dataset,
                              batch_size=CFG.batch_size,
                              shuffle=False,
                              num_workers=CFG.num_workers, pin_memory=True, drop_last=False)

    # ====================================================
    # scheduler
    # ====================================================
    def get_scheduler(optimizer):
        if CFG.scheduler=='ReduceLROnPlateau':
            scheduler = ReduceLROnPlateau(optimizer, mode='min', factor=CFG.factor, patience=CFG.patience, eps=CFG.eps)
        elif CFG.scheduler=='CosineAnnealingLR':
            scheduler = CosineAnnealingLR(optimizer, T_max=CFG.T_max, eta_min=CFG.min_lr, last_epoch=-1)
        elif CFG.scheduler=='CosineAnnealingWarmRestarts':
            scheduler = CosineAnnealingWarmRestarts(optimizer, T_0=CFG.T_0, T_mult=1, eta_min=CFG.min_lr, last_epoch=-1)
        return scheduler

    # ====================================================
    # model & optimizer
    # ====================================================
    model = CustomModel(CFG.model_name, pretrained=True)
    model.to(device)

    optimizer = Adam(model.parameters(), lr=CFG.lr, weight_decay=CFG.weight_decay, amsgrad=False)
    scheduler = get_scheduler(optimizer)

    # ====================================================
    # loop
    # ====================================================
    criterion = nn.CrossEntropyLoss()

    best_score = 0.
    best_loss = np.inf

    for epoch in range(CFG.epochs):

        start_time = time.time()

        # train
        avg_loss = train_fn(train_loader, model, criterion, optimizer, epoch, scheduler, device)

        # eval
        avg_val_loss, preds = valid_fn(valid_loader, model, criterion, device)
        valid_labels = valid_folds[CFG.target_col]

        if isinstance(scheduler, ReduceLROnPlateau):
            scheduler.step(avg_val_loss)
        elif isinstance(scheduler, CosineAnnealingLR):
            scheduler.step()
        elif isinstance(scheduler, CosineAnnealingWarmRestarts):
            scheduler.step()

        # scoring
        score = get_score(valid_labels, preds.argmax(1))

        elapsed = time.time() - start_time

        LOGGER.info(f'Epoch {epoch+1} - avg_train_loss: {avg_loss:.4f}  avg_val_loss: {avg_val_loss:.4f}')
        LOGGER.info(f'Epoch {epoch+1} - Accuracy: {score}')

        if score > best_score:
            best_score = score
            LOGGER.info(f'Epoch {epoch+1} - Save Best Score: {best_score:.4f} Model')
            torch.save({'model': model.state_dict(),
                        'preds': preds},
                        OUTPUT_DIR+f'{CFG.model_name}_fold{fold}_best.pth')

    check_point = torch.load(OUTPUT_DIR+f'{CFG.model_name}_fold{fold}_best.pth', weights_only=False)
    valid_folds['preds'] = check_point['preds'].argmax(1)

    return valid_folds


# In[17]:


# ====================================================
# main
# ====================================================
def main():

    """
    Prepare: 1.train  2.test  3.submission  4.folds
    """

    def get_result(result_df):
        preds = result_df['preds']
        labels = result_df[CFG.target_col]
        score = get_score(labels, preds)
        LOGGER.info(f'Score: {score:<.5f}')

    if CFG.train:
        # train
        oof_df = {}
        for fold in range(CFG.n_fold):
            if fold in CFG.trn_fold:
                _oof_df = train_loop(folds, fold)
                for k, v in _oof_df.items():
                    oof_df[k] = np.concatenate([oof_df[k], v]) if k in oof_df else v
                LOGGER.info(f"========== fold: {fold} result ==========")
                get_result(_oof_df)
        # CV result
        LOGGER.info(f"========== CV ==========")
        get_result(oof_df)
        # save result
        with open(OUTPUT_DIR+'oof_df.csv', 'w') as f:
            f.write('image_id,label,fold,preds\n')
            for i in range(len(oof_df['image_id'])):
                f.write(f"{oof_df['image_id'][i]},{oof_df['label'][i]},{oof_df['fold'][i]},{oof_df['preds'][i]}\n")

    if CFG.inference:
        # inference
        model = CustomModel(CFG.model_name, pretrained=False)
        states = [torch.load(OUTPUT_DIR+f'{CFG.model_name}_fold{fold}_best.pth', weights_only=False) for fold in CFG.trn_fold]
        test_dataset = TestDataset(test, test_images, transform=get_transforms(data='valid'))
        test_loader = DataLoader(test_dataset, batch_size=CFG.batch_size, shuffle=False,
                                 num_workers=CFG.num_workers, pin_memory=True)
        predictions = inference(model, states, test_loader, device)
        # submission
        test['label'] = predictions.argmax(1)
        with open(OUTPUT_DIR+'submission.csv', 'w') as f:
            f.write('image_id,label\n')
            for i, l in zip(test['image_id'], test['label']):
                f.write(f'{i},{l}\n')


# In[18]:


if __name__ == '__main__':
    main()
