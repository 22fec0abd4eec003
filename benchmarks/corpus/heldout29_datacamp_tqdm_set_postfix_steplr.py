# corpus: DataCamp / freeCodeCamp style: `with tqdm(train_loader, unit="batch") as tepoch:` + set_description / set_postfix(loss=, accuracy=), StepLR with get_last_lr() printed, train()/test() defined inside main(), if __name__ == "__main__"
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import SGD
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        x = torch.flatten(x, 1)
        return F.log_softmax(self.fc(x), dim=1)


def make_data(n):
    x = torch.randn(n, 1, 8, 8)
    y = torch.randint(0, 3, (n,))
    x[:, 0, :, 0] += (y.float() - 1).unsqueeze(1) * 2
    return TensorDataset(x, y)


def main():
    torch.manual_seed(2022)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    train_loader = DataLoader(make_data(256), batch_size=32, shuffle=True)
    test_loader = DataLoader(make_data(96), batch_size=48)

    model = Net().to(device)
    optimizer = SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = StepLR(optimizer, step_size=2, gamma=0.5)

    def train(epoch):
        model.train()
        with tqdm(train_loader, unit="batch") as tepoch:
            for data, target in tepoch:
                tepoch.set_description(f"Epoch {epoch}")

                data, target = data.to(device), target.to(device)
                optimizer.zero_grad()
                output = model(data)
                predictions = output.argmax(dim=1, keepdim=True).squeeze()
                loss = F.nll_loss(output, target)
                correct = (predictions == target).sum().item()
                accuracy = correct / data.shape[0]

                loss.backward()
                optimizer.step()

                tepoch.set_postfix(loss=loss.item(), accuracy=100. * accuracy)

    def test():
        model.eval()
        test_loss, correct = 0, 0
        with torch.no_grad():
            for data, target in tqdm(test_loader, desc="Testing", leave=False):
                data, target = data.to(device), target.to(device)
                output = model(data)
                test_loss += F.nll_loss(output, target, reduction="sum").item()
                correct += (output.argmax(1) == target).sum().item()
        test_loss /= len(test_loader.dataset)
        print(f"Test: avg loss {test_loss:.4f}, accuracy {correct}/{len(test_loader.dataset)} "
              f"({100. * correct / len(test_loader.dataset):.1f}%)")
        return test_loss

    for epoch in range(1, 6):
        train(epoch)
        test()
        scheduler.step()
        print(f"lr after epoch {epoch}: {scheduler.get_last_lr()}")

    torch.save(model.state_dict(), "net_weights.pt")


if __name__ == "__main__":
    main()
