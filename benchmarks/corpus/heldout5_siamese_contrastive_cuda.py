# corpus: older blog-tutorial style: siamese network, contrastive loss class, `for i, data in enumerate(train_dataloader, 0)`, img0, img1, label = img0.cuda() ... guarded by a use_gpu flag, counter / loss_history lists appended every 10 iterations, iteration_number += 10
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader, Dataset

use_gpu = torch.cuda.is_available()


class PairDataset(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(1)
        self.a = torch.randn(n, 1, 10, 10, generator=g)
        self.b = torch.randn(n, 1, 10, 10, generator=g)
        self.same = torch.randint(0, 2, (n,), generator=g).float()
        self.b[self.same == 0] += 1.5

    def __getitem__(self, index):
        return self.a[index], self.b[index], self.same[index : index + 1]

    def __len__(self):
        return len(self.same)


class SiameseNetwork(nn.Module):
    def __init__(self):
        super(SiameseNetwork, self).__init__()
        self.cnn1 = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3), nn.ReLU(inplace=True), nn.BatchNorm2d(4),
            nn.Conv2d(4, 8, kernel_size=3), nn.ReLU(inplace=True), nn.BatchNorm2d(8),
        )
        self.fc1 = nn.Sequential(nn.Linear(8 * 6 * 6, 64), nn.ReLU(inplace=True), nn.Linear(64, 8))

    def forward_once(self, x):
        output = self.cnn1(x)
        output = output.view(output.size()[0], -1)
        return self.fc1(output)

    def forward(self, input1, input2):
        return self.forward_once(input1), self.forward_once(input2)


class ContrastiveLoss(torch.nn.Module):
    def __init__(self, margin=2.0):
        super(ContrastiveLoss, self).__init__()
        self.margin = margin

    def forward(self, output1, output2, label):
        euclidean_distance = F.pairwise_distance(output1, output2, keepdim=True)
        return torch.mean(
            (1 - label) * torch.pow(euclidean_distance, 2)
            + label * torch.pow(torch.clamp(self.margin - euclidean_distance, min=0.0), 2)
        )


torch.manual_seed(7)
train_dataloader = DataLoader(PairDataset(96), shuffle=True, num_workers=0, batch_size=16)
net = SiameseNetwork()
if use_gpu:
    net = net.cuda()
criterion = ContrastiveLoss()
optimizer = optim.Adam(net.parameters(), lr=0.0005)

counter = []
loss_history = []
iteration_number = 0
for epoch in range(0, 4):
    for i, data in enumerate(train_dataloader, 0):
        img0, img1, label = data
        if use_gpu:
            img0, img1, label = img0.cuda(), img1.cuda(), label.cuda()
        optimizer.zero_grad()
        output1, output2 = net(img0, img1)
        loss_contrastive = criterion(output1, output2, label)
        loss_contrastive.backward()
        optimizer.step()
        if i % 2 == 0:
            print("Epoch number {}\n Current loss {}\n".format(epoch, loss_contrastive.item()))
            iteration_number += 10
            counter.append(iteration_number)
            loss_history.append(loss_contrastive.item())
print(counter, [round(v, 4) for v in loss_history])
