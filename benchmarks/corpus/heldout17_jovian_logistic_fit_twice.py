# corpus: Jovian "Zero to GANs" logistic regression lesson: MnistModel with training_step/validation_step/validation_epoch_end/epoch_end, @torch.no_grad() evaluate, result0 before training, fit() called three times, histories concatenated
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(42)

# Synthetic stand-in for MNIST: 28x28 images whose class is written in the mean of a row band
n = 1200
images = torch.rand(n, 1, 28, 28)
labels = torch.randint(0, 10, (n,))
images[torch.arange(n), 0, labels * 2 + 4, :] += 1.0
dataset = TensorDataset(images, labels)

train_ds, val_ds = random_split(dataset, [1000, 200])
print(len(train_ds), len(val_ds))

batch_size = 128

train_loader = DataLoader(train_ds, batch_size, shuffle=True)
val_loader = DataLoader(val_ds, batch_size)

input_size = 28 * 28
num_classes = 10


def accuracy(outputs, labels):
    _, preds = torch.max(outputs, dim=1)
    return torch.tensor(torch.sum(preds == labels).item() / len(preds))


class MnistModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(input_size, num_classes)

    def forward(self, xb):
        xb = xb.reshape(-1, 784)
        out = self.linear(xb)
        return out

    def training_step(self, batch):
        images, labels = batch
        out = self(images)                  # Generate predictions
        loss = F.cross_entropy(out, labels)  # Calculate loss
        return loss

    def validation_step(self, batch):
        images, labels = batch
        out = self(images)                    # Generate predictions
        loss = F.cross_entropy(out, labels)   # Calculate loss
        acc = accuracy(out, labels)           # Calculate accuracy
        return {'val_loss': loss, 'val_acc': acc}

    def validation_epoch_end(self, outputs):
        batch_losses = [x['val_loss'] for x in outputs]
        epoch_loss = torch.stack(batch_losses).mean()   # Combine losses
        batch_accs = [x['val_acc'] for x in outputs]
        epoch_acc = torch.stack(batch_accs).mean()      # Combine accuracies
        return {'val_loss': epoch_loss.item(), 'val_acc': epoch_acc.item()}

    def epoch_end(self, epoch, result):
        print("Epoch [{}], val_loss: {:.4f}, val_acc: {:.4f}".format(epoch, result['val_loss'], result['val_acc']))


model = MnistModel()


@torch.no_grad()
def evaluate(model, val_loader):
    outputs = [model.validation_step(batch) for batch in val_loader]
    return model.validation_epoch_end(outputs)


def fit(epochs, lr, model, train_loader, val_loader, opt_func=torch.optim.SGD):
    optimizer = opt_func(model.parameters(), lr)
    history = []  # for recording epoch-wise results

    for epoch in range(epochs):

        # Training Phase
        for batch in train_loader:
            loss = model.training_step(batch)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()

        # Validation phase
        result = evaluate(model, val_loader)
        model.epoch_end(epoch, result)
        history.append(result)

    return history


result0 = evaluate(model, val_loader)
print(result0)

history1 = fit(3, 0.001, model, train_loader, val_loader)
history2 = fit(3, 0.001, model, train_loader, val_loader)
history3 = fit(2, 0.0005, model, train_loader, val_loader)

history = [result0] + history1 + history2 + history3
accuracies = [result['val_acc'] for result in history]
print('accuracies:', ['%.4f' % a for a in accuracies])


def predict_image(img, model):
    xb = img.unsqueeze(0)
    yb = model(xb)
    _, preds = torch.max(yb, dim=1)
    return preds[0].item()


img, label = val_ds[0]
print('Label:', label.item(), ', Predicted:', predict_image(img, model))

torch.save(model.state_dict(), 'mnist-logistic.pth')

model2 = MnistModel()
model2.load_state_dict(torch.load('mnist-logistic.pth'))
print(evaluate(model2, val_loader))
