# corpus: BERT-style masked language model pretraining: 15% of tokens chosen with torch.rand inside the training step (80/10/10 mask/random/keep), labels -100 elsewhere, tied output embedding, perplexity exp(loss) logged per log_interval and on a held-out set each epoch, checkpoint dict per epoch
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(42)

VOCAB = 100
PAD_ID, CLS_ID, SEP_ID, MASK_ID = 0, 1, 2, 3
N_SPECIAL = 4
SEQ_LEN = 32
MLM_PROB = 0.15
BATCH = 16
EPOCHS = 2
LOG_INTERVAL = 5
OUT_DIR = "mlm_ckpt"


class SyntheticText(Dataset):
    """Sequences from a tiny Markov chain so masked tokens are predictable."""

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        trans = torch.rand(VOCAB - N_SPECIAL, VOCAB - N_SPECIAL, generator=g) ** 8
        trans = trans / trans.sum(1, keepdim=True)
        self.seqs = []
        for _ in range(n):
            tok = int(torch.randint(0, VOCAB - N_SPECIAL, (1,), generator=g))
            seq = [CLS_ID]
            for _ in range(SEQ_LEN - 2):
                seq.append(tok + N_SPECIAL)
                tok = int(torch.multinomial(trans[tok], 1, generator=g))
            seq.append(SEP_ID)
            self.seqs.append(torch.tensor(seq))

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, i):
        return self.seqs[i]


class MiniBert(nn.Module):
    def __init__(self, d=48, heads=4, layers=2):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d, padding_idx=PAD_ID)
        self.pos = nn.Parameter(torch.zeros(1, SEQ_LEN, d))
        enc_layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.1, activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, layers)
        self.ln = nn.LayerNorm(d)
        self.transform = nn.Linear(d, d)
        self.decoder = nn.Linear(d, VOCAB)
        self.decoder.weight = self.tok.weight  # weight tying
        nn.init.normal_(self.pos, std=0.02)

    def forward(self, ids):
        h = self.tok(ids) + self.pos[:, : ids.size(1)]
        h = self.encoder(h, src_key_padding_mask=ids.eq(PAD_ID))
        h = self.ln(F.gelu(self.transform(h)))
        return self.decoder(h)


def mask_tokens(inputs):
    labels = inputs.clone()
    special = inputs < N_SPECIAL
    prob = torch.rand(inputs.shape)
    masked = (prob < MLM_PROB) & ~special
    labels[~masked] = -100
    inputs = inputs.clone()
    replace = (torch.rand(inputs.shape) < 0.8) & masked
    inputs[replace] = MASK_ID
    randomize = (torch.rand(inputs.shape) < 0.5) & masked & ~replace
    inputs[randomize] = torch.randint(N_SPECIAL, VOCAB, inputs.shape)[randomize]
    return inputs, labels


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    total, count = 0.0, 0
    for ids in loader:
        inp, labels = mask_tokens(ids)
        logits = model(inp)
        loss = F.cross_entropy(logits.view(-1, VOCAB), labels.view(-1), ignore_index=-100, reduction="sum")
        total += loss.item()
        count += (labels != -100).sum().item()
    model.train()
    return total / max(count, 1)


train_loader = DataLoader(SyntheticText(256, seed=1), batch_size=BATCH, shuffle=True)
eval_loader = DataLoader(SyntheticText(64, seed=2), batch_size=BATCH)

model = MiniBert()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
os.makedirs(OUT_DIR, exist_ok=True)

model.train()
step = 0
for epoch in range(EPOCHS):
    log_loss, t0 = 0.0, time.time()
    for ids in train_loader:
        inputs, labels = mask_tokens(ids)
        logits = model(inputs)
        loss = F.cross_entropy(logits.view(-1, VOCAB), labels.view(-1), ignore_index=-100)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        log_loss += loss.item()
        if step % LOG_INTERVAL == 0:
            cur = log_loss / LOG_INTERVAL
            print("epoch {} step {:4d} | loss {:.4f} | ppl {:8.2f} | {:.1f} ms/step".format(
                epoch, step, cur, math.exp(cur), (time.time() - t0) * 1000 / LOG_INTERVAL))
            log_loss, t0 = 0.0, time.time()
    eval_loss = evaluate(model, eval_loader)
    print("=> epoch {} eval loss {:.4f} eval ppl {:.2f}".format(epoch, eval_loss, math.exp(eval_loss)))
    torch.save({"epoch": epoch, "step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
               os.path.join(OUT_DIR, "epoch_{}.pt".format(epoch)))
