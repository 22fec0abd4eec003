# corpus: prototypical networks few-shot repo — episodic N-way K-shot sampler, euclidean prototypes, StepLR per episode batch, eval episodes with 95% CI
import argparse
import logging
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import trange

logging.basicConfig(format="%(asctime)s %(message)s", level=logging.INFO)
log = logging.getLogger("protonet")


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class EpisodeSampler:
    """Holds a synthetic 'omniglot' of n_classes x n_per_class 1x12x12 images."""

    def __init__(self, n_classes, n_per_class):
        self.protos = torch.randn(n_classes, 1, 12, 12)
        self.data = self.protos[:, None] + 0.8 * torch.randn(n_classes, n_per_class, 1, 12, 12)
        self.n_classes = n_classes
        self.n_per_class = n_per_class

    def sample(self, n_way, k_shot, n_query):
        classes = random.sample(range(self.n_classes), n_way)
        support, query = [], []
        for c in classes:
            idx = torch.randperm(self.n_per_class)[: k_shot + n_query]
            support.append(self.data[c, idx[:k_shot]])
            query.append(self.data[c, idx[k_shot:]])
        support = torch.stack(support)  # n_way x k x C x H x W
        query = torch.stack(query)
        return support, query


def conv_block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2))


class ProtoNet(nn.Module):
    def __init__(self, hid=16):
        super().__init__()
        self.encoder = nn.Sequential(conv_block(1, hid), conv_block(hid, hid), nn.Flatten())

    def forward(self, x):
        return self.encoder(x)


def euclidean_dist(a, b):
    return ((a.unsqueeze(1) - b.unsqueeze(0)) ** 2).sum(2)


def proto_loss(model, support, query, device):
    n_way, k_shot = support.shape[:2]
    n_query = query.shape[1]
    x = torch.cat([support.flatten(0, 1), query.flatten(0, 1)]).to(device)
    z = model(x)
    protos = z[: n_way * k_shot].view(n_way, k_shot, -1).mean(1)
    zq = z[n_way * k_shot:]
    log_p = F.log_softmax(-euclidean_dist(zq, protos), dim=1)
    target = torch.arange(n_way, device=device).repeat_interleave(n_query)
    loss = F.nll_loss(log_p, target)
    acc = (log_p.argmax(1) == target).float().mean()
    return loss, acc


class Runner:
    def __init__(self, args):
        self.args = args
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = ProtoNet().to(self.device)
        self.optim = torch.optim.Adam(self.model.parameters(), lr=args.lr)
        self.sched = torch.optim.lr_scheduler.StepLR(self.optim, step_size=args.lr_step, gamma=0.5)
        self.train_set = EpisodeSampler(20, 15)
        self.test_set = EpisodeSampler(10, 15)

    def train(self):
        a = self.args
        for epoch in range(1, a.epochs + 1):
            self.model.train()
            losses, accs = [], []
            for _ in trange(a.episodes, desc=f"epoch {epoch}", leave=False):
                s, q = self.train_set.sample(a.train_way, a.shot, a.query)
                loss, acc = proto_loss(self.model, s, q, self.device)
                self.optim.zero_grad()
                loss.backward()
                self.optim.step()
                losses.append(loss.item())
                accs.append(acc.item())
            self.sched.step()
            log.info(f"epoch {epoch} loss {np.mean(losses):.4f} acc {np.mean(accs):.4f}")
            torch.save({"epoch": epoch, "model": self.model.state_dict(), "optimizer": self.optim.state_dict()},
                       os.path.join(a.out_dir, "proto_last.pth"))

    @torch.no_grad()
    def test(self, n_episodes):
        self.model.eval()
        accs = []
        for _ in range(n_episodes):
            s, q = self.test_set.sample(self.args.test_way, self.args.shot, self.args.query)
            accs.append(proto_loss(self.model, s, q, self.device)[1].item())
        accs = np.array(accs)
        ci = 1.96 * accs.std() / np.sqrt(len(accs))
        log.info(f"test {self.args.test_way}-way {self.args.shot}-shot acc {accs.mean():.4f} +- {ci:.4f}")
        return accs.mean()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--episodes", type=int, default=8)
    p.add_argument("--train_way", type=int, default=5)
    p.add_argument("--test_way", type=int, default=5)
    p.add_argument("--shot", type=int, default=3)
    p.add_argument("--query", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--lr_step", type=int, default=2)
    p.add_argument("--out_dir", default="protonet_ckpt")
    args = p.parse_args([])
    set_seed(5)
    os.makedirs(args.out_dir, exist_ok=True)
    runner = Runner(args)
    runner.test(10)
    runner.train()
    runner.test(20)
