# corpus: research step loop `for step in itertools.count():` with `if step >= args.max_steps: break`, batches drawn by `torch.randint` indices into in-memory tensors, `get_lr(step)` linear warmup + cosine decay written by hand and set with `for g in optimizer.param_groups: g["lr"] = lr` every iteration, `clip_grad_norm_` returning the norm that is logged, weight-decay / no-decay param groups, `logging` to stdout, json metrics
import argparse
import itertools
import json
import logging
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
logger = logging.getLogger("train")


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--max_steps", type=int, default=120)
    p.add_argument("--warmup_steps", type=int, default=20)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--min_lr", type=float, default=1e-4)
    p.add_argument("--batch_size", type=int, default=24)
    p.add_argument("--grad_clip", type=float, default=1.0)
    p.add_argument("--weight_decay", type=float, default=0.05)
    p.add_argument("--log_interval", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


def get_lr(step, args):
    # 1) linear warmup for warmup_steps steps
    if step < args.warmup_steps:
        return args.lr * (step + 1) / args.warmup_steps
    # 2) if step > max_steps, return min learning rate
    if step > args.max_steps:
        return args.min_lr
    # 3) in between, use cosine decay down to min learning rate
    decay_ratio = (step - args.warmup_steps) / (args.max_steps - args.warmup_steps)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return args.min_lr + coeff * (args.lr - args.min_lr)


class Net(nn.Module):
    def __init__(self, d_in=16, d_hidden=64, n_out=3):
        super().__init__()
        self.norm = nn.LayerNorm(d_in)
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, n_out)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(self.norm(x))))


def main():
    args = get_args()
    torch.manual_seed(args.seed)
    X = torch.randn(512, 16)
    y = (X[:, :3].sum(1) > 0).long() + (X[:, 3] > 1).long()

    model = Net()
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.dim() < 2 else decay).append(p)
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": args.weight_decay},
         {"params": no_decay, "weight_decay": 0.0}],
        lr=args.lr, betas=(0.9, 0.95),
    )

    metrics = []
    for step in itertools.count():
        if step >= args.max_steps:
            break
        lr = get_lr(step, args)
        for g in optimizer.param_groups:
            g["lr"] = lr

        ix = torch.randint(0, X.shape[0], (args.batch_size,))
        xb, yb = X[ix], y[ix]
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)

        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        optimizer.step()

        if step % args.log_interval == 0:
            logger.info("step %d | loss %.4f | lr %.2e | norm %.3f", step, loss.item(), lr, norm.item())
            metrics.append({"step": step, "loss": round(loss.item(), 6), "lr": lr, "grad_norm": round(norm.item(), 6)})

    with torch.no_grad():
        acc = (model(X).argmax(-1) == y).float().mean().item()
    logger.info("final train acc %.4f", acc)
    with open("metrics.json", "w") as f:
        json.dump({"history": metrics, "final_acc": acc}, f)


if __name__ == "__main__":
    main()
