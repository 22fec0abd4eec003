# corpus: Kaggle pairwise-ranking notebook as .py (Jigsaw "starter" style): CONFIG = {...} with n_accumulate, set_seed, paired Dataset (more/less toxic), MarginRankingLoss, train_one_epoch / @torch.no_grad() valid_one_epoch with tqdm bar.set_postfix, fetch_scheduler by name, run_training(...) with defaultdict history + copy.deepcopy best weights, per-fold model/optimizer, "Validation Loss Improved" prints, gc.collect()
#!/usr/bin/env python
# coding: utf-8

# <h2> Jigsaw Rate Severity of Toxic Comments </h2>
# <span style="color: #000508; font-family: Segoe UI; font-size: 1.2em;">Please upvote if you find it useful</span>

# # <h1 style = "font-family: garamond; font-size: 40px; font-style: normal; background-color: #f6f5f5; color : #ff0336; border-radius: 100px 100px; text-align:center">Install Required Libraries</h1>

# In[1]:


# !pip install -q -U wandb


# # Import Required Libraries 📚

# In[2]:


import os
import gc
import copy
import time
import random
import string

# For data manipulation
import numpy as np

# Pytorch Imports
import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import lr_scheduler
from torch.utils.data import Dataset, DataLoader

# Utils
from tqdm import tqdm
from collections import defaultdict

# For colored terminal text
try:
    from colorama import Fore, Back, Style
    b_ = Fore.BLUE
    y_ = Fore.YELLOW
    sr_ = Style.RESET_ALL
except ImportError:
    b_ = y_ = sr_ = ''

# Suppress warnings
import warnings
warnings.filterwarnings("ignore")

# For descriptive error messages
os.environ['CUDA_LAUNCH_BLOCKING'] = "1"


# # Training Configuration ⚙️

# In[3]:


CONFIG = {"seed": 2021,
          "epochs": 3,
          "model_name": "tiny-embedding-bag",
          "train_batch_size": 16,
          "valid_batch_size": 32,
          "max_length": 16,
          "vocab_size": 200,
          "learning_rate": 1e-3,
          "scheduler": 'CosineAnnealingLR',
          "min_lr": 1e-6,
          "T_max": 50,
          "weight_decay": 1e-6,
          "n_fold": 3,
          "n_accumulate": 1,
          "num_classes": 1,
          "margin": 0.5,
          "device" : torch.device("cuda:0" if torch.cuda.is_available() else "cpu"),
          }


# # Set Seed for Reproducibility

# In[4]:


def set_seed(seed=42):
    '''Sets the seed of the entire notebook so results are the same every time we run.
    This is for REPRODUCIBILITY.'''
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    # When running on the CuDNN backend, two further options must be set
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    # Set a fixed value for the hash seed
    os.environ['PYTHONHASHSEED'] = str(seed)

set_seed(CONFIG['seed'])


# In[5]:


# validation_data.csv: (worker, less_toxic, more_toxic) -> token ids, synthetic
N_PAIRS = 300
toxic_words = np.arange(1, 20)
def fake_comment(toxicity):
    ids = np.random.randint(20, CONFIG['vocab_size'], CONFIG['max_length'])
    n_bad = np.random.binomial(CONFIG['max_length'], toxicity)
    ids[:n_bad] = np.random.choice(toxic_words, n_bad)
    return ids

less = np.stack([fake_comment(0.1) for _ in range(N_PAIRS)])
more = np.stack([fake_comment(0.4) for _ in range(N_PAIRS)])
worker = np.random.randint(0, 30, N_PAIRS)
df = {'worker': worker, 'less_toxic': less, 'more_toxic': more}
df['less_toxic'][:2]


# ## Create Folds (GroupKFold on worker, done by hand)

# In[6]:


df['kfold'] = worker % CONFIG['n_fold']
np.bincount(df['kfold'])


# In[7]:


class JigsawDataset(Dataset):
    def __init__(self, df, max_length):
        self.df = df
        self.max_len = max_length
        self.more_toxic = df['more_toxic']
        self.less_toxic = df['less_toxic']

    def __len__(self):
        return len(self.more_toxic)

    def __getitem__(self, index):
        more_toxic = self.more_toxic[index]
        less_toxic = self.less_toxic[index]
        target = 1
        return {
            'more_toxic_ids': torch.tensor(more_toxic, dtype=torch.long),
            'less_toxic_ids': torch.tensor(less_toxic, dtype=torch.long),
            'target': torch.tensor(target, dtype=torch.long)
        }


