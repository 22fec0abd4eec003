# corpus: Kaggle image-classification notebook as .py (Cassava "pytorch baseline" style): CFG = {...} dict, train_one_epoch(epoch, model, loss_fn, optimizer, train_loader, device, scheduler=None, schd_batch_update=False) with tqdm pbar, running-loss EMA, GradScaler/autocast (enabled flag off), accum_iter, valid_one_epoch with scheduler, `if fold > 1: break` debug folds, TTA inference averaged over folds, submission.csv
#!/usr/bin/env python
# coding: utf-8

# In[1]:


# get_ipython().system('nvidia-smi')


# In[2]:


package_path = '../input/pytorch-image-models/pytorch-image-models-master'
import sys; sys.path.append(package_path)


# In[3]:


from glob import glob
import time
import random
import os

import numpy as np
import torch
from torch import nn
from torch.utils.data import Dataset, DataLoader
from torch.cuda.amp import autocast, GradScaler
from tqdm import tqdm


# In[4]:


CFG = {
    'fold_num': 4,
    'seed': 719,
    'model_arch': 'tf_efficientnet_b4_ns',
    'img_size': 16,
    'epochs': 3,
    'train_bs': 16,
    'valid_bs': 32,
    'T_0': 3,
    'lr': 1e-3,
    'min_lr': 1e-6,
    'weight_decay':1e-6,
    'num_workers': 0,
    'accum_iter': 2, # suppoprt to do batch accumulation for backprop with effectively larger batch size
    'verbose_step': 1,
    'fp16': False,
    'tta': 2,
    'device': 'cuda:0' if torch.cuda.is_available() else 'cpu',
}


# In[5]:


# train.csv -> synthetic
N_IMG = 256
train = {
    'image_id': [f'{1000 + i}.jpg' for i in range(N_IMG)],
    'label': np.random.RandomState(CFG['seed']).randint(0, 5, N_IMG),
}
train['label'][:10]


# In[6]:


def seed_everything(seed):
    random.seed(seed)
    os.environ['PYTHONHASHSEED'] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = True


def get_img(idx, label):
    # cv2.imread(path)[:, :, ::-1] in the real thing
    g = torch.Generator().manual_seed(int(idx))
    img = torch.randn(3, CFG['img_size'], CFG['img_size'], generator=g)
    img[label % 3] += 0.7
    return img


# In[7]:


class CassavaDataset(Dataset):
    def __init__(self, df, idxs, transforms=None, output_label=True):
        super().__init__()
        self.df = df
        self.idxs = idxs
        self.transforms = transforms
        self.output_label = output_label
        if output_label == True:
            self.labels = df['label'][idxs]

    def __len__(self):
        return len(self.idxs)

    def __getitem__(self, index: int):
        i = self.idxs[index]
        # get labels
        if self.output_label:
            target = self.labels[index]
        img = get_img(i, self.df['label'][i])
        if self.transforms:
            img = self.transforms(img)
        # do label smoothing
        if self.output_label == True:
            return img, target
        else:
            return img


# In[8]:


def get_train_transforms():
    def tfm(img):
        if random.random() < 0.5:
            img = torch.flip(img, dims=[2])
        return img
    return tfm

def get_valid_transforms():
    return None

def get_inference_transforms():
    return get_train_transforms()


# In[9]:


