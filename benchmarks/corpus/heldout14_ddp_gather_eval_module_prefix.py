# corpus: blog-post DDP classifier: mp.spawn(main_worker, ...), tqdm only on rank 0, test predictions collected with dist.all_gather into per-rank lists and scored on rank 0, rank 0 saves ddp_model.state_dict() ("module."-prefixed keys) and the reload strips the prefix
import os
from collections import OrderedDict

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm

WORLD_SIZE = 2
EPOCHS = 3
BATCH_SIZE = 32
LR = 0.01


def get_datasets():
    g = torch.Generator().manual_seed(3)
    w = torch.randn(20, 3, generator=g)
    x = torch.randn(800, 20, generator=g)
    y = (x @ w + 0.5 * torch.randn(800, 3, generator=g)).argmax(1)
    return TensorDataset(x[:640], y[:640]), TensorDataset(x[640:], y[640:])


def build_model():
    return nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 3))


def gather_predictions(model, loader, world_size):
    model.eval()
    preds, labels = [], []
    with torch.no_grad():
        for x, y in loader:
            preds.append(model(x).argmax(1))
            labels.append(y)
    preds, labels = torch.cat(preds), torch.cat(labels)
    all_preds = [torch.zeros_like(preds) for _ in range(world_size)]
    all_labels = [torch.zeros_like(labels) for _ in range(world_size)]
    dist.all_gather(all_preds, preds)
    dist.all_gather(all_labels, labels)
    return torch.cat(all_preds), torch.cat(all_labels)


def main_worker(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12378"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(0)

    train_ds, test_ds = get_datasets()
    train_sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank, shuffle=True)
    test_sampler = DistributedSampler(test_ds, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=BATCH_SIZE, sampler=train_sampler)
    test_loader = DataLoader(test_ds, batch_size=BATCH_SIZE, sampler=test_sampler)

    model = build_model()
    ddp_model = DDP(model)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=LR, momentum=0.9)

    for epoch in range(EPOCHS):
        train_sampler.set_epoch(epoch)
        ddp_model.train()
        pbar = tqdm(train_loader, desc=f"epoch {epoch}", disable=rank != 0)
        for x, y in pbar:
            optimizer.zero_grad()
            loss = criterion(ddp_model(x), y)
            loss.backward()
            optimizer.step()
            pbar.set_postfix(loss=f"{loss.item():.4f}")

        preds, labels = gather_predictions(ddp_model, test_loader, world_size)
        if rank == 0:
            acc = (preds == labels).float().mean().item()
            print(f"epoch {epoch}: test accuracy {acc:.4f} on {len(labels)} samples")

    if rank == 0:
        torch.save(ddp_model.state_dict(), "ddp_classifier.pth")
    dist.destroy_process_group()


def load_for_inference(path):
    state_dict = torch.load(path, map_location="cpu")
    new_state_dict = OrderedDict()
    for k, v in state_dict.items():
        name = k[7:] if k.startswith("module.") else k  # remove `module.`
        new_state_dict[name] = v
    model = build_model()
    model.load_state_dict(new_state_dict)
    model.eval()
    return model


if __name__ == "__main__":
    mp.spawn(main_worker, args=(WORLD_SIZE,), nprocs=WORLD_SIZE, join=True)
    model = load_for_inference("ddp_classifier.pth")
    _, test_ds = get_datasets()
    x, y = test_ds.tensors
    with torch.no_grad():
        print(f"reloaded model accuracy: {(model(x).argmax(1) == y).float().mean().item():.4f}")
