# corpus: CLIP-style contrastive train.py (open_clip / blog "CLIP from scratch"): image + text towers, learnable logit_scale clamped in no_grad after optimizer.step, symmetric CE, cosine lr with warmup via LambdaLR per step, retrieval eval, config dict, logging module
import logging
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", datefmt="%H:%M:%S")
logger = logging.getLogger("clip")

config = {
    "embed_dim": 32,
    "vocab_size": 100,
    "seq_len": 8,
    "batch_size": 32,
    "epochs": 3,
    "lr": 5e-4,
    "weight_decay": 0.1,
    "warmup_steps": 3,
    "init_temperature": 0.07,
    "max_logit_scale": 100.0,
    "seed": 3,
}
torch.manual_seed(config["seed"])
device = "cuda" if torch.cuda.is_available() else "cpu"


class PairDataset(Dataset):
    """paired (image, caption) where the caption tokens are a noisy function of the image class"""

    def __init__(self, n):
        self.labels = torch.randint(0, 10, (n,))
        self.images = torch.randn(n, 3, 8, 8) + self.labels[:, None, None, None].float() * 0.3
        base = self.labels[:, None] * 10
        self.tokens = (base + torch.randint(0, 10, (n, config["seq_len"]))) % config["vocab_size"]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return {"image": self.images[idx], "input_ids": self.tokens[idx]}


class ImageEncoder(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.proj = nn.Linear(16, d)

    def forward(self, x):
        return self.proj(self.conv(x))


class TextEncoder(nn.Module):
    def __init__(self, vocab, d):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.layer = nn.TransformerEncoderLayer(d, nhead=2, dim_feedforward=64, batch_first=True, dropout=0.0)
        self.proj = nn.Linear(d, d)

    def forward(self, ids):
        h = self.layer(self.emb(ids))
        return self.proj(h.mean(dim=1))


class CLIP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.visual = ImageEncoder(cfg["embed_dim"])
        self.text = TextEncoder(cfg["vocab_size"], cfg["embed_dim"])
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / cfg["init_temperature"]))

    def forward(self, image, ids):
        img = F.normalize(self.visual(image), dim=-1)
        txt = F.normalize(self.text(ids), dim=-1)
        return img, txt, self.logit_scale.exp()


def clip_loss(img, txt, logit_scale):
    logits_per_image = logit_scale * img @ txt.t()
    logits_per_text = logits_per_image.t()
    labels = torch.arange(img.shape[0], device=img.device)
    return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2


def cosine_with_warmup(step, warmup, total):
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1 + math.cos(math.pi * progress))


train_ds = PairDataset(192)
val_ds = PairDataset(64)
train_loader = DataLoader(train_ds, batch_size=config["batch_size"], shuffle=True, drop_last=True)
val_loader = DataLoader(val_ds, batch_size=64)

model = CLIP(config).to(device)

# no weight decay on gains / biases / logit_scale, as open_clip does
exclude = lambda n, p: p.ndim < 2 or "logit_scale" in n
decay = [p for n, p in model.named_parameters() if not exclude(n, p) and p.requires_grad]
no_decay = [p for n, p in model.named_parameters() if exclude(n, p) and p.requires_grad]
optimizer = torch.optim.AdamW([
    {"params": no_decay, "weight_decay": 0.0},
    {"params": decay, "weight_decay": config["weight_decay"]},
], lr=config["lr"], betas=(0.9, 0.98), eps=1e-6)

total_steps = config["epochs"] * len(train_loader)
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: cosine_with_warmup(s, config["warmup_steps"], total_steps))


@torch.no_grad()
def evaluate_retrieval(model, loader):
    model.eval()
    imgs, txts = [], []
    for batch in loader:
        i, t, _ = model(batch["image"].to(device), batch["input_ids"].to(device))
        imgs.append(i)
        txts.append(t)
    imgs, txts = torch.cat(imgs), torch.cat(txts)
    sims = imgs @ txts.t()
    gt = torch.arange(len(imgs), device=sims.device)
    i2t = (sims.argmax(dim=1) == gt).float().mean().item()
    t2i = (sims.argmax(dim=0) == gt).float().mean().item()
    return {"i2t_r1": i2t, "t2i_r1": t2i}


step = 0
for epoch in range(config["epochs"]):
    model.train()
    running = 0.0
    for batch in train_loader:
        images = batch["image"].to(device, non_blocking=True)
        ids = batch["input_ids"].to(device, non_blocking=True)

        img_f, txt_f, scale = model(images, ids)
        loss = clip_loss(img_f, txt_f, scale)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()

        # Note: we clamp to 4.6052 = ln(100), as in the original paper.
        with torch.no_grad():
            model.logit_scale.clamp_(0, math.log(config["max_logit_scale"]))

        running += loss.item()
        step += 1
        if step % 4 == 0:
            logger.info("epoch %d step %d loss %.4f scale %.3f lr %.2e", epoch, step, loss.item(),
                        model.logit_scale.exp().item(), scheduler.get_last_lr()[0])

    metrics = evaluate_retrieval(model, val_loader)
    print(f"epoch {epoch}: train loss {running / len(train_loader):.4f} i2t@1 {metrics['i2t_r1']:.3f} t2i@1 {metrics['t2i_r1']:.3f}")

torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, "clip_ckpt.pt")
