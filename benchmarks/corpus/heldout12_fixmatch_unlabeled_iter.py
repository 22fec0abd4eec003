# corpus: FixMatch research repo: step-budget loop with eval_step per "epoch", labeled/unlabeled iterators refilled on StopIteration, confidence mask, hand-written EMA evaluated each epoch, logging to a file
import argparse
import logging
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

logger = logging.getLogger(__name__)


class AverageMeter(object):
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class Blobs(Dataset):
    def __init__(self, n, labeled=True, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.y = torch.randint(0, 4, (n,), generator=g)
        centers = torch.randn(4, 16, generator=g) * 2
        self.x = centers[self.y] + torch.randn(n, 16, generator=g)
        self.labeled = labeled

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = self.x[i]
        if self.labeled:
            return x + 0.1 * torch.randn_like(x), self.y[i]
        # weak and strong "augmentations"
        weak = x + 0.1 * torch.randn_like(x)
        strong = x * (torch.rand_like(x) > 0.2) + 0.5 * torch.randn_like(x)
        return (weak, strong), self.y[i]


class Net(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.1))
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.fc(self.body(x))


def get_cosine_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, num_cycles=7.0 / 16.0):
    def _lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        progress = float(current_step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
        return max(0.0, math.cos(math.pi * num_cycles * progress))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, _lr_lambda)


def test(args, loader, model):
    losses, top1 = AverageMeter(), AverageMeter()
    model.eval()
    with torch.no_grad():
        for inputs, targets in loader:
            inputs, targets = inputs.to(args.device), targets.to(args.device)
            outputs = model(inputs)
            loss = F.cross_entropy(outputs, targets)
            acc = (outputs.argmax(1) == targets).float().mean().item() * 100
            losses.update(loss.item(), inputs.shape[0])
            top1.update(acc, inputs.shape[0])
    return losses.avg, top1.avg


def main():
    parser = argparse.ArgumentParser(description="FixMatch")
    parser.add_argument("--total-steps", default=120, type=int)
    parser.add_argument("--eval-step", default=40, type=int)
    parser.add_argument("--batch-size", default=16, type=int)
    parser.add_argument("--mu", default=3, type=int, help="unlabeled batch ratio")
    parser.add_argument("--lr", default=0.03, type=float)
    parser.add_argument("--wdecay", default=5e-4, type=float)
    parser.add_argument("--lambda-u", default=1.0, type=float)
    parser.add_argument("--threshold", default=0.9, type=float)
    parser.add_argument("--T", default=1.0, type=float)
    parser.add_argument("--ema-decay", default=0.999, type=float)
    parser.add_argument("--out", default="result")
    parser.add_argument("--seed", default=5, type=int)
    args = parser.parse_args()

    os.makedirs(args.out, exist_ok=True)
    logging.basicConfig(
        format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
        level=logging.INFO,
        handlers=[logging.FileHandler(os.path.join(args.out, "train.log")), logging.StreamHandler()],
    )
    args.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(args.seed)
    logger.info(dict(args._get_kwargs()))

    labeled_loader = DataLoader(Blobs(64, True, 1), batch_size=args.batch_size, shuffle=True, drop_last=True)
    unlabeled_loader = DataLoader(Blobs(256, False, 2), batch_size=args.batch_size * args.mu, shuffle=True, drop_last=True)
    test_loader = DataLoader(Blobs(128, True, 3), batch_size=64)

    model = Net().to(args.device)
    ema_model = Net().to(args.device)
    ema_model.load_state_dict(model.state_dict())
    for p in ema_model.parameters():
        p.requires_grad_(False)

    no_decay = ["bias", "bn"]
    grouped_parameters = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": args.wdecay},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.SGD(grouped_parameters, lr=args.lr, momentum=0.9, nesterov=True)
    scheduler = get_cosine_schedule_with_warmup(optimizer, 10, args.total_steps)

    epochs = math.ceil(args.total_steps / args.eval_step)
    labeled_iter = iter(labeled_loader)
    unlabeled_iter = iter(unlabeled_loader)
    best_acc = 0
    model.train()
    for epoch in range(epochs):
        losses, losses_x, losses_u, mask_probs = AverageMeter(), AverageMeter(), AverageMeter(), AverageMeter()
        for batch_idx in range(args.eval_step):
            try:
                inputs_x, targets_x = next(labeled_iter)
            except StopIteration:
                labeled_iter = iter(labeled_loader)
                inputs_x, targets_x = next(labeled_iter)
            try:
                (inputs_u_w, inputs_u_s), _ = next(unlabeled_iter)
            except StopIteration:
                unlabeled_iter = iter(unlabeled_loader)
                (inputs_u_w, inputs_u_s), _ = next(unlabeled_iter)

            batch_size = inputs_x.shape[0]
            inputs = torch.cat((inputs_x, inputs_u_w, inputs_u_s)).to(args.device)
            targets_x = targets_x.to(args.device)
            logits = model(inputs)
            logits_x = logits[:batch_size]
            logits_u_w, logits_u_s = logits[batch_size:].chunk(2)
            del logits

            Lx = F.cross_entropy(logits_x, targets_x, reduction="mean")
            pseudo_label = torch.softmax(logits_u_w.detach() / args.T, dim=-1)
            max_probs, targets_u = torch.max(pseudo_label, dim=-1)
            mask = max_probs.ge(args.threshold).float()
            Lu = (F.cross_entropy(logits_u_s, targets_u, reduction="none") * mask).mean()
            loss = Lx + args.lambda_u * Lu

            loss.backward()
            losses.update(loss.item())
            losses_x.update(Lx.item())
            losses_u.update(Lu.item())
            mask_probs.update(mask.mean().item())
            optimizer.step()
            scheduler.step()
            with torch.no_grad():
                for ema_p, p in zip(ema_model.parameters(), model.parameters()):
                    ema_p.mul_(args.ema_decay).add_(p.detach(), alpha=1 - args.ema_decay)
                for ema_b, b in zip(ema_model.buffers(), model.buffers()):
                    ema_b.copy_(b)
            model.zero_grad()

        logger.info(
            "Epoch %d/%d lr %.4f loss %.4f Lx %.4f Lu %.4f mask %.2f",
            epoch + 1, epochs, scheduler.get_last_lr()[0], losses.avg, losses_x.avg, losses_u.avg, mask_probs.avg,
        )
        test_loss, test_acc = test(args, test_loader, ema_model)
        is_best = test_acc > best_acc
        best_acc = max(test_acc, best_acc)
        torch.save(
            {"epoch": epoch + 1, "state_dict": model.state_dict(), "ema_state_dict": ema_model.state_dict(),
             "acc": test_acc, "best_acc": best_acc, "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()},
            os.path.join(args.out, "checkpoint.pth.tar"),
        )
        if is_best:
            torch.save(ema_model.state_dict(), os.path.join(args.out, "model_best.pth"))
        logger.info("top-1 acc: %.2f  best top-1 acc: %.2f  test loss %.4f", test_acc, best_acc, test_loss)
        model.train()


if __name__ == "__main__":
    main()
