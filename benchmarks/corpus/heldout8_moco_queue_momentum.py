# corpus: MoCo-style self-supervision: query encoder trained, key encoder updated by momentum under no_grad after optimizer.step(), a negatives queue buffer enqueued/dequeued each step, InfoNCE via CrossEntropy over logits/T, argparse defaults
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser(description='MoCo toy pre-training')
parser.add_argument('--epochs', default=3, type=int)
parser.add_argument('-b', '--batch-size', default=16, type=int)
parser.add_argument('--lr', '--learning-rate', default=0.03, type=float, dest='lr')
parser.add_argument('--moco-dim', default=32, type=int, help='feature dimension')
parser.add_argument('--moco-k', default=128, type=int, help='queue size; number of negative keys')
parser.add_argument('--moco-m', default=0.99, type=float, help='moco momentum of updating key encoder')
parser.add_argument('--moco-t', default=0.2, type=float, help='softmax temperature')
parser.add_argument('--seed', default=0, type=int)
parser.add_argument('--print-freq', default=5, type=int)


def base_encoder(num_classes):
    return nn.Sequential(
        nn.Linear(40, 64), nn.ReLU(inplace=True),
        nn.Linear(64, num_classes))


class MoCo(nn.Module):
    def __init__(self, base_encoder, dim=128, K=65536, m=0.999, T=0.07):
        super(MoCo, self).__init__()
        self.K = K
        self.m = m
        self.T = T

        # create the encoders
        self.encoder_q = base_encoder(num_classes=dim)
        self.encoder_k = base_encoder(num_classes=dim)

        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)  # initialize
            param_k.requires_grad = False  # not update by gradient

        # create the queue
        self.register_buffer("queue", torch.randn(dim, K))
        self.queue = nn.functional.normalize(self.queue, dim=0)
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        """Momentum update of the key encoder"""
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data = param_k.data * self.m + param_q.data * (1. - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        assert self.K % batch_size == 0  # for simplicity

        # replace the keys at ptr (dequeue and enqueue)
        self.queue[:, ptr:ptr + batch_size] = keys.T
        ptr = (ptr + batch_size) % self.K  # move pointer
        self.queue_ptr[0] = ptr

    def forward(self, im_q, im_k):
        q = self.encoder_q(im_q)
        q = nn.functional.normalize(q, dim=1)

        with torch.no_grad():  # no gradient to keys
            k = self.encoder_k(im_k)
            k = nn.functional.normalize(k, dim=1)

        # positive logits: Nx1
        l_pos = torch.einsum('nc,nc->n', [q, k]).unsqueeze(-1)
        # negative logits: NxK
        l_neg = torch.einsum('nc,ck->nk', [q, self.queue.clone().detach()])

        logits = torch.cat([l_pos, l_neg], dim=1)
        logits /= self.T

        # labels: positive key indicators
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        return logits, labels, k


def augment(x):
    """two 'views': gaussian noise + random feature dropout"""
    mask = (torch.rand_like(x) > 0.1).float()
    return (x + 0.1 * torch.randn_like(x)) * mask


def accuracy(output, target):
    return (output.argmax(1) == target).float().mean().item() * 100


def train(train_loader, model, criterion, optimizer, epoch, args):
    model.train()
    for i, (images, _) in enumerate(train_loader):
        im_q, im_k = augment(images), augment(images)

        # compute output
        output, target, keys = model(im_q=im_q, im_k=im_k)
        loss = criterion(output, target)

        acc1 = accuracy(output, target)

        # compute gradient and do SGD step
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        # update the key encoder and the queue
        model._momentum_update_key_encoder()
        model._dequeue_and_enqueue(keys)

        if i % args.print_freq == 0:
            print('Epoch: [{0}][{1}/{2}]\tLoss {loss:.4f}\tAcc@1 {acc:.2f}'.format(
                epoch, i, len(train_loader), loss=loss.item(), acc=acc1))


def main():
    args = parser.parse_args()
    torch.manual_seed(args.seed)

    data = torch.randn(192, 40)
    train_dataset = TensorDataset(data, torch.zeros(192, dtype=torch.long))
    train_loader = DataLoader(train_dataset, batch_size=args.batch_size, shuffle=True, drop_last=True)

    model = MoCo(base_encoder, args.moco_dim, args.moco_k, args.moco_m, args.moco_t)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)

    for epoch in range(args.epochs):
        train(train_loader, model, criterion, optimizer, epoch, args)

    torch.save({'epoch': args.epochs, 'state_dict': model.state_dict(),
                'optimizer': optimizer.state_dict()}, 'checkpoint_moco.pth.tar')


if __name__ == '__main__':
    main()
