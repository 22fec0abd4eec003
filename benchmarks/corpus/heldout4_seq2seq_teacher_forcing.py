# corpus: seq2seq GRU encoder/decoder on a synthetic reverse-the-sequence task, teacher forcing chosen per batch with random.random(), loss.item() * src.size(0) summed and divided by len(loader.dataset), evaluate() without teacher forcing
import random

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

SOS = 0
VOCAB = 12
SEQ_LEN = 6
HIDDEN = 32


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, HIDDEN)
        self.rnn = nn.GRU(HIDDEN, HIDDEN, batch_first=True)

    def forward(self, src):
        _, hidden = self.rnn(self.embedding(src))
        return hidden


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, HIDDEN)
        self.rnn = nn.GRU(HIDDEN, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, token, hidden):
        output, hidden = self.rnn(self.embedding(token).unsqueeze(1), hidden)
        return self.out(output.squeeze(1)), hidden


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src, trg, teacher_forcing_ratio=0.5):
        batch_size, trg_len = trg.shape
        outputs = torch.zeros(batch_size, trg_len, VOCAB, device=src.device)
        hidden = self.encoder(src)
        token = torch.full((batch_size,), SOS, dtype=torch.long, device=src.device)
        teacher_force = random.random() < teacher_forcing_ratio
        for t in range(trg_len):
            logits, hidden = self.decoder(token, hidden)
            outputs[:, t] = logits
            token = trg[:, t] if teacher_force else logits.argmax(1)
        return outputs


def train(model, iterator, optimizer, criterion, clip):
    model.train()
    epoch_loss = 0
    for src, trg in iterator:
        src, trg = src.to(device), trg.to(device)
        optimizer.zero_grad()
        output = model(src, trg)
        loss = criterion(output.reshape(-1, VOCAB), trg.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        epoch_loss += loss.item() * src.size(0)
    return epoch_loss / len(iterator.dataset)


def evaluate(model, iterator, criterion):
    model.eval()
    epoch_loss = 0
    with torch.no_grad():
        for src, trg in iterator:
            src, trg = src.to(device), trg.to(device)
            output = model(src, trg, 0)  # turn off teacher forcing
            loss = criterion(output.reshape(-1, VOCAB), trg.reshape(-1))
            epoch_loss += loss.item() * src.size(0)
    return epoch_loss / len(iterator.dataset)


random.seed(1234)
torch.manual_seed(1234)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

src = torch.randint(1, VOCAB, (240, SEQ_LEN))
trg = torch.flip(src, dims=[1])
train_iterator = DataLoader(TensorDataset(src[:200], trg[:200]), batch_size=20, shuffle=True)
valid_iterator = DataLoader(TensorDataset(src[200:], trg[200:]), batch_size=20)

model = Seq2Seq(Encoder(), Decoder()).to(device)
optimizer = optim.Adam(model.parameters(), lr=5e-3)
criterion = nn.CrossEntropyLoss()

N_EPOCHS = 3
CLIP = 1
best_valid_loss = float("inf")

for epoch in range(N_EPOCHS):
    train_loss = train(model, train_iterator, optimizer, criterion, CLIP)
    valid_loss = evaluate(model, valid_iterator, criterion)
    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        torch.save(model.state_dict(), "seq2seq-model.pt")
    print(f"Epoch: {epoch + 1:02} | Train Loss: {train_loss:.3f} | Val. Loss: {valid_loss:.3f}")