# # Create Model

# In[8]:


class JigsawModel(nn.Module):
    def __init__(self, model_name):
        super(JigsawModel, self).__init__()
        self.model = nn.EmbeddingBag(CONFIG['vocab_size'], 32, mode='mean')
        self.drop = nn.Dropout(p=0.2)
        self.fc = nn.Linear(32, CONFIG['num_classes'])

    def forward(self, ids):
        out = self.model(ids)
        out = self.drop(out)
        outputs = self.fc(out)
        return outputs


# # Loss Function

# In[9]:


def criterion(outputs1, outputs2, targets):
    return nn.MarginRankingLoss(margin=CONFIG['margin'])(outputs1.view(-1), outputs2.view(-1), targets)


# # Training Function

# In[10]:


def train_one_epoch(model, optimizer, scheduler, dataloader, device, epoch):
    model.train()

    dataset_size = 0
    running_loss = 0.0

    bar = tqdm(enumerate(dataloader), total=len(dataloader))
    for step, data in bar:
        more_toxic_ids = data['more_toxic_ids'].to(device, dtype = torch.long)
        less_toxic_ids = data['less_toxic_ids'].to(device, dtype = torch.long)
        targets = data['target'].to(device, dtype=torch.long)

        batch_size = more_toxic_ids.size(0)

        more_toxic_outputs = model(more_toxic_ids)
        less_toxic_outputs = model(less_toxic_ids)

        loss = criterion(more_toxic_outputs, less_toxic_outputs, targets)
        loss = loss / CONFIG['n_accumulate']
        loss.backward()

        if (step + 1) % CONFIG['n_accumulate'] == 0:
            optimizer.step()

            # zero the parameter gradients
            optimizer.zero_grad()

            if scheduler is not None:
                scheduler.step()

        running_loss += (loss.item() * batch_size)
        dataset_size += batch_size

        epoch_loss = running_loss / dataset_size

        bar.set_postfix(Epoch=epoch, Train_Loss=epoch_loss,
                        LR=optimizer.param_groups[0]['lr'])
    gc.collect()

    return epoch_loss


# # Validation Function

# In[11]:


@torch.no_grad()
def valid_one_epoch(model, dataloader, device, epoch):
    model.eval()

    dataset_size = 0
    running_loss = 0.0

    bar = tqdm(enumerate(dataloader), total=len(dataloader))
    for step, data in bar:
        more_toxic_ids = data['more_toxic_ids'].to(device, dtype = torch.long)
        less_toxic_ids = data['less_toxic_ids'].to(device, dtype = torch.long)
        targets = data['target'].to(device, dtype=torch.long)

        batch_size = more_toxic_ids.size(0)

        more_toxic_outputs = model(more_toxic_ids)
        less_toxic_outputs = model(less_toxic_ids)

        loss = criterion(more_toxic_outputs, less_toxic_outputs, targets)

        running_loss += (loss.item() * batch_size)
        dataset_size += batch_size

        epoch_loss = running_loss / dataset_size

        bar.set_postfix(Epoch=epoch, Valid_Loss=epoch_loss,
                        LR=optimizer.param_groups[0]['lr'])

    gc.collect()

    return epoch_loss


# # Run Training

# In[12]:


def run_training(model, optimizer, scheduler, device, num_epochs, fold):
    # To automatically log gradients
    # wandb.watch(model, log_freq=100)

    if torch.cuda.is_available():
        print("[INFO] Using GPU: {}\n".format(torch.cuda.get_device_name()))

    start = time.time()
    best_model_wts = copy.deepcopy(model.state_dict())
    best_epoch_loss = np.inf
    history = defaultdict(list)

    for epoch in range(1, num_epochs + 1):
        gc.collect()
        train_epoch_loss = train_one_epoch(model, optimizer, scheduler,
                                           dataloader=train_loader,
                                           device=CONFIG['device'], epoch=epoch)

        val_epoch_loss = valid_one_epoch(model, valid_loader, device=CONFIG['device'],
                                         epoch=epoch)

        history['Train Loss'].append(train_epoch_loss)
        history['Valid Loss'].append(val_epoch_loss)

        # Log the metrics
        # wandb.log({"Train Loss": train_epoch_loss})
        # wandb.log({"Valid Loss": val_epoch_loss})

        # deep copy the model
        if val_epoch_loss <= best_epoch_loss:
            print(f"{b_}Validation Loss Improved ({best_epoch_loss} ---> {val_epoch_loss})")
            best_epoch_loss = val_epoch_loss
            # run.summary["Best Loss"] = best_epoch_loss
            best_model_wts = copy.deepcopy(model.state_dict())
            PATH = f"Loss-Fold-{fold}.bin"
            torch.save(model.state_dict(), PATH)
            # Save a model file from the current directory
            print(f"Model Saved{sr_}")

        print()

    end = time.time()
    time_elapsed = end - start
    print('Best Loss: {:.4f}'.format(best_epoch_loss))

    # load best model weights
    model.load_state_dict(best_model_wts)

    return model, history


