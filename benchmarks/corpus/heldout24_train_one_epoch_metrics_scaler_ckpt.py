# corpus: 2024 research train.py (timm/DeiT-flavoured, functions): dataclass Args via argparse, train_one_epoch(...) -> dict of metrics with GradScaler("cuda", enabled=...) + unscale_ before clip_grad_norm_ (norm averaged and returned), @torch.inference_mode() evaluate -> dict, torch.compile in try/except behind --compile, fused AdamW if available, per-iteration cosine schedule from a precomputed numpy array, checkpoint dict with scaler state + --resume, log.txt of json lines
import argparse
import json
import math
import os
import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Args:
    epochs: int = 3
    batch_size: int = 32
    lr: float = 2e-3
    min_lr: float = 1e-5
    warmup_epochs: int = 1
    weight_decay: float = 0.05
    clip_grad: float = 3.0
    compile: bool = False
    amp: bool = True
    resume: str = ""
    output_dir: str = "output"
    seed: int = 0


def parse_args() -> Args:
    parser = argparse.ArgumentParser("tiny convnext training")
    for name, field in Args.__dataclass_fields__.items():
        if field.type is bool:
            parser.add_argument(f"--{name}", action=argparse.BooleanOptionalAction, default=field.default)
        else:
            parser.add_argument(f"--{name}", type=field.type, default=field.default)
    return Args(**vars(parser.parse_args()))


class LayerNorm2d(nn.LayerNorm):
    def forward(self, x):
        return super().forward(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = LayerNorm2d(dim)
        self.pwconv1 = nn.Conv2d(dim, 4 * dim, 1)
        self.pwconv2 = nn.Conv2d(4 * dim, dim, 1)
        self.gamma = nn.Parameter(1e-6 * torch.ones(dim, 1, 1))

    def forward(self, x):
        y = self.pwconv2(F.gelu(self.pwconv1(self.norm(self.dwconv(x)))))
        return x + self.gamma * y


class TinyConvNeXt(nn.Module):
    def __init__(self, num_classes=3, dim=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, dim, 2, 2), LayerNorm2d(dim))
        self.blocks = nn.Sequential(ConvNeXtBlock(dim), ConvNeXtBlock(dim))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.LayerNorm(dim), nn.Linear(dim, num_classes))

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


def cosine_scheduler(base_value, final_value, epochs, niter_per_ep, warmup_epochs=0):
    warmup_iters = warmup_epochs * niter_per_ep
    warmup_schedule = np.linspace(0, base_value, warmup_iters) if warmup_iters > 0 else np.array([])
    iters = np.arange(epochs * niter_per_ep - warmup_iters)
    schedule = final_value + 0.5 * (base_value - final_value) * (1 + np.cos(np.pi * iters / len(iters)))
    schedule = np.concatenate((warmup_schedule, schedule))
    assert len(schedule) == epochs * niter_per_ep
    return schedule


def train_one_epoch(model, criterion, data_loader, optimizer, device, epoch, scaler, lr_schedule, args):
    model.train()
    start_it = epoch * len(data_loader)
    total_loss, total_norm, n = 0.0, 0.0, 0
    for it, (samples, targets) in enumerate(data_loader):
        global_it = start_it + it
        for i, param_group in enumerate(optimizer.param_groups):
            param_group["lr"] = lr_schedule[global_it]

        samples = samples.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)

        with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=args.amp and device.type == "cuda"):
            outputs = model(samples)
            loss = criterion(outputs, targets)

        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            raise SystemExit(1)

        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
        scaler.step(optimizer)
        scaler.update()

        total_loss += loss_value
        total_norm += grad_norm.item()
        n += 1
        if it % 5 == 0:
            print(f"Epoch: [{epoch}] [{it}/{len(data_loader)}] lr: {optimizer.param_groups[0]['lr']:.6f} loss: {loss_value:.4f} grad_norm: {grad_norm.item():.4f}")
    return {"loss": total_loss / n, "grad_norm": total_norm / n, "lr": optimizer.param_groups[0]["lr"]}


@torch.inference_mode()
def evaluate(data_loader, model, device):
    criterion = nn.CrossEntropyLoss()
    model.eval()
    loss_sum, correct, count = 0.0, 0, 0
    for images, target in data_loader:
        images, target = images.to(device), target.to(device)
        output = model(images)
        loss_sum += criterion(output, target).item() * images.shape[0]
        correct += (output.argmax(-1) == target).sum().item()
        count += images.shape[0]
    return {"loss": loss_sum / count, "acc1": 100.0 * correct / count}


def main(args: Args):
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cudnn.benchmark = True
    os.makedirs(args.output_dir, exist_ok=True)

    xs = torch.randn(288, 1, 12, 12)
    ys = (xs.mean(dim=(1, 2, 3)) * 6).round().clamp(-1, 1).long() + 1
    data_loader_train = DataLoader(TensorDataset(xs[:224], ys[:224]), batch_size=args.batch_size, shuffle=True, drop_last=True)
    data_loader_val = DataLoader(TensorDataset(xs[224:], ys[224:]), batch_size=64)

    model = TinyConvNeXt().to(device)
    model_without_ddp = model
    n_parameters = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print("number of params:", n_parameters)

    if args.compile:
        try:
            model = torch.compile(model)
        except Exception as e:
            print(f"torch.compile failed ({e}), running eagerly")

    decay, no_decay = [], []
    for name, param in model_without_ddp.named_parameters():
        if param.ndim <= 1 or name.endswith(".bias") or "gamma" in name:
            no_decay.append(param)
        else:
            decay.append(param)
    param_groups = [{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": args.weight_decay}]
    fused_ok = device.type == "cuda"
    optimizer = torch.optim.AdamW(param_groups, lr=args.lr, fused=fused_ok)
    scaler = torch.amp.GradScaler("cuda", enabled=args.amp and device.type == "cuda")
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    lr_schedule = cosine_scheduler(args.lr, args.min_lr, args.epochs, len(data_loader_train), warmup_epochs=args.warmup_epochs)

    start_epoch = 0
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model_without_ddp.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scaler.load_state_dict(checkpoint["scaler"])
        start_epoch = checkpoint["epoch"] + 1

    print(f"Start training for {args.epochs} epochs")
    start_time = time.time()
    max_accuracy = 0.0
    for epoch in range(start_epoch, args.epochs):
        train_stats = train_one_epoch(model, criterion, data_loader_train, optimizer, device, epoch, scaler, lr_schedule, args)
        test_stats = evaluate(data_loader_val, model, device)
        print(f"Accuracy of the network on the {len(data_loader_val.dataset)} test images: {test_stats['acc1']:.1f}%")

        checkpoint = {
            "model": model_without_ddp.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scaler": scaler.state_dict(),
            "epoch": epoch,
            "args": vars(args),
        }
        torch.save(checkpoint, os.path.join(args.output_dir, "checkpoint.pth"))
        if test_stats["acc1"] > max_accuracy:
            max_accuracy = test_stats["acc1"]
            torch.save(checkpoint, os.path.join(args.output_dir, "checkpoint_best.pth"))
        print(f"Max accuracy: {max_accuracy:.2f}%")

        log_stats = {**{f"train_{k}": v for k, v in train_stats.items()},
                     **{f"test_{k}": v for k, v in test_stats.items()},
                     "epoch": epoch, "n_parameters": n_parameters}
        with open(os.path.join(args.output_dir, "log.txt"), mode="a", encoding="utf-8") as f:
            f.write(json.dumps(log_stats) + "\n")

    total_time = time.time() - start_time
    print(f"Training time {total_time:.1f}s")


if __name__ == "__main__":
    main(parse_args())
