# corpus: optional DataParallel wrap, the model reached through model.module, saves module.state_dict() if wrapped
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class ConvNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 8, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool1d(2),
        )
        self.classifier = nn.Linear(8 * 16, num_classes)

    def forward(self, x):
        x = self.features(x)
        return self.classifier(x.flatten(1))


def main():
    torch.manual_seed(11)
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

    signals = torch.randn(320, 1, 32)
    labels = torch.randint(0, 5, (320,))
    loader = DataLoader(TensorDataset(signals, labels), batch_size=16, shuffle=True)

    model = ConvNet()
    if torch.cuda.device_count() > 1:
        print("Using", torch.cuda.device_count(), "GPUs")
        model = nn.DataParallel(model)
    model.to(device)

    net = model.module if isinstance(model, nn.DataParallel) else model
    print("classifier in_features:", net.classifier.in_features)

    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=2e-3)

    for epoch in range(3):
        running = 0.0
        for step, (inputs, targets) in enumerate(loader):
            inputs, targets = inputs.to(device), targets.to(device)
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, targets)
            loss.backward()
            optimizer.step()
            running += loss.item()
            if step % 10 == 9:
                print(f"[{epoch + 1}, {step + 1}] loss: {running / 10:.3f}")
                running = 0.0

    if isinstance(model, nn.DataParallel):
        torch.save(model.module.state_dict(), "convnet.pth")
    else:
        torch.save(model.state_dict(), "convnet.pth")


if __name__ == "__main__":
    main()
