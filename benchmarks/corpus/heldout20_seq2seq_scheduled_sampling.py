# corpus: seq2seq with a teacher_forcing_ratio argument to forward(), decayed per iteration (scheduled sampling), random reverse-copy batches drawn in a for it in range(n_iters) loop, StepLR, exact-match eval every print_every, encoder/decoder saved
import random
import time

import torch
import torch.nn as nn
import torch.optim as optim

SEED = 1234
random.seed(SEED)
torch.manual_seed(SEED)

SOS_token = 1
EOS_token = 2
VOCAB = 50
MAX_LEN = 8
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


def random_batch(batch_size):
    """ task: output the input sequence reversed. returns (src_len, batch), (trg_len, batch) like the old torchtext """
    length = random.randint(4, MAX_LEN)
    src = torch.randint(3, VOCAB, (length, batch_size))
    body = torch.flip(src, dims=[0])
    sos = torch.full((1, batch_size), SOS_token)
    eos = torch.full((1, batch_size), EOS_token)
    trg = torch.cat([sos, body, eos], dim=0)
    return src.to(device), trg.to(device)


class Encoder(nn.Module):
    def __init__(self, input_dim, emb_dim, hid_dim, dropout):
        super().__init__()
        self.embedding = nn.Embedding(input_dim, emb_dim)
        self.rnn = nn.GRU(emb_dim, hid_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src):
        embedded = self.dropout(self.embedding(src))
        outputs, hidden = self.rnn(embedded)
        return hidden


class Decoder(nn.Module):
    def __init__(self, output_dim, emb_dim, hid_dim, dropout):
        super().__init__()
        self.output_dim = output_dim
        self.embedding = nn.Embedding(output_dim, emb_dim)
        self.rnn = nn.GRU(emb_dim + hid_dim, hid_dim)
        self.fc_out = nn.Linear(emb_dim + hid_dim * 2, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input, hidden, context):
        input = input.unsqueeze(0)
        embedded = self.dropout(self.embedding(input))
        emb_con = torch.cat((embedded, context), dim=2)
        output, hidden = self.rnn(emb_con, hidden)
        output = torch.cat((embedded.squeeze(0), hidden.squeeze(0), context.squeeze(0)), dim=1)
        prediction = self.fc_out(output)
        return prediction, hidden


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder, device):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.device = device

    def forward(self, src, trg, teacher_forcing_ratio=0.5):
        trg_len, batch_size = trg.shape
        trg_vocab_size = self.decoder.output_dim
        outputs = torch.zeros(trg_len, batch_size, trg_vocab_size).to(self.device)
        context = self.encoder(src)
        hidden = context
        input = trg[0, :]
        for t in range(1, trg_len):
            output, hidden = self.decoder(input, hidden, context)
            outputs[t] = output
            teacher_force = random.random() < teacher_forcing_ratio
            top1 = output.argmax(1)
            input = trg[t] if teacher_force else top1
        return outputs


enc = Encoder(VOCAB, 16, 48, 0.1)
dec = Decoder(VOCAB, 16, 48, 0.1)
model = Seq2Seq(enc, dec, device).to(device)


def init_weights(m):
    for name, param in m.named_parameters():
        nn.init.normal_(param.data, mean=0, std=0.01)


model.apply(init_weights)
optimizer = optim.Adam(model.parameters(), lr=3e-3)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=100, gamma=0.5)
criterion = nn.CrossEntropyLoss()


def evaluate(model, n_batches=3):
    model.eval()
    epoch_loss, correct, total = 0, 0, 0
    with torch.no_grad():
        for _ in range(n_batches):
            src, trg = random_batch(32)
            output = model(src, trg, 0)  # turn off teacher forcing
            output_dim = output.shape[-1]
            pred = output[1:].argmax(-1)
            correct += (pred == trg[1:]).all(0).sum().item()
            total += trg.shape[1]
            loss = criterion(output[1:].view(-1, output_dim), trg[1:].reshape(-1))
            epoch_loss += loss.item()
    return epoch_loss / n_batches, correct / total


n_iters = 200
print_every = 50
clip = 1.0
tf_start, tf_end = 1.0, 0.2
print_loss_total = 0
best_valid_loss = float('inf')
start = time.time()

model.train()
for it in range(1, n_iters + 1):
    teacher_forcing_ratio = max(tf_end, tf_start - (tf_start - tf_end) * it / n_iters)
    src, trg = random_batch(32)

    optimizer.zero_grad()
    output = model(src, trg, teacher_forcing_ratio)
    output_dim = output.shape[-1]
    output = output[1:].view(-1, output_dim)
    loss = criterion(output, trg[1:].view(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    optimizer.step()
    scheduler.step()
    print_loss_total += loss.item()

    if it % print_every == 0:
        print_loss_avg = print_loss_total / print_every
        print_loss_total = 0
        valid_loss, valid_acc = evaluate(model)
        model.train()
        print(f'({time.time() - start:.1f}s) iter {it} ({it / n_iters * 100:.0f}%) tf={teacher_forcing_ratio:.2f} '
              f'lr={scheduler.get_last_lr()[0]:.5f} train {print_loss_avg:.4f} | valid {valid_loss:.4f} exact {valid_acc:.3f}')
        if valid_loss < best_valid_loss:
            best_valid_loss = valid_loss
            torch.save(model.state_dict(), 'seq2seq-best.pt')

torch.save({'encoder': enc.state_dict(), 'decoder': dec.state_dict()}, 'seq2seq-final.pt')
