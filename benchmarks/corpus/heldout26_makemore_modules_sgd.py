# corpus: nn-zero-to-hero makemore "torch-ified" follow-up: nn.Sequential(Embedding, Flatten, Linear, BatchNorm1d, Tanh, Linear), SGD with lr set on param_groups by step, torch.randint minibatches, lossi.append(loss.log10().item()), ud ratios, @torch.no_grad() split_loss with model.eval()
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

# ----------------------------------------------------------------------------------
# data: made-up names instead of names.txt
torch.manual_seed(42)
random.seed(42)
consonants = 'bdhjklmnrstvz'
vowels = 'aeiouy'
def make_name():
  n = random.randint(2, 4)
  return ''.join(random.choice(consonants) + random.choice(vowels) for _ in range(n))[: random.randint(3, 8)]
words = [make_name() for _ in range(800)]
print(len(words), max(len(w) for w in words), words[:5])

chars = sorted(list(set(''.join(words))))
stoi = {s:i+1 for i,s in enumerate(chars)}
stoi['.'] = 0
itos = {i:s for s,i in stoi.items()}
vocab_size = len(itos)
print(vocab_size)

block_size = 4 # context length: how many characters do we take to predict the next one?

def build_dataset(words):
  X, Y = [], []
  for w in words:
    context = [0] * block_size
    for ch in w + '.':
      ix = stoi[ch]
      X.append(context)
      Y.append(ix)
      context = context[1:] + [ix] # crop and append
  X = torch.tensor(X)
  Y = torch.tensor(Y)
  print(X.shape, Y.shape)
  return X, Y

random.shuffle(words)
n1 = int(0.8*len(words))
n2 = int(0.9*len(words))
Xtr,  Ytr  = build_dataset(words[:n1])     # 80%
Xdev, Ydev = build_dataset(words[n1:n2])   # 10%
Xte,  Yte  = build_dataset(words[n2:])     # 10%

# ----------------------------------------------------------------------------------
# the same network as before, but with torch.nn building blocks instead of our own
n_embd = 10 # the dimensionality of the character embedding vectors
n_hidden = 68 # the number of neurons in the hidden layer of the MLP

torch.manual_seed(42) # seed rng for reproducibility
model = nn.Sequential(
  nn.Embedding(vocab_size, n_embd),
  nn.Flatten(),
  nn.Linear(n_embd * block_size, n_hidden, bias=False), nn.BatchNorm1d(n_hidden), nn.Tanh(),
  nn.Linear(n_hidden, n_hidden, bias=False), nn.BatchNorm1d(n_hidden), nn.Tanh(),
  nn.Linear(n_hidden, vocab_size),
)

# parameter init
with torch.no_grad():
  model[-1].weight *= 0.1 # last layer make less confident

parameters = list(model.parameters())
print(sum(p.nelement() for p in parameters)) # number of parameters in total

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

# same optimization as last time
max_steps = 500
batch_size = 32
lossi = []
ud = []

for i in range(max_steps):

  # minibatch construct
  ix = torch.randint(0, Xtr.shape[0], (batch_size,))
  Xb, Yb = Xtr[ix], Ytr[ix] # batch X,Y

  # forward pass
  logits = model(Xb)
  loss = F.cross_entropy(logits, Yb) # loss function

  # backward pass
  optimizer.zero_grad(set_to_none=True)
  loss.backward()

  # update: step learning rate decay
  lr = 0.1 if i < 400 else 0.01
  for g in optimizer.param_groups:
    g['lr'] = lr
  optimizer.step()

  # track stats
  if i % 50 == 0: # print every once in a while
    print(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
  lossi.append(loss.log10().item())
  with torch.no_grad():
    ud.append([((lr*p.grad).std() / p.data.std()).log10().item() for p in parameters if p.ndim == 2])

print(torch.tensor(lossi).view(-1, 50).mean(1))
print('update:data ratio (last step)', [f'{r:.2f}' for r in ud[-1]])

# put layers into eval mode (needed for batchnorm especially)
model.eval()

# evaluate the loss
@torch.no_grad() # this decorator disables gradient tracking inside pytorch
def split_loss(split):
  x,y = {
    'train': (Xtr, Ytr),
    'val': (Xdev, Ydev),
    'test': (Xte, Yte),
  }[split]
  logits = model(x)
  loss = F.cross_entropy(logits, y)
  print(split, loss.item())

split_loss('train')
split_loss('val')

# sample from the model
for _ in range(10):
    out = []
    context = [0] * block_size # initialize with all ...
    while True:
      # forward pass the neural net
      logits = model(torch.tensor([context]))
      probs = F.softmax(logits, dim=1)
      # sample from the distribution
      ix = torch.multinomial(probs, num_samples=1).item()
      # shift the context window and track the samples
      context = context[1:] + [ix]
      out.append(ix)
      # if we sample the special '.' token, break
      if ix == 0:
        break
    print(''.join(itos[i] for i in out)) # decode and print the generated word

torch.save(model.state_dict(), 'makemore_mlp.pt')
