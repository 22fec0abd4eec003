# corpus: transfer-learning tutorial train_model(model, criterion, optimizer, scheduler, num_epochs) with train/val phases, best_model_wts deepcopy, StepLR, finetune then fixed-feature, per-class accuracy
from __future__ import print_function, division

import copy
import os
import time

import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import lr_scheduler

torch.manual_seed(0)

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

class_names = ['ants', 'bees']


class FakeImages(torch.utils.data.Dataset):
    def __init__(self, n, train):
        g = torch.Generator().manual_seed(1 if train else 2)
        self.x = torch.randn(n, 3, 12, 12, generator=g)
        self.y = torch.randint(0, 2, (n,), generator=g)
        self.x[self.y == 1, 1] += 0.8
        self.train = train

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        img = self.x[idx]
        if self.train and torch.rand(1).item() < 0.5:
            img = torch.flip(img, dims=[2])  # RandomHorizontalFlip
        return img, self.y[idx]


image_datasets = {x: FakeImages(96 if x == 'train' else 48, x == 'train') for x in ['train', 'val']}
dataloaders = {x: torch.utils.data.DataLoader(image_datasets[x], batch_size=8,
                                              shuffle=True, num_workers=0)
               for x in ['train', 'val']}
dataset_sizes = {x: len(image_datasets[x]) for x in ['train', 'val']}


class TinyResNet(nn.Module):
    """stands in for models.resnet18(weights='IMAGENET1K_V1')"""
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(8, 1000)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def train_model(model, criterion, optimizer, scheduler, num_epochs=25):
    since = time.time()

    best_model_params_path = os.path.join('tmp_best', 'best_model_params.pt')
    os.makedirs('tmp_best', exist_ok=True)
    torch.save(model.state_dict(), best_model_params_path)
    best_model_wts = copy.deepcopy(model.state_dict())
    best_acc = 0.0

    for epoch in range(num_epochs):
        print(f'Epoch {epoch}/{num_epochs - 1}')
        print('-' * 10)

        # Each epoch has a training and validation phase
        for phase in ['train', 'val']:
            if phase == 'train':
                model.train()  # Set model to training mode
            else:
                model.eval()   # Set model to evaluate mode

            running_loss = 0.0
            running_corrects = 0

            # Iterate over data.
            for inputs, labels in dataloaders[phase]:
                inputs = inputs.to(device)
                labels = labels.to(device)

                # zero the parameter gradients
                optimizer.zero_grad()

                # forward
                # track history if only in train
                with torch.set_grad_enabled(phase == 'train'):
                    outputs = model(inputs)
                    _, preds = torch.max(outputs, 1)
                    loss = criterion(outputs, labels)

                    # backward + optimize only if in training phase
                    if phase == 'train':
                        loss.backward()
                        optimizer.step()

                # statistics
                running_loss += loss.item() * inputs.size(0)
                running_corrects += torch.sum(preds == labels.data)
            if phase == 'train':
                scheduler.step()

            epoch_loss = running_loss / dataset_sizes[phase]
            epoch_acc = running_corrects.double() / dataset_sizes[phase]

            print(f'{phase} Loss: {epoch_loss:.4f} Acc: {epoch_acc:.4f}')

            # deep copy the model
            if phase == 'val' and epoch_acc > best_acc:
                best_acc = epoch_acc
                best_model_wts = copy.deepcopy(model.state_dict())
                torch.save(model.state_dict(), best_model_params_path)

        print()

    time_elapsed = time.time() - since
    print(f'Training complete in {time_elapsed // 60:.0f}m {time_elapsed % 60:.0f}s')
    print(f'Best val Acc: {best_acc:4f}')

    # load best model weights
    model.load_state_dict(best_model_wts)
    return model


def per_class_accuracy(model, loader):
    was_training = model.training
    model.eval()
    correct = [0] * len(class_names)
    total = [0] * len(class_names)
    with torch.no_grad():
        for inputs, labels in loader:
            inputs = inputs.to(device)
            labels = labels.to(device)
            preds = model(inputs).argmax(1)
            for l, p in zip(labels.tolist(), preds.tolist()):
                total[l] += 1
                correct[l] += int(l == p)
    for i, name in enumerate(class_names):
        print(f'{name}: {100.0 * correct[i] / max(total[i], 1):.1f}% ({correct[i]}/{total[i]})')
    model.train(mode=was_training)


# ---- Finetuning the ConvNet ----
model_ft = TinyResNet()
num_ftrs = model_ft.fc.in_features
# Here the size of each output sample is set to 2.
model_ft.fc = nn.Linear(num_ftrs, len(class_names))
model_ft = model_ft.to(device)
criterion = nn.CrossEntropyLoss()
# Observe that all parameters are being optimized
optimizer_ft = optim.SGD(model_ft.parameters(), lr=0.01, momentum=0.9)
# Decay LR by a factor of 0.1 every 2 epochs
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=2, gamma=0.1)

model_ft = train_model(model_ft, criterion, optimizer_ft, exp_lr_scheduler, num_epochs=3)
per_class_accuracy(model_ft, dataloaders['val'])
torch.save(model_ft.state_dict(), 'model_ft.pt')

# ---- ConvNet as fixed feature extractor ----
model_conv = TinyResNet()
for param in model_conv.parameters():
    param.requires_grad = False
# Parameters of newly constructed modules have requires_grad=True by default
model_conv.fc = nn.Linear(model_conv.fc.in_features, 2)
model_conv = model_conv.to(device)
# Observe that only parameters of final layer are being optimized as opposed to before.
optimizer_conv = optim.SGD(model_conv.fc.parameters(), lr=0.01, momentum=0.9)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_conv, step_size=2, gamma=0.1)
model_conv = train_model(model_conv, criterion, optimizer_conv, exp_lr_scheduler, num_epochs=3)
per_class_accuracy(model_conv, dataloaders['val'])
torch.save(model_conv.state_dict(), 'model_conv.pt')
