# corpus: CLIP-style contrastive training (open_clip-inspired, simplified): image and text towers, learnable logit_scale clamped after step, symmetric cross-entropy, AdamW param groups (no decay on gains/biases/logit_scale), swa_utils.AveragedModel with get_ema_multi_avg_fn updated every step, cosine LR per step via a helper, retrieval eval of the EMA model under inference_mode, logging module
import logging
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
from torch.utils.data import DataLoader, Dataset

logging.basicConfig(level=logging.INFO, format="%(asctime)s | %(levelname)s | %(message)s")
logger = logging.getLogger("clip")

EPOCHS = 3
BATCH_SIZE = 32
LR = 5e-4
WD = 0.1
WARMUP = 5
EMBED_DIM = 32
VOCAB = 100
SEQ_LEN = 8


class PairDataset(Dataset):
    """paired (image, caption) — caption tokens are a noisy function of a latent the image also encodes"""

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.latent = torch.randint(0, 10, (n,), generator=g)
        self.images = torch.randn(n, 3, 8, 8, generator=g) + self.latent.view(-1, 1, 1, 1) * 0.2
        self.tokens = (self.latent.view(-1, 1) * 7 + torch.randint(0, 5, (n, SEQ_LEN), generator=g)) % VOCAB

    def __len__(self):
        return len(self.latent)

    def __getitem__(self, idx):
        return {"image": self.images[idx], "text": self.tokens[idx]}


class ImageEncoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.proj = nn.Linear(32, dim)

    def forward(self, x):
        return self.proj(self.conv(x))


class TextEncoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, dim)
        self.pos = nn.Parameter(torch.zeros(SEQ_LEN, dim))
        layer = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=64, batch_first=True, dropout=0.0)
        self.enc = nn.TransformerEncoder(layer, num_layers=1)
        self.ln = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim, bias=False)

    def forward(self, t):
        x = self.enc(self.tok(t) + self.pos)
        return self.proj(self.ln(x.mean(1)))


class CLIP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.visual = ImageEncoder(dim)
        self.text = TextEncoder(dim)
        self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))

    def forward(self, image, text):
        img = F.normalize(self.visual(image), dim=-1)
        txt = F.normalize(self.text(text), dim=-1)
        return img, txt, self.logit_scale.exp()


def clip_loss(img, txt, logit_scale):
    logits_per_image = logit_scale * img @ txt.t()
    labels = torch.arange(img.shape[0], device=img.device)
    return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_image.t(), labels)) / 2


def cosine_lr(optimizer, base_lr, warmup, total):
    def _step(step):
        if step < warmup:
            lr = base_lr * (step + 1) / warmup
        else:
            e = step - warmup
            es = total - warmup
            lr = 0.5 * (1 + math.cos(math.pi * e / es)) * base_lr
        for pg in optimizer.param_groups:
            pg["lr"] = lr
        return lr

    return _step


@torch.inference_mode()
def evaluate(model, loader, device):
    model.eval()
    imgs, txts = [], []
    for batch in loader:
        img, txt, _ = model(batch["image"].to(device), batch["text"].to(device))
        imgs.append(img)
        txts.append(txt)
    imgs, txts = torch.cat(imgs), torch.cat(txts)
    sim = imgs @ txts.t()
    gt = torch.arange(len(imgs), device=device)
    i2t = (sim.argmax(1) == gt).float().mean().item()
    t2i = (sim.argmax(0) == gt).float().mean().item()
    return {"i2t_r1": i2t, "t2i_r1": t2i}


def main():
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader = DataLoader(PairDataset(384, seed=1), batch_size=BATCH_SIZE, shuffle=True, drop_last=True)
    val_loader = DataLoader(PairDataset(64, seed=2), batch_size=BATCH_SIZE)

    model = CLIP(EMBED_DIM).to(device)
    ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.95), use_buffers=True)

    exclude = lambda n, p: p.ndim < 2 or "bn" in n or "ln" in n or "bias" in n or "logit_scale" in n
    named_parameters = list(model.named_parameters())
    gain_or_bias_params = [p for n, p in named_parameters if exclude(n, p) and p.requires_grad]
    rest_params = [p for n, p in named_parameters if not exclude(n, p) and p.requires_grad]
    optimizer = torch.optim.AdamW(
        [
            {"params": gain_or_bias_params, "weight_decay": 0.0},
            {"params": rest_params, "weight_decay": WD},
        ],
        lr=LR,
        betas=(0.9, 0.98),
        eps=1e-6,
    )
    total_steps = len(train_loader) * EPOCHS
    scheduler = cosine_lr(optimizer, LR, WARMUP, total_steps)

    step = 0
    for epoch in range(EPOCHS):
        model.train()
        for i, batch in enumerate(train_loader):
            scheduler(step)
            images = batch["image"].to(device, non_blocking=True)
            texts = batch["text"].to(device, non_blocking=True)

            optimizer.zero_grad()
            img, txt, scale = model(images, texts)
            total_loss = clip_loss(img, txt, scale)
            total_loss.backward()
            optimizer.step()
            ema_model.update_parameters(model)

            # Note: we clamp to 4.6052 = ln(100), as in the original paper.
            with torch.no_grad():
                model.logit_scale.clamp_(0, math.log(100))

            if i % 4 == 0:
                logger.info(
                    f"Train Epoch: {epoch} [{i * BATCH_SIZE}/{len(train_loader.dataset)}] "
                    f"Loss: {total_loss.item():.4f} Logit Scale: {scale.item():.3f} LR: {optimizer.param_groups[0]['lr']:.6f}"
                )
            step += 1

        metrics = evaluate(model, val_loader, device)
        ema_metrics = evaluate(ema_model.module, val_loader, device)
        print(f"epoch {epoch}: model {metrics} | ema {ema_metrics}")

    torch.save(ema_model.module.state_dict(), "clip_ema.pt")
    torch.save(model.state_dict(), "clip_last.pt")


if __name__ == "__main__":
    main()
