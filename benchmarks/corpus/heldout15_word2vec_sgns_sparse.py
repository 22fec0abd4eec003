# corpus: word2vec skip-gram with negative sampling: nn.Embedding(sparse=True) in/out tables, SparseAdam, unigram^0.75 negatives drawn with torch.multinomial each batch, nearest words printed after training
import argparse
import collections
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

parser = argparse.ArgumentParser(description="skip-gram negative sampling")
parser.add_argument("--emb-dim", type=int, default=32)
parser.add_argument("--window", type=int, default=2)
parser.add_argument("--neg", type=int, default=5)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--epochs", type=int, default=2)
parser.add_argument("--lr", type=float, default=0.01)
args = parser.parse_args()

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)

# a toy "corpus": sentences of word ids with a Zipf-like distribution
VOCAB = 200
ranks = np.arange(1, VOCAB + 1)
probs = (1.0 / ranks) / (1.0 / ranks).sum()
corpus = np.random.choice(VOCAB, size=800, p=probs).tolist()
id2word = ["w%d" % i for i in range(VOCAB)]

counts = collections.Counter(corpus)
freq = np.array([counts.get(i, 0) for i in range(VOCAB)], dtype=np.float64)
unigram = freq ** 0.75
unigram = unigram / unigram.sum()
noise_dist = torch.tensor(unigram, dtype=torch.float)


class SkipGramPairs(Dataset):
    def __init__(self, ids, window):
        self.pairs = []
        for i, center in enumerate(ids):
            for j in range(max(0, i - window), min(len(ids), i + window + 1)):
                if j != i:
                    self.pairs.append((center, ids[j]))

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, idx):
        c, o = self.pairs[idx]
        return torch.tensor(c), torch.tensor(o)


class SkipGramModel(nn.Module):
    def __init__(self, vocab_size, emb_dim):
        super().__init__()
        self.u_embeddings = nn.Embedding(vocab_size, emb_dim, sparse=True)
        self.v_embeddings = nn.Embedding(vocab_size, emb_dim, sparse=True)
        initrange = 1.0 / emb_dim
        nn.init.uniform_(self.u_embeddings.weight.data, -initrange, initrange)
        nn.init.constant_(self.v_embeddings.weight.data, 0)

    def forward(self, pos_u, pos_v, neg_v):
        emb_u = self.u_embeddings(pos_u)            # (B, D)
        emb_v = self.v_embeddings(pos_v)            # (B, D)
        emb_neg_v = self.v_embeddings(neg_v)        # (B, K, D)
        score = torch.sum(emb_u * emb_v, dim=1)
        score = torch.clamp(score, max=10, min=-10)
        score = -F.logsigmoid(score)
        neg_score = torch.bmm(emb_neg_v, emb_u.unsqueeze(2)).squeeze()
        neg_score = torch.clamp(neg_score, max=10, min=-10)
        neg_score = -torch.sum(F.logsigmoid(-neg_score), dim=1)
        return torch.mean(score + neg_score)


def nearest(model, word_id, k=5):
    emb = model.u_embeddings.weight.data
    emb = emb / emb.norm(dim=1, keepdim=True).clamp(min=1e-8)
    sims = emb @ emb[word_id]
    top = sims.topk(k + 1).indices.tolist()
    return [id2word[t] for t in top if t != word_id][:k]


dataset = SkipGramPairs(corpus, args.window)
loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
print("pairs:", len(dataset))

model = SkipGramModel(VOCAB, args.emb_dim)
optimizer = torch.optim.SparseAdam(list(model.parameters()), lr=args.lr)

for epoch in range(args.epochs):
    running_loss = 0.0
    for i, (pos_u, pos_v) in enumerate(loader):
        neg_v = torch.multinomial(noise_dist, pos_u.size(0) * args.neg, replacement=True)
        neg_v = neg_v.view(pos_u.size(0), args.neg)

        optimizer.zero_grad()
        loss = model(pos_u, pos_v, neg_v)
        loss.backward()
        optimizer.step()

        running_loss = running_loss * 0.9 + loss.item() * 0.1
        if i > 0 and i % 10 == 0:
            print(" Loss: " + str(running_loss))
    print("epoch {} done, smoothed loss {:.4f}".format(epoch, running_loss))

for w in [0, 1, 2]:
    print(id2word[w], "->", nearest(model, w))

# save the input vectors the usual word2vec text way
with open("vectors.txt", "w") as f:
    emb = model.u_embeddings.weight.data.numpy()
    f.write("%d %d\n" % (VOCAB, args.emb_dim))
    for wid, w in enumerate(id2word):
        f.write("%s %s\n" % (w, " ".join("%.5f" % x for x in emb[wid])))
