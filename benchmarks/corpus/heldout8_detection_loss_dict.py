# corpus: torchvision detection finetuning tutorial: a model returning a dict of losses in train mode and predictions in eval mode, losses = sum(loss_dict.values()), math.isfinite check with sys.exit(1), LinearLR warmup in epoch 0 only, MetricLogger-like class, train_one_epoch(model, optimizer, data_loader, device, epoch, print_freq)
import math
import sys
import time
from collections import defaultdict, deque

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class SmoothedValue:
    """Track a series of values and provide access to smoothed values over a window."""

    def __init__(self, window_size=20):
        self.deque = deque(maxlen=window_size)
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.deque.append(value)
        self.count += n
        self.total += value * n

    @property
    def median(self):
        return torch.tensor(list(self.deque)).median().item()

    @property
    def global_avg(self):
        return self.total / max(self.count, 1)

    def __str__(self):
        return "{:.4f} ({:.4f})".format(self.median, self.global_avg)


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.meters = defaultdict(SmoothedValue)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                v = v.item()
            self.meters[k].update(v)

    def __str__(self):
        return self.delimiter.join("{}: {}".format(name, str(meter)) for name, meter in self.meters.items())


class ShapesDataset(Dataset):
    """Synthetic images with one box each: a bright square on noise."""

    def __init__(self, n, size=16, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.images = torch.rand(n, 3, size, size, generator=g) * 0.2
        self.boxes = []
        self.labels = torch.randint(1, 3, (n,), generator=g)
        for i in range(n):
            x0, y0 = torch.randint(0, size - 6, (2,), generator=g).tolist()
            self.images[i, :, y0:y0 + 6, x0:x0 + 6] += 0.8
            self.boxes.append(torch.tensor([[x0, y0, x0 + 6, y0 + 6]], dtype=torch.float32) / size)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        target = {"boxes": self.boxes[idx], "labels": self.labels[idx:idx + 1]}
        return self.images[idx], target


def collate_fn(batch):
    return tuple(zip(*batch))


class TinyDetector(nn.Module):
    """One-box detector: classification + box regression heads, torchvision-like API."""

    def __init__(self, num_classes):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.cls_head = nn.Linear(16, num_classes)
        self.box_head = nn.Linear(16, 4)

    def forward(self, images, targets=None):
        x = torch.stack(list(images))
        feats = self.backbone(x)
        logits = self.cls_head(feats)
        boxes = self.box_head(feats).sigmoid()
        if self.training:
            labels = torch.cat([t["labels"] for t in targets])
            gt_boxes = torch.cat([t["boxes"] for t in targets])
            return {
                "loss_classifier": F.cross_entropy(logits, labels),
                "loss_box_reg": F.smooth_l1_loss(boxes, gt_boxes),
            }
        scores, labels = logits.softmax(-1).max(-1)
        return [{"boxes": b[None], "labels": l[None], "scores": s[None]} for b, l, s in zip(boxes, labels, scores)]


def train_one_epoch(model, optimizer, data_loader, device, epoch, print_freq):
    model.train()
    metric_logger = MetricLogger(delimiter="  ")
    header = f"Epoch: [{epoch}]"

    lr_scheduler = None
    if epoch == 0:
        warmup_factor = 1.0 / 1000
        warmup_iters = min(1000, len(data_loader) - 1)

        lr_scheduler = torch.optim.lr_scheduler.LinearLR(
            optimizer, start_factor=warmup_factor, total_iters=warmup_iters
        )

    for i, (images, targets) in enumerate(data_loader):
        images = list(image.to(device) for image in images)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]

        loss_dict = model(images, targets)
        losses = sum(loss for loss in loss_dict.values())

        loss_value = losses.item()

        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            print(loss_dict)
            sys.exit(1)

        optimizer.zero_grad()
        losses.backward()
        optimizer.step()

        if lr_scheduler is not None:
            lr_scheduler.step()

        metric_logger.update(loss=losses, **loss_dict)
        metric_logger.update(lr=optimizer.param_groups[0]["lr"])
        if i % print_freq == 0:
            print(f"{header}  [{i}/{len(data_loader)}]  {metric_logger}")

    return metric_logger


@torch.no_grad()
def evaluate(model, data_loader, device):
    model.eval()
    ious = []
    correct = 0
    for images, targets in data_loader:
        images = list(img.to(device) for img in images)
        outputs = model(images)
        for out, t in zip(outputs, targets):
            a, b = out["boxes"][0], t["boxes"][0]
            lt = torch.max(a[:2], b[:2])
            rb = torch.min(a[2:], b[2:])
            inter = (rb - lt).clamp(min=0).prod()
            union = (a[2:] - a[:2]).prod() + (b[2:] - b[:2]).prod() - inter
            ious.append((inter / union).item())
            correct += int(out["labels"][0] == t["labels"][0])
    print(f"mean IoU: {sum(ious) / len(ious):.4f}  label acc: {correct / len(ious):.4f}")


def main():
    torch.manual_seed(0)
    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")

    dataset = ShapesDataset(64, seed=0)
    dataset_test = ShapesDataset(32, seed=1)
    data_loader = DataLoader(dataset, batch_size=8, shuffle=True, collate_fn=collate_fn)
    data_loader_test = DataLoader(dataset_test, batch_size=8, shuffle=False, collate_fn=collate_fn)

    model = TinyDetector(num_classes=3)
    model.to(device)

    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=0.0005)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.1)

    num_epochs = 3
    start = time.time()
    for epoch in range(num_epochs):
        train_one_epoch(model, optimizer, data_loader, device, epoch, print_freq=4)
        lr_scheduler.step()
        evaluate(model, data_loader_test, device=device)

    print(f"That's it! ({time.time() - start:.1f}s)")
    torch.save(model.state_dict(), "detector.pth")


if __name__ == "__main__":
    main()
