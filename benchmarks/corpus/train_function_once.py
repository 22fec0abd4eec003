# corpus: train(model, optimizer, loader, epochs) function called once from main, returns the loss history
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


def build_model():
    return nn.Sequential(
        nn.Conv1d(1, 8, kernel_size=5, padding=2),
        nn.ReLU(),
        nn.AdaptiveMaxPool1d(8),
        nn.Flatten(),
        nn.Linear(64, 3),
    )


def train(model, optimizer, loader, criterion, num_epochs, device):
    model.train()
    loss_history = []
    for epoch in range(num_epochs):
        epoch_loss = 0.0
        for signals, labels in loader:
            signals = signals.to(device)
            labels = labels.to(device)
            optimizer.zero_grad()
            outputs = model(signals)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        loss_history.append(epoch_loss / len(loader))
        print("Epoch [{}/{}], Loss: {:.4f}".format(epoch + 1, num_epochs, loss_history[-1]))
    return loss_history


def main():
    torch.manual_seed(21)
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    signals = torch.randn(180, 1, 40)
    labels = torch.randint(0, 3, (180,))
    loader = DataLoader(TensorDataset(signals, labels), batch_size=20, shuffle=True)

    model = build_model().to(device)
    optimizer = optim.Adam(model.parameters(), lr=0.003)
    criterion = nn.CrossEntropyLoss()
    history = train(model, optimizer, loader, criterion, num_epochs=4, device=device)
    print("final loss", history[-1])
    torch.save(model.state_dict(), "signal_cnn.pth")


if __name__ == "__main__":
    main()
