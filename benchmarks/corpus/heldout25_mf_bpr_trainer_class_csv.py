# corpus: recsys repo: argparse, implicit-feedback MF with BPR, negatives drawn with numpy in Dataset.__getitem__, L2 reg added to the loss, Trainer class with fit()/evaluate() leave-one-out HR@10/NDCG@10 over all items, ExponentialLR, csv.DictWriter log, best model + early stop
import argparse
import csv
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader


def parse_args():
    p = argparse.ArgumentParser("BPR-MF")
    p.add_argument("--n_users", type=int, default=120)
    p.add_argument("--n_items", type=int, default=200)
    p.add_argument("--dim", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--reg", type=float, default=1e-4)
    p.add_argument("--batch_size", type=int, default=256)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--topk", type=int, default=10)
    p.add_argument("--patience", type=int, default=3)
    p.add_argument("--out", type=str, default="output")
    p.add_argument("--seed", type=int, default=7)
    return p.parse_args()


def make_interactions(n_users, n_items, rng):
    """Users and items live in 4 latent 'genres'; a user clicks mostly inside its genre."""
    user_g = rng.randint(0, 4, n_users)
    item_g = rng.randint(0, 4, n_items)
    inter = {}
    for u in range(n_users):
        same = np.where(item_g == user_g[u])[0]
        other = np.where(item_g != user_g[u])[0]
        k = rng.randint(6, 14)
        items = list(rng.choice(same, size=min(k, len(same)), replace=False)) + list(rng.choice(other, size=2, replace=False))
        inter[u] = [int(i) for i in items]
    return inter


class BPRData(Dataset):
    def __init__(self, train_pairs, user_pos, n_items):
        self.pairs = train_pairs
        self.user_pos = user_pos
        self.n_items = n_items

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, idx):
        u, i = self.pairs[idx]
        j = np.random.randint(self.n_items)
        while j in self.user_pos[u]:
            j = np.random.randint(self.n_items)
        return u, i, j


class MF(nn.Module):
    def __init__(self, n_users, n_items, dim):
        super().__init__()
        self.user_emb = nn.Embedding(n_users, dim)
        self.item_emb = nn.Embedding(n_items, dim)
        nn.init.normal_(self.user_emb.weight, std=0.1)
        nn.init.normal_(self.item_emb.weight, std=0.1)

    def forward(self, u, i, j):
        eu = self.user_emb(u)
        ei = self.item_emb(i)
        ej = self.item_emb(j)
        pos = (eu * ei).sum(-1)
        neg = (eu * ej).sum(-1)
        return pos, neg, eu, ei, ej


class Trainer:
    def __init__(self, args, model, train_loader, user_pos, test_items):
        self.args = args
        self.model = model
        self.train_loader = train_loader
        self.user_pos = user_pos
        self.test_items = test_items
        self.optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
        self.scheduler = torch.optim.lr_scheduler.ExponentialLR(self.optimizer, gamma=0.9)
        self.best_hr = 0.0
        self.best_epoch = -1
        os.makedirs(args.out, exist_ok=True)
        self.log_file = open(os.path.join(args.out, "log.csv"), "w", newline="")
        self.writer = csv.DictWriter(self.log_file, fieldnames=["epoch", "loss", "hr", "ndcg", "lr", "time"])
        self.writer.writeheader()

    def bpr_loss(self, pos, neg, eu, ei, ej):
        loss = -torch.log(torch.sigmoid(pos - neg) + 1e-10).mean()
        reg = self.args.reg * (eu.norm(2).pow(2) + ei.norm(2).pow(2) + ej.norm(2).pow(2)) / eu.shape[0]
        return loss + reg

    def train_epoch(self):
        self.model.train()
        total = 0.0
        for u, i, j in self.train_loader:
            self.optimizer.zero_grad()
            pos, neg, eu, ei, ej = self.model(u, i, j)
            loss = self.bpr_loss(pos, neg, eu, ei, ej)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / len(self.train_loader)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        scores = self.model.user_emb.weight @ self.model.item_emb.weight.t()
        hits, ndcgs = [], []
        for u, t in self.test_items.items():
            s = scores[u].clone()
            s[list(self.user_pos[u])] = -float("inf")  # mask training items
            topk = torch.topk(s, self.args.topk).indices.tolist()
            if t in topk:
                hits.append(1)
                ndcgs.append(1.0 / math.log2(topk.index(t) + 2))
            else:
                hits.append(0)
                ndcgs.append(0.0)
        return float(np.mean(hits)), float(np.mean(ndcgs))

    def fit(self):
        bad = 0
        for epoch in range(1, self.args.epochs + 1):
            t0 = time.time()
            loss = self.train_epoch()
            hr, ndcg = self.evaluate()
            lr = self.optimizer.param_groups[0]["lr"]
            self.scheduler.step()
            elapsed = time.time() - t0
            self.writer.writerow({"epoch": epoch, "loss": f"{loss:.5f}", "hr": f"{hr:.4f}", "ndcg": f"{ndcg:.4f}",
                                  "lr": f"{lr:.5f}", "time": f"{elapsed:.2f}"})
            self.log_file.flush()
            print("Epoch %03d: loss %.4f  HR@%d %.4f  NDCG@%d %.4f" % (epoch, loss, self.args.topk, hr, self.args.topk, ndcg))
            if hr > self.best_hr:
                self.best_hr, self.best_epoch = hr, epoch
                torch.save(self.model.state_dict(), os.path.join(self.args.out, "mf_best.pt"))
                bad = 0
            else:
                bad += 1
                if bad >= self.args.patience:
                    print("early stopping")
                    break
        self.log_file.close()
        print("End. Best epoch %03d: HR = %.4f" % (self.best_epoch, self.best_hr))


def main():
    args = parse_args()
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    rng = np.random.RandomState(args.seed)

    inter = make_interactions(args.n_users, args.n_items, rng)
    # leave-one-out: last interaction of each user is the test item
    test_items = {u: items[-1] for u, items in inter.items()}
    user_pos = {u: set(items[:-1]) for u, items in inter.items()}
    train_pairs = [(u, i) for u, items in inter.items() for i in items[:-1]]
    print("users %d items %d train interactions %d" % (args.n_users, args.n_items, len(train_pairs)))

    train_loader = DataLoader(BPRData(train_pairs, user_pos, args.n_items), batch_size=args.batch_size,
                              shuffle=True, num_workers=0)
    model = MF(args.n_users, args.n_items, args.dim)
    trainer = Trainer(args, model, train_loader, user_pos, test_items)
    hr0, ndcg0 = trainer.evaluate()
    print("untrained: HR %.4f NDCG %.4f" % (hr0, ndcg0))
    trainer.fit()


if __name__ == "__main__":
    main()