# In[13]:


def prepare_loaders(fold):
    df_train = {k: v[df['kfold'] != fold] for k, v in df.items()}
    df_valid = {k: v[df['kfold'] == fold] for k, v in df.items()}

    train_dataset = JigsawDataset(df_train, max_length=CONFIG['max_length'])
    valid_dataset = JigsawDataset(df_valid, max_length=CONFIG['max_length'])

    train_loader = DataLoader(train_dataset, batch_size=CONFIG['train_batch_size'],
                              num_workers=0, shuffle=True, pin_memory=True, drop_last=True)
    valid_loader = DataLoader(valid_dataset, batch_size=CONFIG['valid_batch_size'],
                              num_workers=0, shuffle=False, pin_memory=True)

    return train_loader, valid_loader


# In[14]:


def fetch_scheduler(optimizer):
    if CONFIG['scheduler'] == 'CosineAnnealingLR':
        scheduler = lr_scheduler.CosineAnnealingLR(optimizer,T_max=CONFIG['T_max'],
                                                   eta_min=CONFIG['min_lr'])
    elif CONFIG['scheduler'] == 'CosineAnnealingWarmRestarts':
        scheduler = lr_scheduler.CosineAnnealingWarmRestarts(optimizer,T_0=CONFIG['T_0'],
                                                             eta_min=CONFIG['min_lr'])
    elif CONFIG['scheduler'] == None:
        return None

    return scheduler


# # Start Training

# In[15]:


for fold in range(0, CONFIG['n_fold']):
    print(f"{y_}====== Fold: {fold} ======{sr_}")
    # run = wandb.init(project='Jigsaw', config=CONFIG, job_type='Train', group=CONFIG['group'],
    #                  tags=['roberta-base', f'{HASH_NAME}', 'margin-loss'],
    #                  name=f'{HASH_NAME}-fold-{fold}', anonymous='must')

    # Create Dataloaders
    train_loader, valid_loader = prepare_loaders(fold=fold)

    model = JigsawModel(CONFIG['model_name'])
    model.to(CONFIG['device'])

    # Define Optimizer and Scheduler
    optimizer = optim.AdamW(model.parameters(), lr=CONFIG['learning_rate'], weight_decay=CONFIG['weight_decay'])
    scheduler = fetch_scheduler(optimizer)

    model, history = run_training(model, optimizer, scheduler,
                                  device=CONFIG['device'],
                                  num_epochs=CONFIG['epochs'],
                                  fold=fold)

    # run.finish()

    del model, history, train_loader, valid_loader
    _ = gc.collect()
    print()


# # Quick check of the saved fold models on all pairs

# In[16]:


full_loader = DataLoader(JigsawDataset(df, CONFIG['max_length']), batch_size=64, shuffle=False)
model = JigsawModel(CONFIG['model_name']).to(CONFIG['device'])
agree = np.zeros(N_PAIRS)
for fold in range(CONFIG['n_fold']):
    model.load_state_dict(torch.load(f"Loss-Fold-{fold}.bin"))
    model.eval()
    res = []
    with torch.no_grad():
        for data in full_loader:
            res.append((model(data['more_toxic_ids']) > model(data['less_toxic_ids'])).float().squeeze(1).numpy())
    agree += np.concatenate(res) / CONFIG['n_fold']
print(f'pairwise agreement (fold-averaged): {agree.mean():.4f}')
with open('submission.csv', 'w') as f:
    f.write('comment_id,score\n')
    for i, a in enumerate(agree):
        f.write(f'{i},{a:.4f}\n')
