# corpus: 2024 small-ViT train.py: @dataclass TrainConfig, torch.compile behind cfg.compile (off), bf16 autocast enabled= flag, AdamW param groups (no decay on bias/norm/pos_embed), get_lr(it) warmup+cosine written to param_groups per step, clip_grad_norm_ logged, inference_mode eval, wandb behind try/except ImportError
import math
import os
import time
from dataclasses import dataclass, asdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

try:
    import wandb
except ImportError:
    wandb = None


@dataclass
class TrainConfig:
    image_size: int = 16
    patch_size: int = 4
    num_classes: int = 5
    dim: int = 32
    depth: int = 2
    heads: int = 4
    mlp_ratio: float = 2.0
    batch_size: int = 32
    epochs: int = 3
    lr: float = 3e-3
    min_lr: float = 1e-4
    warmup_iters: int = 6
    weight_decay: float = 0.05
    grad_clip: float = 1.0
    compile: bool = False
    amp: bool = False  # bf16 autocast; flip on for Ampere+
    use_wandb: bool = False
    out_dir: str = "out_vit"
    seed: int = 1337


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        x = F.scaled_dot_product_attention(q, k, v)
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class Block(nn.Module):
    def __init__(self, dim, heads, mlp_ratio):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return x


class ViT(nn.Module):
    def __init__(self, cfg: TrainConfig):
        super().__init__()
        num_patches = (cfg.image_size // cfg.patch_size) ** 2
        self.patch_embed = nn.Conv2d(3, cfg.dim, kernel_size=cfg.patch_size, stride=cfg.patch_size)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, cfg.dim))
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, cfg.dim) * 0.02)
        self.blocks = nn.ModuleList([Block(cfg.dim, cfg.heads, cfg.mlp_ratio) for _ in range(cfg.depth)])
        self.norm = nn.LayerNorm(cfg.dim)
        self.head = nn.Linear(cfg.dim, cfg.num_classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x)[:, 0])


def make_param_groups(model, weight_decay):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if p.ndim < 2 or "pos_embed" in name or "cls_token" in name:
            no_decay.append(p)
        else:
            decay.append(p)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]


def main():
    cfg = TrainConfig()
    torch.manual_seed(cfg.seed)
    os.makedirs(cfg.out_dir, exist_ok=True)

    device = "cuda" if torch.cuda.is_available() else "cpu"
    device_type = "cuda" if "cuda" in device else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.set_float32_matmul_precision("high")

    # synthetic "images": class-dependent mean so the task is learnable
    n_train, n_val = 320, 96
    y_train = torch.randint(0, cfg.num_classes, (n_train,))
    x_train = torch.randn(n_train, 3, cfg.image_size, cfg.image_size) + y_train.view(-1, 1, 1, 1) * 0.3
    y_val = torch.randint(0, cfg.num_classes, (n_val,))
    x_val = torch.randn(n_val, 3, cfg.image_size, cfg.image_size) + y_val.view(-1, 1, 1, 1) * 0.3
    train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=cfg.batch_size, shuffle=True, drop_last=True)
    val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=64)

    model = ViT(cfg).to(device)
    print(f"number of parameters: {sum(p.numel() for p in model.parameters()) / 1e3:.1f}K")
    if cfg.compile:
        print("compiling the model... (takes a ~minute)")
        model = torch.compile(model)

    use_fused = device_type == "cuda"
    optimizer = torch.optim.AdamW(make_param_groups(model, cfg.weight_decay), lr=cfg.lr, betas=(0.9, 0.95), fused=use_fused)

    max_iters = cfg.epochs * len(train_loader)

    def get_lr(it):
        if it < cfg.warmup_iters:
            return cfg.lr * (it + 1) / cfg.warmup_iters
        if it > max_iters:
            return cfg.min_lr
        decay_ratio = (it - cfg.warmup_iters) / (max_iters - cfg.warmup_iters)
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
        return cfg.min_lr + coeff * (cfg.lr - cfg.min_lr)

    run = None
    if cfg.use_wandb and wandb is not None:
        run = wandb.init(project="tiny-vit", config=asdict(cfg))

    iter_num = 0
    best_val_acc = 0.0
    for epoch in range(cfg.epochs):
        model.train()
        t0 = time.time()
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            lr = get_lr(iter_num)
            for param_group in optimizer.param_groups:
                param_group["lr"] = lr

            with torch.autocast(device_type=device_type, dtype=torch.bfloat16, enabled=cfg.amp):
                logits = model(x)
                loss = F.cross_entropy(logits, y, label_smoothing=0.1)

            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            optimizer.step()

            if iter_num % 5 == 0:
                print(f"iter {iter_num}: loss {loss.item():.4f}, norm {norm:.4f}, lr {lr:.2e}")
                if run is not None:
                    run.log({"train/loss": loss.item(), "train/grad_norm": norm.item(), "lr": lr}, step=iter_num)
            iter_num += 1

        # ---- eval ----
        model.eval()
        correct = total = 0
        val_loss = 0.0
        with torch.inference_mode():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                with torch.autocast(device_type=device_type, dtype=torch.bfloat16, enabled=cfg.amp):
                    logits = model(x)
                val_loss += F.cross_entropy(logits.float(), y, reduction="sum").item()
                correct += (logits.argmax(-1) == y).sum().item()
                total += y.numel()
        val_acc = correct / total
        dt = time.time() - t0
        print(f"epoch {epoch}: val_loss {val_loss / total:.4f} val_acc {val_acc:.4f}")
        if run is not None:
            run.log({"val/loss": val_loss / total, "val/acc": val_acc, "epoch": epoch}, step=iter_num)
        if val_acc > best_val_acc:
            best_val_acc = val_acc
            raw_model = model._orig_mod if cfg.compile else model
            torch.save({"model": raw_model.state_dict(), "config": asdict(cfg), "iter_num": iter_num}, os.path.join(cfg.out_dir, "ckpt.pt"))

    print(f"best val acc {best_val_acc:.4f}")
    if run is not None:
        run.finish()


if __name__ == "__main__":
    main()
