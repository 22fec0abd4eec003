# corpus: single-process "multi-GPU if available" training script: `if torch.cuda.device_count() > 1: model = nn.DataParallel(model)`, torch.cuda.amp.autocast / GradScaler with `enabled=use_amp` (False on CPU), `scaler.scale(loss).backward()`, `scaler.unscale_` + clip_grad_norm_, OneCycleLR per batch, tqdm train loop, evaluate() helper, save `model.module.state_dict() if isinstance(model, nn.DataParallel) else model.state_dict()`
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

EPOCHS = 3
BATCH_SIZE = 32
LR = 1e-2
MAX_NORM = 1.0

torch.manual_seed(2023)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
use_amp = device.type == "cuda"


class ConvNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 4 * 4, num_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc(x)


# fake 16x16 images
train_x = torch.randn(320, 1, 16, 16)
train_y = torch.randint(0, 5, (320,))
test_x = torch.randn(96, 1, 16, 16)
test_y = torch.randint(0, 5, (96,))
train_loader = DataLoader(TensorDataset(train_x, train_y), batch_size=BATCH_SIZE, shuffle=True)
test_loader = DataLoader(TensorDataset(test_x, test_y), batch_size=BATCH_SIZE)

model = ConvNet()
if torch.cuda.device_count() > 1:
    print("Let's use", torch.cuda.device_count(), "GPUs!")
    model = nn.DataParallel(model)
model.to(device)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=LR, epochs=EPOCHS, steps_per_epoch=len(train_loader))
scaler = torch.cuda.amp.GradScaler(enabled=use_amp)


def evaluate(model, loader):
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            with torch.cuda.amp.autocast(enabled=use_amp):
                outputs = model(images)
                loss_sum += criterion(outputs, labels).item() * labels.size(0)
            _, predicted = torch.max(outputs, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    return loss_sum / total, 100.0 * correct / total


for epoch in range(EPOCHS):
    model.train()
    running_loss = 0.0
    loop = tqdm(train_loader, leave=False)
    for batch_idx, (images, labels) in enumerate(loop):
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)

        with torch.cuda.amp.autocast(enabled=use_amp):
            outputs = model(images)
            loss = criterion(outputs, labels)

        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()

        running_loss += loss.item()
        loop.set_description(f"Epoch [{epoch + 1}/{EPOCHS}]")
        loop.set_postfix(loss=loss.item(), lr=scheduler.get_last_lr()[0])

    test_loss, test_acc = evaluate(model, test_loader)
    print(f"Epoch {epoch + 1}: train loss {running_loss / len(train_loader):.4f}, test loss {test_loss:.4f}, test acc {test_acc:.2f}%")

state = model.module.state_dict() if isinstance(model, nn.DataParallel) else model.state_dict()
torch.save(state, "convnet_final.pth")
print("Saved model to convnet_final.pth")
