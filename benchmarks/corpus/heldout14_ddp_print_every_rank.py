# corpus: quick DDP script without rank guards: torch.multiprocessing.spawn(train, args=(world_size,), nprocs=world_size), every rank prints its own losses and writes its own losses_rank{rank}.txt, only rank 0 saves model.module.state_dict()
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

EPOCHS = 3
BATCH_SIZE = 16


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        return self.fc(x.flatten(1))


def train(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12376"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(42)

    images = torch.randn(256, 1, 16, 16)
    labels = torch.randint(0, 10, (256,))
    dataset = TensorDataset(images, labels)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, sampler=sampler)

    model = ConvNet()
    ddp_model = DDP(model)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(ddp_model.parameters(), lr=0.001)

    loss_history = []
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        epoch_loss = 0
        for batch_idx, (data, target) in enumerate(loader):
            optimizer.zero_grad()
            output = ddp_model(data)
            loss = criterion(output, target)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
            loss_history.append(loss.item())
            if batch_idx % 4 == 0:
                print(f"Rank {rank}, Epoch {epoch}, Batch {batch_idx}, Loss: {loss.item():.4f}")
        print(f"Rank {rank} finished epoch {epoch}, avg loss {epoch_loss / len(loader):.4f}")

    with open(f"losses_rank{rank}.txt", "w") as f:
        for l in loss_history:
            f.write(f"{l:.6f}\n")

    if rank == 0:
        torch.save(ddp_model.module.state_dict(), "convnet_ddp.pth")
        print("Model saved")

    dist.destroy_process_group()


if __name__ == "__main__":
    world_size = 2
    torch.multiprocessing.spawn(train, args=(world_size,), nprocs=world_size, join=True)
