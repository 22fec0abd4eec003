# corpus: seq2seq course project — GRU encoder/decoder on a reverse-the-sequence task, teacher forcing ratio decayed per epoch, greedy decoding eval
import random

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

SEED = 1234
random.seed(SEED)
torch.manual_seed(SEED)

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

VOCAB = 12          # 0 = pad, 1 = <sos>, 2 = <eos>, 3.. tokens
SOS, EOS = 1, 2
SEQ_LEN = 6
EMB_DIM = 16
HID_DIM = 32
N_EPOCHS = 5
CLIP = 1.0
TF_START, TF_END = 1.0, 0.2


def make_data(n):
    src = torch.randint(3, VOCAB, (n, SEQ_LEN))
    trg = torch.flip(src, dims=[1])
    sos = torch.full((n, 1), SOS)
    eos = torch.full((n, 1), EOS)
    return src, torch.cat([sos, trg, eos], dim=1)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB_DIM)
        self.rnn = nn.GRU(EMB_DIM, HID_DIM, batch_first=True)

    def forward(self, src):
        _, hidden = self.rnn(self.embedding(src))
        return hidden


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB_DIM)
        self.rnn = nn.GRU(EMB_DIM, HID_DIM, batch_first=True)
        self.fc_out = nn.Linear(HID_DIM, VOCAB)

    def forward(self, input, hidden):
        output, hidden = self.rnn(self.embedding(input.unsqueeze(1)), hidden)
        return self.fc_out(output.squeeze(1)), hidden


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder, device):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.device = device

    def forward(self, src, trg, teacher_forcing_ratio=0.5):
        batch_size, trg_len = trg.shape
        outputs = torch.zeros(batch_size, trg_len, VOCAB).to(self.device)
        hidden = self.encoder(src)
        input = trg[:, 0]
        for t in range(1, trg_len):
            output, hidden = self.decoder(input, hidden)
            outputs[:, t] = output
            teacher_force = random.random() < teacher_forcing_ratio
            top1 = output.argmax(1)
            input = trg[:, t] if teacher_force else top1
        return outputs


def init_weights(m):
    for name, param in m.named_parameters():
        nn.init.uniform_(param.data, -0.08, 0.08)


def train(model, iterator, optimizer, criterion, clip, tf_ratio):
    model.train()
    epoch_loss = 0
    for i, (src, trg) in enumerate(iterator):
        src, trg = src.to(device), trg.to(device)
        optimizer.zero_grad()
        output = model(src, trg, tf_ratio)
        output_dim = output.shape[-1]
        output = output[:, 1:].reshape(-1, output_dim)
        trg = trg[:, 1:].reshape(-1)
        loss = criterion(output, trg)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        epoch_loss += loss.item()
    return epoch_loss / len(iterator)


def evaluate(model, iterator, criterion):
    model.eval()
    epoch_loss = 0
    correct = total = 0
    with torch.no_grad():
        for src, trg in iterator:
            src, trg = src.to(device), trg.to(device)
            output = model(src, trg, 0)  # turn off teacher forcing
            pred = output[:, 1:].argmax(-1)
            correct += (pred == trg[:, 1:]).all(1).sum().item()
            total += trg.shape[0]
            output_dim = output.shape[-1]
            loss = criterion(output[:, 1:].reshape(-1, output_dim), trg[:, 1:].reshape(-1))
            epoch_loss += loss.item()
    return epoch_loss / len(iterator), correct / total


train_src, train_trg = make_data(640)
valid_src, valid_trg = make_data(128)
train_iterator = DataLoader(TensorDataset(train_src, train_trg), batch_size=64, shuffle=True)
valid_iterator = DataLoader(TensorDataset(valid_src, valid_trg), batch_size=64)

model = Seq2Seq(Encoder(), Decoder(), device).to(device)
model.apply(init_weights)
print(f'The model has {sum(p.numel() for p in model.parameters() if p.requires_grad):,} trainable parameters')

optimizer = optim.Adam(model.parameters(), lr=5e-3)
criterion = nn.CrossEntropyLoss(ignore_index=0)

best_valid_loss = float('inf')
for epoch in range(N_EPOCHS):
    tf_ratio = TF_START - (TF_START - TF_END) * epoch / max(1, N_EPOCHS - 1)
    train_loss = train(model, train_iterator, optimizer, criterion, CLIP, tf_ratio)
    valid_loss, valid_acc = evaluate(model, valid_iterator, criterion)
    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        torch.save(model.state_dict(), 'tut-seq2seq-model.pt')
    print(f'Epoch: {epoch+1:02} | tf_ratio: {tf_ratio:.2f}')
    print(f'\tTrain Loss: {train_loss:.3f}')
    print(f'\t Val. Loss: {valid_loss:.3f} |  Val. seq acc: {valid_acc:.3f}')

model.load_state_dict(torch.load('tut-seq2seq-model.pt'))
test_loss, test_acc = evaluate(model, valid_iterator, criterion)
print(f'| Test Loss: {test_loss:.3f} | Test seq acc: {test_acc:.3f} |')
