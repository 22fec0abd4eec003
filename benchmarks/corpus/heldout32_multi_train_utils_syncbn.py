# corpus: popular image-classification repo's multi-GPU train script (train_multi_gpu_using_launch.py + multi_train_utils): init_distributed_mode(args) from RANK / WORLD_SIZE / LOCAL_RANK with "Not using distributed mode" fallback (so `python train.py` runs one process), reduce_value(value, average=True), is_main_process(), initial weights saved by rank 0 then loaded by all after dist.barrier(), `if args.syncBN: model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)`, train_one_epoch with tqdm(file=sys.stdout) on the main process and a running `mean_loss`, evaluate() summing correct predictions with reduce_value(average=False), LambdaLR cosine, rank-0 `torch.save(model.module.state_dict(), "./weights/model-{}.pth")`
import argparse
import math
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.optim as optim
import torch.optim.lr_scheduler as lr_scheduler
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


# ----------------------------- distributed_utils.py -----------------------------
def init_distributed_mode(args):
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        args.rank = int(os.environ["RANK"])
        args.world_size = int(os.environ["WORLD_SIZE"])
        args.gpu = int(os.environ["LOCAL_RANK"])
    else:
        print("Not using distributed mode")
        args.distributed = False
        return

    args.distributed = True
    args.dist_backend = "gloo"  # nccl on GPU
    print("| distributed init (rank {}): {}".format(args.rank, args.dist_url), flush=True)
    dist.init_process_group(backend=args.dist_backend, init_method=args.dist_url,
                            world_size=args.world_size, rank=args.rank)
    dist.barrier()


def cleanup():
    dist.destroy_process_group()


def is_dist_avail_and_initialized():
    if not dist.is_available():
        return False
    if not dist.is_initialized():
        return False
    return True


def get_world_size():
    if not is_dist_avail_and_initialized():
        return 1
    return dist.get_world_size()


def get_rank():
    if not is_dist_avail_and_initialized():
        return 0
    return dist.get_rank()


def is_main_process():
    return get_rank() == 0


def reduce_value(value, average=True):
    world_size = get_world_size()
    if world_size < 2:  # single process
        return value
    with torch.no_grad():
        dist.all_reduce(value)
        if average:
            value /= world_size
        return value


# ----------------------------- train_eval_utils.py -----------------------------
def train_one_epoch(model, optimizer, data_loader, device, epoch):
    model.train()
    loss_function = torch.nn.CrossEntropyLoss()
    mean_loss = torch.zeros(1).to(device)
    optimizer.zero_grad()

    if is_main_process():
        data_loader = tqdm(data_loader, file=sys.stdout)

    for step, data in enumerate(data_loader):
        images, labels = data

        pred = model(images.to(device))

        loss = loss_function(pred, labels.to(device))
        loss.backward()
        loss = reduce_value(loss, average=True)
        mean_loss = (mean_loss * step + loss.detach()) / (step + 1)  # update mean losses

        if is_main_process():
            data_loader.desc = "[epoch {}] mean loss {}".format(epoch, round(mean_loss.item(), 3))

        if not torch.isfinite(loss):
            print("WARNING: non-finite loss, ending training ", loss)
            sys.exit(1)

        optimizer.step()
        optimizer.zero_grad()

    return mean_loss.item()


@torch.no_grad()
def evaluate(model, data_loader, device):
    model.eval()
    sum_num = torch.zeros(1).to(device)

    if is_main_process():
        data_loader = tqdm(data_loader, file=sys.stdout)

    for step, data in enumerate(data_loader):
        images, labels = data
        pred = model(images.to(device))
        pred = torch.max(pred, dim=1)[1]
        sum_num += torch.eq(pred, labels.to(device)).sum()

    sum_num = reduce_value(sum_num, average=False)
    return sum_num.item()


# ----------------------------- model.py -----------------------------
class SmallNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


