# corpus: seq2seq NLP: nn.Embedding(padding_idx=0), pack_padded_sequence over sorted lengths in the encoder, GRU decoder stepped token by token with teacher forcing decided by random.random() < tf_ratio inside the step, CrossEntropyLoss(ignore_index=0), clip_grad_norm_, ReduceLROnPlateau(optimizer, 'min', patience=1) stepped with the validation loss
import random

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from torch.utils.data import DataLoader, Dataset

random.seed(0)
torch.manual_seed(0)

PAD, SOS, EOS = 0, 1, 2
VOCAB = 20
MAX_LEN = 8


class ReverseDataset(Dataset):
    """Task: output the input sequence reversed."""

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.samples = []
        for _ in range(n):
            length = int(torch.randint(3, MAX_LEN + 1, (1,), generator=g))
            seq = torch.randint(3, VOCAB, (length,), generator=g)
            self.samples.append((seq, seq.flip(0)))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.samples[i]


def collate(batch):
    batch = sorted(batch, key=lambda b: len(b[0]), reverse=True)
    src_lens = torch.tensor([len(s) for s, _ in batch])
    src = torch.full((len(batch), MAX_LEN), PAD, dtype=torch.long)
    tgt = torch.full((len(batch), MAX_LEN + 1), PAD, dtype=torch.long)
    for i, (s, t) in enumerate(batch):
        src[i, :len(s)] = s
        tgt[i, :len(t)] = t
        tgt[i, len(t)] = EOS
    return src, src_lens, tgt


class Encoder(nn.Module):
    def __init__(self, vocab, emb, hid):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb, padding_idx=0)
        self.rnn = nn.GRU(emb, hid, batch_first=True)

    def forward(self, src, lens):
        embedded = self.embedding(src)
        packed = pack_padded_sequence(embedded, lens, batch_first=True)
        outputs, hidden = self.rnn(packed)
        outputs, _ = pad_packed_sequence(outputs, batch_first=True)
        return outputs, hidden


class Decoder(nn.Module):
    def __init__(self, vocab, emb, hid):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb, padding_idx=0)
        self.rnn = nn.GRU(emb, hid, batch_first=True)
        self.out = nn.Linear(hid, vocab)

    def forward(self, token, hidden):
        embedded = self.embedding(token.unsqueeze(1))
        output, hidden = self.rnn(embedded, hidden)
        return self.out(output.squeeze(1)), hidden


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src, lens, tgt, tf_ratio=0.5):
        batch_size, tgt_len = tgt.shape
        outputs = torch.zeros(batch_size, tgt_len, VOCAB)
        _, hidden = self.encoder(src, lens)
        token = torch.full((batch_size,), SOS, dtype=torch.long)
        for t in range(tgt_len):
            logits, hidden = self.decoder(token, hidden)
            outputs[:, t] = logits
            teacher_force = random.random() < tf_ratio
            token = tgt[:, t] if teacher_force else logits.argmax(1)
        return outputs


train_loader = DataLoader(ReverseDataset(256, 1), batch_size=32, shuffle=True, collate_fn=collate)
val_loader = DataLoader(ReverseDataset(64, 2), batch_size=64, collate_fn=collate)

model = Seq2Seq(Encoder(VOCAB, 16, 48), Decoder(VOCAB, 16, 48))
criterion = nn.CrossEntropyLoss(ignore_index=0)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, 'min', patience=1)
CLIP = 1.0
TF_RATIO = 0.5


def train_epoch(model, loader):
    model.train()
    epoch_loss = 0
    for src, lens, tgt in loader:
        optimizer.zero_grad()
        output = model(src, lens, tgt, TF_RATIO)
        loss = criterion(output.view(-1, VOCAB), tgt.view(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        optimizer.step()
        epoch_loss += loss.item()
    return epoch_loss / len(loader)


def evaluate(model, loader):
    model.eval()
    epoch_loss = 0
    with torch.no_grad():
        for src, lens, tgt in loader:
            output = model(src, lens, tgt, 0)  # turn off teacher forcing
            loss = criterion(output.view(-1, VOCAB), tgt.view(-1))
            epoch_loss += loss.item()
    return epoch_loss / len(loader)


for epoch in range(4):
    train_loss = train_epoch(model, train_loader)
    valid_loss = evaluate(model, val_loader)
    scheduler.step(valid_loss)
    print(f"Epoch: {epoch + 1:02} | Train Loss: {train_loss:.3f} | Val. Loss: {valid_loss:.3f} | lr {optimizer.param_groups[0]['lr']:.5f}")

torch.save(model.state_dict(), "seq2seq.pt")
