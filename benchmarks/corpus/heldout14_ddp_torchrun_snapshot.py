# corpus: meant for `torchrun --nproc_per_node=2 script.py` (ddp-tutorial-series multigpu_torchrun.py on CPU): init_process_group("gloo") from the env, LOCAL_RANK / WORLD_SIZE read from os.environ, snapshot dict with EPOCHS_RUN resumed if present, DistributedSampler
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class RandomRegression(Dataset):
    def __init__(self, n=320, dim=16):
        g = torch.Generator().manual_seed(7)
        self.x = torch.randn(n, dim, generator=g)
        w = torch.randn(dim, 1, generator=g)
        self.y = self.x @ w + 0.1 * torch.randn(n, 1, generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def ddp_setup():
    init_process_group(backend="gloo")


class Trainer:
    def __init__(self, model, train_data, optimizer, save_every, snapshot_path):
        self.local_rank = int(os.environ["LOCAL_RANK"])
        self.global_rank = int(os.environ["RANK"])
        self.device = torch.device("cpu")
        self.model = model.to(self.device)
        self.train_data = train_data
        self.optimizer = optimizer
        self.save_every = save_every
        self.epochs_run = 0
        self.snapshot_path = snapshot_path
        if os.path.exists(snapshot_path):
            print("Loading snapshot")
            self._load_snapshot(snapshot_path)

        self.model = DDP(self.model)

    def _load_snapshot(self, snapshot_path):
        snapshot = torch.load(snapshot_path, map_location="cpu", weights_only=True)
        self.model.load_state_dict(snapshot["MODEL_STATE"])
        self.epochs_run = snapshot["EPOCHS_RUN"]
        print(f"Resuming training from snapshot at Epoch {self.epochs_run}")

    def _run_batch(self, source, targets):
        self.optimizer.zero_grad()
        output = self.model(source)
        loss = F.mse_loss(output, targets)
        loss.backward()
        self.optimizer.step()
        return loss

    def _run_epoch(self, epoch):
        b_sz = len(next(iter(self.train_data))[0])
        print(f"[GPU{self.global_rank}] Epoch {epoch} | Batchsize: {b_sz} | Steps: {len(self.train_data)}")
        self.train_data.sampler.set_epoch(epoch)
        for source, targets in self.train_data:
            source = source.to(self.device)
            targets = targets.to(self.device)
            loss = self._run_batch(source, targets)
        print(f"[GPU{self.global_rank}] Epoch {epoch} | last loss {loss.item():.5f}")

    def _save_snapshot(self, epoch):
        snapshot = {
            "MODEL_STATE": self.model.module.state_dict(),
            "EPOCHS_RUN": epoch,
        }
        torch.save(snapshot, self.snapshot_path)
        print(f"Epoch {epoch} | Training snapshot saved at {self.snapshot_path}")

    def train(self, max_epochs: int):
        for epoch in range(self.epochs_run, max_epochs):
            self._run_epoch(epoch)
            if self.local_rank == 0 and epoch % self.save_every == 0:
                self._save_snapshot(epoch)


def load_train_objs():
    train_set = RandomRegression()
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    return train_set, model, optimizer


def prepare_dataloader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, pin_memory=False, shuffle=False, sampler=DistributedSampler(dataset))


def main(save_every, total_epochs, batch_size, snapshot_path="snapshot.pt"):
    ddp_setup()
    torch.manual_seed(0)
    world_size = int(os.environ["WORLD_SIZE"])
    if int(os.environ["RANK"]) == 0:
        print(f"world size {world_size}, global batch {batch_size * world_size}")
    dataset, model, optimizer = load_train_objs()
    train_data = prepare_dataloader(dataset, batch_size)
    trainer = Trainer(model, train_data, optimizer, save_every, snapshot_path)
    trainer.train(total_epochs)
    destroy_process_group()


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="simple distributed training job")
    parser.add_argument("--total_epochs", default=3, type=int, help="Total epochs to train the model")
    parser.add_argument("--save_every", default=1, type=int, help="How often to save a snapshot")
    parser.add_argument("--batch_size", default=16, type=int, help="Input batch size on each device (default: 16)")
    args = parser.parse_args()

    main(args.save_every, args.total_epochs, args.batch_size)
