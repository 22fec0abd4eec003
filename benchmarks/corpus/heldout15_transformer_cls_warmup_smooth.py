# corpus: Transformer encoder text classifier: learned positional embeddings, [CLS]-style first token pooling, CrossEntropyLoss(label_smoothing=0.1), AdamW, linear warmup + inverse-sqrt decay via LambdaLR stepped per batch, clip_grad_norm_, lr printed with the loss
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

vocab_size = 64
max_len = 24
d_model = 32
nhead = 4
num_layers = 2
num_classes = 4
batch_size = 32
epochs = 3
warmup_steps = 20
max_grad_norm = 1.0
PAD, CLS = 0, 1
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def synth(n):
    # label = which quarter of the vocabulary the most frequent token comes from
    x = torch.randint(2, vocab_size, (n, max_len))
    y = torch.randint(0, num_classes, (n,))
    lo = 2 + y * ((vocab_size - 2) // num_classes)
    k = torch.randint(0, (vocab_size - 2) // num_classes, (n, max_len))
    use = torch.rand(n, max_len) < 0.5
    x = torch.where(use, lo[:, None] + k, x)
    lengths = torch.randint(max_len // 2, max_len, (n,))
    pos = torch.arange(max_len)[None, :]
    x = x.masked_fill(pos >= lengths[:, None], PAD)
    x[:, 0] = CLS
    return TensorDataset(x, y)


train_data = synth(512)
valid_data = synth(128)
train_loader = DataLoader(train_data, batch_size=batch_size, shuffle=True)
valid_loader = DataLoader(valid_data, batch_size=batch_size)


class TransformerClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, d_model, padding_idx=PAD)
        self.pos_emb = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=4 * d_model, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, src):
        positions = torch.arange(src.size(1), device=src.device).unsqueeze(0)
        h = self.tok_emb(src) * math.sqrt(d_model) + self.pos_emb(positions)
        h = self.encoder(h, src_key_padding_mask=(src == PAD))
        return self.head(self.norm(h[:, 0]))


model = TransformerClassifier().to(device)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.01)


def lr_lambda(step):
    step = max(step, 1)
    return min(step / warmup_steps, math.sqrt(warmup_steps / step))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def evaluate(loader):
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for src, tgt in loader:
            src, tgt = src.to(device), tgt.to(device)
            logits = model(src)
            loss_sum += nn.functional.cross_entropy(logits, tgt, reduction="sum").item()
            correct += (logits.argmax(-1) == tgt).sum().item()
            total += tgt.numel()
    return loss_sum / total, correct / total


global_step = 0
for epoch in range(1, epochs + 1):
    model.train()
    total_loss = 0.0
    for batch_idx, (src, tgt) in enumerate(train_loader):
        src, tgt = src.to(device), tgt.to(device)
        optimizer.zero_grad()
        logits = model(src)
        loss = criterion(logits, tgt)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        scheduler.step()
        global_step += 1
        total_loss += loss.item()
        if global_step % 5 == 0:
            print(f"| epoch {epoch:3d} | step {global_step:4d} | lr {scheduler.get_last_lr()[0]:.2e} | loss {loss.item():5.3f}")
    val_loss, val_acc = evaluate(valid_loader)
    print("-" * 60)
    print(f"| end of epoch {epoch:3d} | train loss {total_loss / len(train_loader):5.3f} | valid loss {val_loss:5.3f} | valid acc {val_acc:.3f}")
    print("-" * 60)

torch.save(model.state_dict(), "transformer_cls.pt")
