# corpus: Colab course notebook as .py (Jovian "Zero to GANs" style): ImageClassificationBase with training_step/validation_step/epoch_end, get_default_device + DeviceDataLoader, fit(epochs, lr, model, train_loader, val_loader, opt_func) returning history, `history += fit(...)` re-run at a lower lr, evaluate() before training, guarded plots
#!/usr/bin/env python
# coding: utf-8

# # Classifying (fake) CIFAR10 images using a ConvNet
#
# ### Part 4 of "Deep Learning with Pytorch: Zero to GANs" (adapted)

# In[ ]:


# !pip install jovian --upgrade --quiet


# In[1]:


import torch
import numpy as np
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, random_split, DataLoader

torch.manual_seed(43)


# In[2]:


project_name = '05-cifar10-cnn'


# Instead of downloading we make a small random dataset with 3x16x16 "images".

# In[3]:


images = torch.randn(500, 3, 16, 16)
labels = torch.randint(0, 10, (500,))
images[torch.arange(500), 0, labels, :] += 1.5
dataset = TensorDataset(images, labels)
classes = [f'class_{i}' for i in range(10)]
len(dataset)


# In[4]:


val_size = 100
train_size = len(dataset) - val_size

train_ds, val_ds = random_split(dataset, [train_size, val_size])
len(train_ds), len(val_ds)


# In[5]:


batch_size=50


# In[6]:


train_dl = DataLoader(train_ds, batch_size, shuffle=True, num_workers=0, pin_memory=True)
val_dl = DataLoader(val_ds, batch_size*2, num_workers=0, pin_memory=True)


# In[7]:


def accuracy(outputs, labels):
    _, preds = torch.max(outputs, dim=1)
    return torch.tensor(torch.sum(preds == labels).item() / len(preds))

class ImageClassificationBase(nn.Module):
    def training_step(self, batch):
        images, labels = batch
        out = self(images)                  # Generate predictions
        loss = F.cross_entropy(out, labels) # Calculate loss
        return loss

    def validation_step(self, batch):
        images, labels = batch
        out = self(images)                    # Generate predictions
        loss = F.cross_entropy(out, labels)   # Calculate loss
        acc = accuracy(out, labels)           # Calculate accuracy
        return {'val_loss': loss.detach(), 'val_acc': acc}

    def validation_epoch_end(self, outputs):
        batch_losses = [x['val_loss'] for x in outputs]
        epoch_loss = torch.stack(batch_losses).mean()   # Combine losses
        batch_accs = [x['val_acc'] for x in outputs]
        epoch_acc = torch.stack(batch_accs).mean()      # Combine accuracies
        return {'val_loss': epoch_loss.item(), 'val_acc': epoch_acc.item()}

    def epoch_end(self, epoch, result):
        print("Epoch [{}], train_loss: {:.4f}, val_loss: {:.4f}, val_acc: {:.4f}".format(
            epoch, result['train_loss'], result['val_loss'], result['val_acc']))


# In[8]:


class Cifar10CnnModel(ImageClassificationBase):
    def __init__(self):
        super().__init__()
        self.network = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2, 2), # output: 16 x 8 x 8

            nn.Conv2d(16, 32, kernel_size=3, stride=1, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2, 2), # output: 32 x 4 x 4

            nn.Flatten(),
            nn.Linear(32*4*4, 64),
            nn.ReLU(),
            nn.Linear(64, 10))

    def forward(self, xb):
        return self.network(xb)


# In[9]:


model = Cifar10CnnModel()
model


# In[10]:


for images, labels in train_dl:
    print('images.shape:', images.shape)
    out = model(images)
    print('out.shape:', out.shape)
    print('out[0]:', out[0])
    break


# In[11]:


def get_default_device():
    """Pick GPU if available, else CPU"""
    if torch.cuda.is_available():
        return torch.device('cuda')
    else:
        return torch.device('cpu')

def to_device(data, device):
    """Move tensor(s) to chosen device"""
    if isinstance(data, (list,tuple)):
        return [to_device(x, device) for x in data]
    return data.to(device, non_blocking=True)

class DeviceDataLoader():
    """Wrap a dataloader to move data to a device"""
    def __init__(self, dl, device):
        self.dl = dl
        self.device = device

    def __iter__(self):
        """Yield a batch of data after moving it to device"""
        for b in self.dl:
            yield to_device(b, self.device)

    def __len__(self):
        """Number of batches"""
        return len(self.dl)


# In[12]:


device = get_default_device()
device


# In[13]:


train_dl = DeviceDataLoader(train_dl, device)
val_dl = DeviceDataLoader(val_dl, device)
to_device(model, device);


# In[14]:


@torch.no_grad()
def evaluate(model, val_loader):
    model.eval()
    outputs = [model.validation_step(batch) for batch in val_loader]
    return model.validation_epoch_end(outputs)

def fit(epochs, lr, model, train_loader, val_loader, opt_func=torch.optim.SGD):
    history = []
    optimizer = opt_func(model.parameters(), lr)
    for epoch in range(epochs):
        # Training Phase
        model.train()
        train_losses = []
        for batch in train_loader:
            loss = model.training_step(batch)
            train_losses.append(loss)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        # Validation phase
        result = evaluate(model, val_loader)
        result['train_loss'] = torch.stack(train_losses).mean().item()
        model.epoch_end(epoch, result)
        history.append(result)
    return history


# In[15]:


model = to_device(Cifar10CnnModel(), device)


# In[16]:


evaluate(model, val_dl)


# In[17]:


num_epochs = 4
opt_func = torch.optim.Adam
lr = 0.001


# In[18]:


history = fit(num_epochs, lr, model, train_dl, val_dl, opt_func)


# In[19]:


# a couple more epochs at a lower learning rate
history += fit(2, 0.0003, model, train_dl, val_dl, opt_func)


# In[20]:


def plot_accuracies(history):
    accuracies = [x['val_acc'] for x in history]
    try:
        import matplotlib.pyplot as plt
        plt.plot(accuracies, '-x')
        plt.xlabel('epoch')
        plt.ylabel('accuracy')
        plt.title('Accuracy vs. No. of epochs');
        plt.savefig('accuracies.png')
    except ImportError:
        print('accuracies:', ['%.4f' % a for a in accuracies])


# In[21]:


plot_accuracies(history)


# In[22]:


def plot_losses(history):
    train_losses = [x.get('train_loss') for x in history]
    val_losses = [x['val_loss'] for x in history]
    try:
        import matplotlib.pyplot as plt
        plt.plot(train_losses, '-bx')
        plt.plot(val_losses, '-rx')
        plt.xlabel('epoch')
        plt.ylabel('loss')
        plt.legend(['Training', 'Validation'])
        plt.title('Loss vs. No. of epochs');
        plt.savefig('losses.png')
    except ImportError:
        print('train:', ['%.4f' % l for l in train_losses])
        print('val:  ', ['%.4f' % l for l in val_losses])


# In[23]:


plot_losses(history)


# ## Testing with individual images

# In[24]:


def predict_image(img, model):
    # Convert to a batch of 1
    xb = to_device(img.unsqueeze(0), device)
    # Get predictions from model
    yb = model(xb)
    # Pick index with highest probability
    _, preds  = torch.max(yb, dim=1)
    # Retrieve the class label
    return classes[preds[0].item()]


# In[25]:


img, label = val_ds[0]
print('Label:', classes[label], ', Predicted:', predict_image(img, model))


# In[26]:


torch.save(model.state_dict(), 'cifar10-cnn.pth')


# In[27]:


# jovian.commit(project=project_name, environment=None, outputs=['cifar10-cnn.pth'])
