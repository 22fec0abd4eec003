# corpus: min-char-rnn ported to PyTorch: while True over a data pointer p with hprev reset at the end of the data, n counter, smooth_loss, sample() every N iterations, if n > max_iters: break
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

# data I/O: a fake text made of a few repeating "words"
words = ['hello ', 'world ', 'torch ', 'lstm ', 'rnn ']
data = ''.join(np.random.choice(words, size=300))
chars = list(set(data))
chars.sort()
data_size, vocab_size = len(data), len(chars)
print('data has %d characters, %d unique.' % (data_size, vocab_size))
char_to_ix = {ch: i for i, ch in enumerate(chars)}
ix_to_char = {i: ch for i, ch in enumerate(chars)}

# hyperparameters
hidden_size = 64
seq_length = 25
learning_rate = 1e-2
max_iters = 150


class CharRNN(nn.Module):
    def __init__(self, vocab_size, hidden_size):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden_size)
        self.rnn = nn.RNN(hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, h):
        out, h = self.rnn(self.embed(x), h)
        return self.out(out), h


model = CharRNN(vocab_size, hidden_size)
optimizer = torch.optim.Adagrad(model.parameters(), lr=learning_rate)
criterion = nn.CrossEntropyLoss()


def sample(h, seed_ix, n):
    """ sample a sequence of integers from the model; h is memory state, seed_ix is seed letter for first time step """
    x = torch.tensor([[seed_ix]])
    ixes = []
    with torch.no_grad():
        for t in range(n):
            logits, h = model(x, h)
            p = torch.softmax(logits[0, -1], dim=0)
            ix = torch.multinomial(p, 1).item()
            x = torch.tensor([[ix]])
            ixes.append(ix)
    return ixes


n, p = 0, 0
smooth_loss = -np.log(1.0 / vocab_size) * seq_length  # loss at iteration 0
losses = []
while True:
    # prepare inputs (we're sweeping from left to right in steps seq_length long)
    if p + seq_length + 1 >= len(data) or n == 0:
        hprev = torch.zeros(1, 1, hidden_size)  # reset RNN memory
        p = 0  # go from start of data
    inputs = torch.tensor([[char_to_ix[ch] for ch in data[p:p + seq_length]]])
    targets = torch.tensor([char_to_ix[ch] for ch in data[p + 1:p + seq_length + 1]])

    # sample from the model now and then
    if n % 50 == 0:
        sample_ix = sample(hprev, inputs[0, 0].item(), 40)
        txt = ''.join(ix_to_char[ix] for ix in sample_ix)
        print('----\n %s \n----' % (txt,))

    # forward seq_length characters through the net and fetch gradient
    logits, hprev = model(inputs, hprev)
    hprev = hprev.detach()
    loss = criterion(logits[0], targets) * seq_length
    optimizer.zero_grad()
    loss.backward()
    for param in model.parameters():
        param.grad.data.clamp_(-5, 5)  # clip to mitigate exploding gradients
    optimizer.step()

    smooth_loss = smooth_loss * 0.999 + loss.item() * 0.001
    losses.append(smooth_loss)
    if n % 25 == 0:
        print('iter %d, loss: %f' % (n, smooth_loss))  # print progress

    p += seq_length  # move data pointer
    n += 1  # iteration counter
    if n > max_iters:
        break

torch.save(model.state_dict(), 'char_rnn.pt')
np.save('smooth_loss.npy', np.array(losses))
