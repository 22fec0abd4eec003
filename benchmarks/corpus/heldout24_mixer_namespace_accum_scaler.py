# corpus: MLP-Mixer blog post: SimpleNamespace config, random_split with a seeded generator, cudnn.benchmark, LambdaLR warmup+cosine per optimizer step, gradient accumulation (loss / accum_steps), torch.amp.GradScaler("cuda", enabled=use_amp) + autocast, tqdm set_postfix, per-epoch eval, history json
import json
import math
from types import SimpleNamespace

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, random_split
from tqdm import tqdm

config = SimpleNamespace(
    img_size=16,
    patch=4,
    channels=3,
    hidden=32,
    tokens_mlp=16,
    channels_mlp=64,
    depth=2,
    n_classes=4,
    batch_size=16,
    accum_steps=2,
    epochs=3,
    lr=2e-3,
    weight_decay=1e-2,
    warmup_steps=4,
    seed=42,
)

torch.manual_seed(config.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
use_amp = device.type == "cuda"
torch.backends.cudnn.benchmark = True


class MixerBlock(nn.Module):
    def __init__(self, n_tokens, dim, tok_hidden, ch_hidden):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.token_mlp = nn.Sequential(nn.Linear(n_tokens, tok_hidden), nn.GELU(), nn.Linear(tok_hidden, n_tokens))
        self.ln2 = nn.LayerNorm(dim)
        self.channel_mlp = nn.Sequential(nn.Linear(dim, ch_hidden), nn.GELU(), nn.Linear(ch_hidden, dim))

    def forward(self, x):
        y = self.ln1(x).transpose(1, 2)
        x = x + self.token_mlp(y).transpose(1, 2)
        x = x + self.channel_mlp(self.ln2(x))
        return x


class MLPMixer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        n_tokens = (cfg.img_size // cfg.patch) ** 2
        self.stem = nn.Conv2d(cfg.channels, cfg.hidden, cfg.patch, cfg.patch)
        self.blocks = nn.Sequential(*[MixerBlock(n_tokens, cfg.hidden, cfg.tokens_mlp, cfg.channels_mlp) for _ in range(cfg.depth)])
        self.ln = nn.LayerNorm(cfg.hidden)
        self.fc = nn.Linear(cfg.hidden, cfg.n_classes)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        x = self.blocks(x)
        x = self.ln(x).mean(dim=1)
        return self.fc(x)


# fake dataset
N = 256
labels = torch.randint(0, config.n_classes, (N,))
images = torch.randn(N, config.channels, config.img_size, config.img_size)
images[:, 0] += labels.float().view(-1, 1, 1)
full_ds = TensorDataset(images, labels)
train_ds, val_ds = random_split(full_ds, [0.8, 0.2], generator=torch.Generator().manual_seed(config.seed))
train_dl = DataLoader(train_ds, batch_size=config.batch_size, shuffle=True, num_workers=0, pin_memory=use_amp)
val_dl = DataLoader(val_ds, batch_size=config.batch_size * 2, shuffle=False)

model = MLPMixer(config).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay, foreach=True)

steps_per_epoch = math.ceil(len(train_dl) / config.accum_steps)
total_steps = steps_per_epoch * config.epochs


def lr_lambda(step):
    if step < config.warmup_steps:
        return float(step + 1) / config.warmup_steps
    progress = (step - config.warmup_steps) / max(1, total_steps - config.warmup_steps)
    return 0.5 * (1.0 + math.cos(math.pi * progress))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

history = {"train_loss": [], "val_loss": [], "val_acc": []}

for epoch in range(config.epochs):
    model.train()
    running_loss = 0.0
    optimizer.zero_grad(set_to_none=True)
    pbar = tqdm(train_dl, desc=f"Epoch {epoch + 1}/{config.epochs}", leave=False)
    for i, (xb, yb) in enumerate(pbar):
        xb, yb = xb.to(device), yb.to(device)
        with torch.autocast(device_type=device.type, dtype=torch.float16, enabled=use_amp):
            out = model(xb)
            loss = criterion(out, yb)
            loss = loss / config.accum_steps
        scaler.scale(loss).backward()

        if (i + 1) % config.accum_steps == 0 or (i + 1) == len(train_dl):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            scheduler.step()

        running_loss += loss.item() * config.accum_steps
        pbar.set_postfix(loss=f"{loss.item() * config.accum_steps:.4f}", lr=f"{scheduler.get_last_lr()[0]:.2e}")

    train_loss = running_loss / len(train_dl)

    model.eval()
    val_loss, correct = 0.0, 0
    with torch.no_grad():
        for xb, yb in val_dl:
            xb, yb = xb.to(device), yb.to(device)
            out = model(xb)
            val_loss += criterion(out, yb).item() * xb.size(0)
            correct += (out.argmax(1) == yb).sum().item()
    val_loss /= len(val_ds)
    val_acc = correct / len(val_ds)
    history["train_loss"].append(train_loss)
    history["val_loss"].append(val_loss)
    history["val_acc"].append(val_acc)
    print(f"Epoch {epoch + 1}: train_loss={train_loss:.4f} val_loss={val_loss:.4f} val_acc={val_acc:.3f}")

with open("mixer_history.json", "w") as f:
    json.dump(history, f, indent=2)
torch.save(model.state_dict(), "mixer.pt")
