# corpus: makemore part 3 lecture: nn.Module layers, torch.randint minibatch indices each step, lr = 0.1 if i < 150 else 0.01 on param_groups, lossi with log10, split_loss() and sampling
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

# build a fake name dataset: words over a 26-letter alphabet
random.seed(42)
letters = 'abcdefghijklmnopqrstuvwxyz'
words = [''.join(random.choice(letters[:12]) for _ in range(random.randint(3, 7))) for _ in range(800)]
chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
vocab_size = len(itos)
print(vocab_size)

block_size = 3  # context length: how many characters do we take to predict the next one?


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + '.':
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]  # crop and append
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape)
    return X, Y


random.shuffle(words)
n1 = int(0.8 * len(words))
n2 = int(0.9 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])


class MLP(nn.Module):
    def __init__(self, n_embd=10, n_hidden=64):
        super().__init__()
        self.C = nn.Embedding(vocab_size, n_embd)
        self.net = nn.Sequential(
            nn.Linear(n_embd * block_size, n_hidden, bias=False), nn.BatchNorm1d(n_hidden), nn.Tanh(),
            nn.Linear(n_hidden, n_hidden, bias=False), nn.BatchNorm1d(n_hidden), nn.Tanh(),
            nn.Linear(n_hidden, vocab_size),
        )
        with torch.no_grad():
            self.net[-1].weight *= 0.1  # make last layer less confident

    def forward(self, x):
        emb = self.C(x)
        x = emb.view(emb.shape[0], -1)
        return self.net(x)


g = torch.Generator().manual_seed(2147483647)
torch.manual_seed(2147483647)
model = MLP()
print(sum(p.nelement() for p in model.parameters()))  # number of parameters in total
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

max_steps = 300
batch_size = 32
lossi = []

for i in range(max_steps):
    # minibatch construct
    ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]

    # forward pass
    logits = model(Xb)
    loss = F.cross_entropy(logits, Yb)

    # backward pass
    optimizer.zero_grad()
    loss.backward()

    # update
    lr = 0.1 if i < 150 else 0.01  # step learning rate decay
    for pg in optimizer.param_groups:
        pg['lr'] = lr
    optimizer.step()

    # track stats
    if i % 50 == 0:
        print(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
    lossi.append(loss.log10().item())


@torch.no_grad()  # this decorator disables gradient tracking
def split_loss(split):
    x, y = {
        'train': (Xtr, Ytr),
        'val': (Xdev, Ydev),
        'test': (Xte, Yte),
    }[split]
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    print(split, loss.item())


model.eval()
split_loss('train')
split_loss('val')

# sample from the model
g = torch.Generator().manual_seed(2147483647 + 10)
for _ in range(5):
    out = []
    context = [0] * block_size
    while True:
        with torch.no_grad():
            logits = model(torch.tensor([context]))
        probs = F.softmax(logits, dim=1)
        ix = torch.multinomial(probs, num_samples=1, generator=g).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0 or len(out) > 20:
            break
    print(''.join(itos[i] for i in out))

torch.save(torch.tensor(lossi), 'lossi.pt')