# ----------------------------- train_multi_gpu_using_launch.py -----------------------------
def main(args):
    if torch.cuda.is_available() is False and args.device.startswith("cuda"):
        args.device = "cpu"

    init_distributed_mode(args=args)

    rank = args.rank
    device = torch.device(args.device)
    batch_size = args.batch_size
    weights_path = args.weights
    args.lr *= args.world_size  # linear scaling of the learning rate with the number of processes
    checkpoint_path = ""

    if rank == 0:  # print on the first process only
        print(args)
        if os.path.exists("./weights") is False:
            os.makedirs("./weights")

    torch.manual_seed(0)
    train_images = torch.randn(200, 3, 12, 12)
    train_labels = torch.randint(0, args.num_classes, (200,))
    val_images = torch.randn(60, 3, 12, 12)
    val_labels = torch.randint(0, args.num_classes, (60,))
    train_data_set = TensorDataset(train_images, train_labels)
    val_data_set = TensorDataset(val_images, val_labels)

    if args.distributed:
        train_sampler = torch.utils.data.distributed.DistributedSampler(train_data_set)
        val_sampler = torch.utils.data.distributed.DistributedSampler(val_data_set)
        train_batch_sampler = torch.utils.data.BatchSampler(train_sampler, batch_size, drop_last=True)
    else:
        train_sampler = torch.utils.data.RandomSampler(train_data_set)
        val_sampler = torch.utils.data.SequentialSampler(val_data_set)
        train_batch_sampler = torch.utils.data.BatchSampler(train_sampler, batch_size, drop_last=True)

    nw = 0  # number of workers
    if rank == 0:
        print("Using {} dataloader workers every process".format(nw))
    train_loader = DataLoader(train_data_set, batch_sampler=train_batch_sampler, pin_memory=True, num_workers=nw)
    val_loader = DataLoader(val_data_set, batch_size=batch_size, sampler=val_sampler, pin_memory=True, num_workers=nw)

    model = SmallNet(num_classes=args.num_classes).to(device)

    if os.path.exists(weights_path):
        weights_dict = torch.load(weights_path, map_location=device)
        model.load_state_dict(weights_dict, strict=False)
    elif args.distributed:
        checkpoint_path = "initial_weights.pt"
        # every process must start from the same weights: rank 0 saves, the others load
        if rank == 0:
            torch.save(model.state_dict(), checkpoint_path)
        dist.barrier()
        model.load_state_dict(torch.load(checkpoint_path, map_location=device))

    if args.syncBN:
        # SyncBatchNorm only makes sense with several processes
        model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model).to(device)

    if args.distributed:
        model = torch.nn.parallel.DistributedDataParallel(model)

    pg = [p for p in model.parameters() if p.requires_grad]
    optimizer = optim.SGD(pg, lr=args.lr, momentum=0.9, weight_decay=0.005)
    lf = lambda x: ((1 + math.cos(x * math.pi / args.epochs)) / 2) * (1 - args.lrf) + args.lrf  # cosine
    scheduler = lr_scheduler.LambdaLR(optimizer, lr_lambda=lf)

    for epoch in range(args.epochs):
        if args.distributed:
            train_sampler.set_epoch(epoch)

        mean_loss = train_one_epoch(model=model, optimizer=optimizer, data_loader=train_loader,
                                    device=device, epoch=epoch)

        scheduler.step()

        sum_num = evaluate(model=model, data_loader=val_loader, device=device)
        acc = sum_num / len(val_data_set)

        if rank == 0:
            print("[epoch {}] accuracy: {}".format(epoch, round(acc, 3)))
            tags = ["loss", "accuracy", "learning_rate"]
            print(tags[0], round(mean_loss, 4), tags[1], round(acc, 4), tags[2], optimizer.param_groups[0]["lr"])
            state = model.module.state_dict() if args.distributed else model.state_dict()
            torch.save(state, "./weights/model-{}.pth".format(epoch))

    if rank == 0:
        if os.path.exists(checkpoint_path) is True:
            os.remove(checkpoint_path)

    if args.distributed:
        cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_classes", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--lrf", type=float, default=0.1)
    parser.add_argument("--syncBN", type=bool, default=True)
    parser.add_argument("--weights", type=str, default="resNet34.pth", help="initial weights path")
    parser.add_argument("--freeze-layers", type=bool, default=False)
    parser.add_argument("--device", default="cuda", help="device id (i.e. 0 or 0,1 or cpu)")
    parser.add_argument("--world-size", default=1, type=int, help="number of distributed processes")
    parser.add_argument("--dist-url", default="env://", help="url used to set up distributed training")
    parser.add_argument("--rank", default=0, type=int)
    opt = parser.parse_args()

    main(opt)