class CassvaImgClassifier(nn.Module):
    def __init__(self, model_arch, n_class, pretrained=False):
        super().__init__()
        # self.model = timm.create_model(model_arch, pretrained=pretrained)
        self.model = nn.Sequential(
            nn.Conv2d(3, 12, 3, padding=1), nn.BatchNorm2d(12), nn.SiLU(),
            nn.Conv2d(12, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.SiLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        n_features = 16
        self.classifier = nn.Linear(n_features, n_class)

    def forward(self, x):
        x = self.model(x)
        x = self.classifier(x)
        return x


# In[10]:


def prepare_dataloader(df, trn_idx, val_idx):
    train_ds = CassavaDataset(df, trn_idx, transforms=get_train_transforms(), output_label=True)
    valid_ds = CassavaDataset(df, val_idx, transforms=get_valid_transforms(), output_label=True)

    train_loader = torch.utils.data.DataLoader(
        train_ds,
        batch_size=CFG['train_bs'],
        pin_memory=False,
        drop_last=False,
        shuffle=True,
        num_workers=CFG['num_workers'],
        #sampler=BalanceClassSampler(labels=train_['label'].values, mode="downsampling")
    )
    val_loader = torch.utils.data.DataLoader(
        valid_ds,
        batch_size=CFG['valid_bs'],
        num_workers=CFG['num_workers'],
        shuffle=False,
        pin_memory=False,
    )
    return train_loader, val_loader

def train_one_epoch(epoch, model, loss_fn, optimizer, train_loader, device, scheduler=None, schd_batch_update=False):
    model.train()

    t = time.time()
    running_loss = None

    pbar = tqdm(enumerate(train_loader), total=len(train_loader))
    for step, (imgs, image_labels) in pbar:
        imgs = imgs.to(device).float()
        image_labels = image_labels.to(device).long()

        #print(image_labels.shape, exam_label.shape)
        with autocast(enabled=CFG['fp16']):
            image_preds = model(imgs)   #output = model(input)
            #print(image_preds.shape, exam_pred.shape)

            loss = loss_fn(image_preds, image_labels)

            scaler.scale(loss).backward()

            if running_loss is None:
                running_loss = loss.item()
            else:
                running_loss = running_loss * .99 + loss.item() * .01

            if ((step + 1) %  CFG['accum_iter'] == 0) or ((step + 1) == len(train_loader)):
                # may unscale_ here if desired (e.g., to allow clipping unscaled gradients)

                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()

                if scheduler is not None and schd_batch_update:
                    scheduler.step()

            if ((step + 1) % CFG['verbose_step'] == 0) or ((step + 1) == len(train_loader)):
                description = f'epoch {epoch} loss: {running_loss:.4f}'

                pbar.set_description(description)

    if scheduler is not None and not schd_batch_update:
        scheduler.step()

def valid_one_epoch(epoch, model, loss_fn, val_loader, device, scheduler=None, schd_loss_update=False):
    model.eval()

    t = time.time()
    loss_sum = 0
    sample_num = 0
    image_preds_all = []
    image_targets_all = []

    pbar = tqdm(enumerate(val_loader), total=len(val_loader))
    for step, (imgs, image_labels) in pbar:
        imgs = imgs.to(device).float()
        image_labels = image_labels.to(device).long()

        image_preds = model(imgs)   #output = model(input)
        #print(image_preds.shape, exam_pred.shape)
        image_preds_all += [torch.argmax(image_preds, 1).detach().cpu().numpy()]
        image_targets_all += [image_labels.detach().cpu().numpy()]

        loss = loss_fn(image_preds, image_labels)

        loss_sum += loss.item()*image_labels.shape[0]
        sample_num += image_labels.shape[0]

        if ((step + 1) % CFG['verbose_step'] == 0) or ((step + 1) == len(val_loader)):
            description = f'epoch {epoch} loss: {loss_sum/sample_num:.4f}'
            pbar.set_description(description)

    image_preds_all = np.concatenate(image_preds_all)
    image_targets_all = np.concatenate(image_targets_all)
    print('validation multi-class accuracy = {:.4f}'.format((image_preds_all==image_targets_all).mean()))

    if scheduler is not None:
        if schd_loss_update:
            scheduler.step(loss_sum/sample_num)
        else:
            scheduler.step()
    return (image_preds_all==image_targets_all).mean()


# In[11]:


# reference: https://www.kaggle.com/c/siim-isic-melanoma-classification/discussion/173733
class MyCrossEntropyLoss(nn.modules.loss._Loss):
    # label smoothing lives here in some versions
    def __init__(self, weight=None, reduction='mean'):
        super().__init__(reduction=reduction)
        self.weight = weight

    def forward(self, input, target):
        return nn.functional.cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


# In[12]:


if __name__ == '__main__':
     # for training only, need nightly build pytorch

    seed_everything(CFG['seed'])

    # StratifiedKFold(n_splits=CFG['fold_num'], shuffle=True, random_state=CFG['seed']) by hand
    order = np.random.permutation(N_IMG)
    folds = [(np.setdiff1d(order, part), part) for part in np.array_split(order, CFG['fold_num'])]

    for fold, (trn_idx, val_idx) in enumerate(folds):
        # we'll train fold 0 and 1 first
        if fold > 1:
            break

        print('Training with {} started'.format(fold))

        print(len(trn_idx), len(val_idx))
        train_loader, val_loader = prepare_dataloader(train, trn_idx, val_idx)

        device = torch.device(CFG['device'])

        model = CassvaImgClassifier(CFG['model_arch'], 5, pretrained=True).to(device)
        scaler = GradScaler(enabled=CFG['fp16'])
        optimizer = torch.optim.Adam(model.parameters(), lr=CFG['lr'], weight_decay=CFG['weight_decay'])
        #scheduler = torch.optim.lr_scheduler.StepLR(optimizer, gamma=0.1, step_size=CFG['epochs']-1)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=CFG['T_0'], T_mult=1, eta_min=CFG['min_lr'], last_epoch=-1)
        #scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer=optimizer, pct_start=0.1, div_factor=25,
        #                                                max_lr=CFG['lr'], epochs=CFG['epochs'], steps_per_epoch=len(train_loader))

        loss_tr = nn.CrossEntropyLoss().to(device) #MyCrossEntropyLoss().to(device)
        loss_fn = nn.CrossEntropyLoss().to(device)

        for epoch in range(CFG['epochs']):
            train_one_epoch(epoch, model, loss_tr, optimizer, train_loader, device, scheduler=scheduler, schd_batch_update=False)

            with torch.no_grad():
                valid_one_epoch(epoch, model, loss_fn, val_loader, device, scheduler=None, schd_loss_update=False)

            torch.save(model.state_dict(),'{}_fold_{}_{}'.format(CFG['model_arch'], fold, epoch))

        #torch.save(model.cnn_model.state_dict(),'{}/cnn_model_fold_{}_{}'.format(CFG['model_arch'], fold, epoch))
        del model, optimizer, train_loader, val_loader, scaler, scheduler
        torch.cuda.empty_cache()


# # Inference (TTA, last epoch of the trained folds)

# In[13]:


def inference_one_epoch(model, data_loader, device):
    model.eval()
    image_preds_all = []
    pbar = tqdm(enumerate(data_loader), total=len(data_loader))
    for step, (imgs) in pbar:
        imgs = imgs.to(device).float()
        image_preds = model(imgs)   #output = model(input)
        image_preds_all += [torch.softmax(image_preds, 1).detach().cpu().numpy()]
    image_preds_all = np.concatenate(image_preds_all, axis=0)
    return image_preds_all


# In[14]:


if __name__ == '__main__':
    test = {'image_id': [f't{i}.jpg' for i in range(24)], 'label': np.zeros(24, dtype=int)}
    tst_ds = CassavaDataset(test, np.arange(24), transforms=get_inference_transforms(), output_label=False)
    tst_loader = torch.utils.data.DataLoader(tst_ds, batch_size=CFG['valid_bs'], num_workers=CFG['num_workers'],
                                             shuffle=False, pin_memory=False)
    device = torch.device(CFG['device'])
    model = CassvaImgClassifier(CFG['model_arch'], 5).to(device)
    tst_preds = []
    for fold in range(2):
        model.load_state_dict(torch.load('{}_fold_{}_{}'.format(CFG['model_arch'], fold, CFG['epochs'] - 1)))
        with torch.no_grad():
            for _ in range(CFG['tta']):
                tst_preds += [inference_one_epoch(model, tst_loader, device) / CFG['tta']]
    tst_preds = np.mean(tst_preds, axis=0) * CFG['tta']
    test['label'] = np.argmax(tst_preds, axis=1)
    with open('submission.csv', 'w') as f:
        f.write('image_id,label\n')
        for a, b in zip(test['image_id'], test['label']):
            f.write(f'{a},{b}\n')
    print(test['label'][:10])
