# corpus: seq2seq translation repo (bentrevett tutorial 1, newer version): dict batches {"de_ids", "en_ids"} from a pad_sequence collate_fn, 2-layer LSTM encoder/decoder, Seq2Seq.forward with `random.random() < teacher_forcing_ratio` per step, init_weights uniform_(-0.08, 0.08) via apply, train_fn/evaluate_fn(model, data_loader, ..., device), clip_grad_norm_, epoch_time helper, best_valid_loss = float('inf') checkpointing, test PPL after reload
import math
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader

seed = 1234
random.seed(seed)
np.random.seed(seed)
torch.manual_seed(seed)
torch.cuda.manual_seed(seed)
torch.backends.cudnn.deterministic = True

PAD, SOS, EOS = 0, 1, 2
SRC_VOCAB, TRG_VOCAB = 30, 30


def make_pairs(n):
    data = []
    for _ in range(n):
        length = random.randint(3, 6)
        de = [random.randint(3, SRC_VOCAB - 1) for _ in range(length)]
        en = [((t * 7) % (TRG_VOCAB - 3)) + 3 for t in reversed(de)]
        data.append({"de_ids": torch.tensor([SOS] + de + [EOS]), "en_ids": torch.tensor([SOS] + en + [EOS])})
    return data


def get_collate_fn(pad_index):
    def collate_fn(batch):
        batch_en_ids = nn.utils.rnn.pad_sequence([ex["en_ids"] for ex in batch], padding_value=pad_index)
        batch_de_ids = nn.utils.rnn.pad_sequence([ex["de_ids"] for ex in batch], padding_value=pad_index)
        return {"en_ids": batch_en_ids, "de_ids": batch_de_ids}
    return collate_fn


def get_data_loader(dataset, batch_size, pad_index, shuffle=False):
    return DataLoader(dataset=dataset, batch_size=batch_size, collate_fn=get_collate_fn(pad_index), shuffle=shuffle)


class Encoder(nn.Module):
    def __init__(self, input_dim, embedding_dim, hidden_dim, n_layers, dropout):
        super().__init__()
        self.embedding = nn.Embedding(input_dim, embedding_dim)
        self.rnn = nn.LSTM(embedding_dim, hidden_dim, n_layers, dropout=dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src):
        embedded = self.dropout(self.embedding(src))
        outputs, (hidden, cell) = self.rnn(embedded)
        return hidden, cell


class Decoder(nn.Module):
    def __init__(self, output_dim, embedding_dim, hidden_dim, n_layers, dropout):
        super().__init__()
        self.output_dim = output_dim
        self.embedding = nn.Embedding(output_dim, embedding_dim)
        self.rnn = nn.LSTM(embedding_dim, hidden_dim, n_layers, dropout=dropout)
        self.fc_out = nn.Linear(hidden_dim, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input, hidden, cell):
        input = input.unsqueeze(0)
        embedded = self.dropout(self.embedding(input))
        output, (hidden, cell) = self.rnn(embedded, (hidden, cell))
        prediction = self.fc_out(output.squeeze(0))
        return prediction, hidden, cell


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder, device):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.device = device

    def forward(self, src, trg, teacher_forcing_ratio):
        batch_size = trg.shape[1]
        trg_length = trg.shape[0]
        outputs = torch.zeros(trg_length, batch_size, self.decoder.output_dim).to(self.device)
        hidden, cell = self.encoder(src)
        input = trg[0, :]
        for t in range(1, trg_length):
            output, hidden, cell = self.decoder(input, hidden, cell)
            outputs[t] = output
            teacher_force = random.random() < teacher_forcing_ratio
            top1 = output.argmax(1)
            input = trg[t] if teacher_force else top1
        return outputs


def init_weights(m):
    for name, param in m.named_parameters():
        nn.init.uniform_(param.data, -0.08, 0.08)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def train_fn(model, data_loader, optimizer, criterion, clip, teacher_forcing_ratio, device):
    model.train()
    epoch_loss = 0
    for i, batch in enumerate(data_loader):
        src = batch["de_ids"].to(device)
        trg = batch["en_ids"].to(device)
        optimizer.zero_grad()
        output = model(src, trg, teacher_forcing_ratio)
        output_dim = output.shape[-1]
        output = output[1:].view(-1, output_dim)
        trg = trg[1:].view(-1)
        loss = criterion(output, trg)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        epoch_loss += loss.item()
    return epoch_loss / len(data_loader)


def evaluate_fn(model, data_loader, criterion, device):
    model.eval()
    epoch_loss = 0
    with torch.no_grad():
        for i, batch in enumerate(data_loader):
            src = batch["de_ids"].to(device)
            trg = batch["en_ids"].to(device)
            output = model(src, trg, 0)  # turn off teacher forcing
            output_dim = output.shape[-1]
            output = output[1:].view(-1, output_dim)
            trg = trg[1:].view(-1)
            loss = criterion(output, trg)
            epoch_loss += loss.item()
    return epoch_loss / len(data_loader)


def epoch_time(start_time, end_time):
    elapsed_time = end_time - start_time
    elapsed_mins = int(elapsed_time / 60)
    elapsed_secs = int(elapsed_time - (elapsed_mins * 60))
    return elapsed_mins, elapsed_secs


train_data, valid_data, test_data = make_pairs(128), make_pairs(32), make_pairs(32)
batch_size = 32
train_data_loader = get_data_loader(train_data, batch_size, PAD, shuffle=True)
valid_data_loader = get_data_loader(valid_data, batch_size, PAD)
test_data_loader = get_data_loader(test_data, batch_size, PAD)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
encoder = Encoder(SRC_VOCAB, 32, 64, 2, 0.5)
decoder = Decoder(TRG_VOCAB, 32, 64, 2, 0.5)
model = Seq2Seq(encoder, decoder, device).to(device)
model.apply(init_weights)
print(f"The model has {count_parameters(model):,} trainable parameters")

optimizer = optim.Adam(model.parameters())
criterion = nn.CrossEntropyLoss(ignore_index=PAD)

n_epochs = 3
clip = 1.0
teacher_forcing_ratio = 0.5
best_valid_loss = float("inf")

for epoch in range(n_epochs):
    start_time = time.time()
    train_loss = train_fn(model, train_data_loader, optimizer, criterion, clip, teacher_forcing_ratio, device)
    valid_loss = evaluate_fn(model, valid_data_loader, criterion, device)
    end_time = time.time()
    epoch_mins, epoch_secs = epoch_time(start_time, end_time)
    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        torch.save(model.state_dict(), "tut1-model.pt")
    print(f"Epoch: {epoch + 1:02} | Time: {epoch_mins}m {epoch_secs}s")
    print(f"\tTrain Loss: {train_loss:7.3f} | Train PPL: {math.exp(train_loss):7.3f}")
    print(f"\tValid Loss: {valid_loss:7.3f} | Valid PPL: {math.exp(valid_loss):7.3f}")

model.load_state_dict(torch.load("tut1-model.pt"))
test_loss = evaluate_fn(model, test_data_loader, criterion, device)
print(f"| Test Loss: {test_loss:.3f} | Test PPL: {math.exp(test_loss):7.3f} |")
