# corpus: DDP script from a research repo's train.py: `logging` configured at INFO on rank 0 and WARNING elsewhere, mp.spawn(main_worker, args=(world_size, args), nprocs=world_size) with `--world-size` default 2 and MASTER_PORT 29500 + an offset, ranks read back with dist.get_rank() / dist.get_world_size() inside helpers, tqdm over the train loader only on rank 0 (`disable=rank != 0`), linear-warmup LambdaLR per step, validation on rank 0 only over the whole val set through `model.module` then dist.barrier(), the best checkpoint saved by rank 0, a final `dist.all_reduce` of the step count
import argparse
import logging
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm

logger = logging.getLogger("train")


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--world-size", type=int, default=2)
    parser.add_argument("--master-port", type=int, default=29500 + (os.getpid() % 997))
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--warmup-steps", type=int, default=5)
    parser.add_argument("--output-dir", type=str, default="outputs")
    return parser.parse_args()


def is_main():
    return dist.get_rank() == 0


def setup_logging(rank):
    logging.basicConfig(
        format="%(levelname)s - %(name)s - %(message)s",
        level=logging.INFO if rank == 0 else logging.WARNING,
    )


def setup(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group(backend="gloo", init_method="env://", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


class TextCNN(nn.Module):
    def __init__(self, vocab=50, emb=16, n_filters=8, n_classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.conv = nn.Conv1d(emb, n_filters, kernel_size=3, padding=1)
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(n_filters, n_classes)

    def forward(self, tokens):
        x = self.emb(tokens).transpose(1, 2)
        x = torch.relu(self.conv(x)).max(dim=2).values
        return self.fc(self.drop(x))


def build_data():
    g = torch.Generator().manual_seed(5)
    tokens = torch.randint(0, 50, (300, 12), generator=g)
    labels = (tokens[:, :4].sum(dim=1) % 3).long()
    return TensorDataset(tokens[:240], labels[:240]), TensorDataset(tokens[240:], labels[240:])


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = total = 0
    for tokens, labels in loader:
        preds = model(tokens).argmax(dim=-1)
        correct += (preds == labels).sum().item()
        total += labels.numel()
    return correct / total


def main_worker(rank, world_size, args):
    setup(rank, world_size, args.master_port)
    setup_logging(rank)
    torch.manual_seed(42)

    train_set, val_set = build_data()
    train_sampler = DistributedSampler(train_set, num_replicas=dist.get_world_size(), rank=dist.get_rank())
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler)
    val_loader = DataLoader(val_set, batch_size=64)  # rank 0 evaluates the full set

    model = TextCNN()
    model = DistributedDataParallel(model, device_ids=None, output_device=None)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / args.warmup_steps))
    criterion = nn.CrossEntropyLoss()

    if is_main():
        os.makedirs(args.output_dir, exist_ok=True)
    logger.info("world size %d, %d train batches per rank", world_size, len(train_loader))

    best_acc = -1.0
    step = 0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        for tokens, labels in tqdm(train_loader, desc=f"Epoch {epoch}", disable=rank != 0):
            logits = model(tokens)
            loss = criterion(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step % 5 == 0:
                logger.info("step %d loss %.4f lr %.5f", step, loss.item(), scheduler.get_last_lr()[0])

        if rank == 0:
            acc = evaluate(model.module, val_loader)
            logger.info("epoch %d val_acc %.4f", epoch, acc)
            if acc > best_acc:
                best_acc = acc
                torch.save(model.module.state_dict(), os.path.join(args.output_dir, "best.pt"))
                logger.info("saved new best model (%.4f)", best_acc)
        dist.barrier()

    total_steps = torch.tensor([step])
    dist.all_reduce(total_steps)
    logger.info("finished: %d optimizer steps over all ranks, best acc %.4f", total_steps.item(), best_acc)
    dist.barrier()  # gloo sometimes aborts at exit without this
    cleanup()


def main():
    args = get_args()
    mp.spawn(main_worker, args=(args.world_size, args), nprocs=args.world_size)


if __name__ == "__main__":
    main()
