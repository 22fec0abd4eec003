# corpus: siamese-triplet-style repo: BalancedBatchSampler (n_classes x n_samples), EmbeddingNet, OnlineContrastiveLoss with a hard-negative pair selector, generic fit()/train_epoch()/test_epoch() taking tuples, log_interval messages, metric classes, StepLR, embeddings extracted for 1-NN accuracy
import itertools
import logging

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.sampler import BatchSampler

logging.basicConfig(format="%(asctime)s %(message)s", level=logging.INFO)
logger = logging.getLogger("siamese")

cuda = torch.cuda.is_available()
torch.manual_seed(3)
np.random.seed(3)


# ---------------------------------------------------------------- datasets
class BlobDigits(Dataset):
    """10 classes of 1x16x16 'glyphs': each class has a fixed template, samples are jittered + noisy."""

    def __init__(self, n_per_class, templates, train=True):
        xs, ys = [], []
        for c in range(templates.shape[0]):
            shift = torch.randint(-2, 3, (n_per_class, 2))
            for k in range(n_per_class):
                img = torch.roll(templates[c], shifts=(int(shift[k, 0]), int(shift[k, 1])), dims=(0, 1))
                xs.append(img + 0.4 * torch.randn_like(img))
                ys.append(c)
        self.data = torch.stack(xs).unsqueeze(1)
        self.targets = torch.tensor(ys)
        self.train = train

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        return self.data[index], self.targets[index]


class BalancedBatchSampler(BatchSampler):
    """Returns batches of size n_classes * n_samples."""

    def __init__(self, labels, n_classes, n_samples):
        self.labels = labels.numpy()
        self.labels_set = list(set(self.labels))
        self.label_to_indices = {label: np.where(self.labels == label)[0] for label in self.labels_set}
        for l in self.labels_set:
            np.random.shuffle(self.label_to_indices[l])
        self.used_label_indices_count = {label: 0 for label in self.labels_set}
        self.count = 0
        self.n_classes = n_classes
        self.n_samples = n_samples
        self.n_dataset = len(self.labels)
        self.batch_size = self.n_samples * self.n_classes

    def __iter__(self):
        self.count = 0
        while self.count + self.batch_size < self.n_dataset:
            classes = np.random.choice(self.labels_set, self.n_classes, replace=False)
            indices = []
            for class_ in classes:
                start = self.used_label_indices_count[class_]
                indices.extend(self.label_to_indices[class_][start:start + self.n_samples])
                self.used_label_indices_count[class_] += self.n_samples
                if self.used_label_indices_count[class_] + self.n_samples > len(self.label_to_indices[class_]):
                    np.random.shuffle(self.label_to_indices[class_])
                    self.used_label_indices_count[class_] = 0
            yield indices
            self.count += self.n_classes * self.n_samples

    def __len__(self):
        return self.n_dataset // self.batch_size


# ---------------------------------------------------------------- networks
class EmbeddingNet(nn.Module):
    def __init__(self):
        super(EmbeddingNet, self).__init__()
        self.convnet = nn.Sequential(nn.Conv2d(1, 16, 3), nn.PReLU(), nn.MaxPool2d(2, stride=2),
                                     nn.Conv2d(16, 32, 3), nn.PReLU(), nn.MaxPool2d(2, stride=2))
        self.fc = nn.Sequential(nn.Linear(32 * 2 * 2, 64), nn.PReLU(), nn.Linear(64, 2))

    def forward(self, x):
        output = self.convnet(x)
        output = output.view(output.size()[0], -1)
        return self.fc(output)

    def get_embedding(self, x):
        return self.forward(x)


# ---------------------------------------------------------------- pair mining + loss
def pdist(vectors):
    return -2 * vectors.mm(torch.t(vectors)) + vectors.pow(2).sum(dim=1).view(1, -1) + vectors.pow(2).sum(dim=1).view(-1, 1)


class HardNegativePairSelector:
    """All positive pairs, and as many of the hardest negative pairs."""

    def __init__(self, cpu=True):
        self.cpu = cpu

    def get_pairs(self, embeddings, labels):
        if self.cpu:
            embeddings = embeddings.cpu()
        distance_matrix = pdist(embeddings)
        labels = labels.cpu().data.numpy()
        all_pairs = np.array(list(itertools.combinations(range(len(labels)), 2)))
        all_pairs = torch.LongTensor(all_pairs)
        positive_pairs = all_pairs[(labels[all_pairs[:, 0]] == labels[all_pairs[:, 1]]).nonzero()]
        negative_pairs = all_pairs[(labels[all_pairs[:, 0]] != labels[all_pairs[:, 1]]).nonzero()]

        negative_distances = distance_matrix[negative_pairs[:, 0], negative_pairs[:, 1]]
        negative_distances = negative_distances.cpu().data.numpy()
        top_negatives = np.argpartition(negative_distances, len(positive_pairs))[:len(positive_pairs)]
        top_negative_pairs = negative_pairs[torch.LongTensor(top_negatives)]
        return positive_pairs, top_negative_pairs


class OnlineContrastiveLoss(nn.Module):
    def __init__(self, margin, pair_selector):
        super(OnlineContrastiveLoss, self).__init__()
        self.margin = margin
        self.pair_selector = pair_selector

    def forward(self, embeddings, target):
        positive_pairs, negative_pairs = self.pair_selector.get_pairs(embeddings, target)
        if embeddings.is_cuda:
            positive_pairs = positive_pairs.cuda()
            negative_pairs = negative_pairs.cuda()
        positive_loss = (embeddings[positive_pairs[:, 0]] - embeddings[positive_pairs[:, 1]]).pow(2).sum(1)
        negative_loss = F.relu(
            self.margin - (embeddings[negative_pairs[:, 0]] - embeddings[negative_pairs[:, 1]]).pow(2).sum(1).sqrt()).pow(2)
        loss = torch.cat([positive_loss, negative_loss], dim=0)
        return loss.mean()


class AverageNonzeroPairsMetric:
    def __init__(self):
        self.values = []

    def __call__(self, outputs, target, loss):
        self.values.append(loss.item() > 0)
        return self.value()

    def reset(self):
        self.values = []

    def value(self):
        return float(np.mean(self.values)) if self.values else 0.0

    def name(self):
        return "Nonzero batches"


# ---------------------------------------------------------------- trainer
def fit(train_loader, val_loader, model, loss_fn, optimizer, scheduler, n_epochs, cuda, log_interval, metrics=[],
        start_epoch=0):
    for epoch in range(start_epoch, n_epochs):
        train_loss, metrics = train_epoch(train_loader, model, loss_fn, optimizer, cuda, log_interval, metrics)
        scheduler.step()

        message = 'Epoch: {}/{}. Train set: Average loss: {:.4f}'.format(epoch + 1, n_epochs, train_loss)
        for metric in metrics:
            message += '\t{}: {}'.format(metric.name(), metric.value())

        val_loss, metrics = test_epoch(val_loader, model, loss_fn, cuda, metrics)
        val_loss /= len(val_loader)

        message += '\nEpoch: {}/{}. Validation set: Average loss: {:.4f}'.format(epoch + 1, n_epochs, val_loss)
        for metric in metrics:
            message += '\t{}: {}'.format(metric.name(), metric.value())
        logger.info(message)


def train_epoch(train_loader, model, loss_fn, optimizer, cuda, log_interval, metrics):
    for metric in metrics:
        metric.reset()

    model.train()
    losses = []
    total_loss = 0

    for batch_idx, (data, target) in enumerate(train_loader):
        target = target if len(target) > 0 else None
        if not type(data) in (tuple, list):
            data = (data,)
        if cuda:
            data = tuple(d.cuda() for d in data)
            if target is not None:
                target = target.cuda()

        optimizer.zero_grad()
        outputs = model(*data)

        if type(outputs) not in (tuple, list):
            outputs = (outputs,)

        loss_inputs = outputs
        if target is not None:
            target = (target,)
            loss_inputs += target

        loss_outputs = loss_fn(*loss_inputs)
        loss = loss_outputs[0] if type(loss_outputs) in (tuple, list) else loss_outputs
        losses.append(loss.item())
        total_loss += loss.item()
        loss.backward()
        optimizer.step()

        for metric in metrics:
            metric(outputs, target, loss_outputs)

        if batch_idx % log_interval == 0:
            message = 'Train: [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                batch_idx * len(data[0]), len(train_loader.batch_sampler.labels),
                100. * batch_idx / len(train_loader), np.mean(losses))
            for metric in metrics:
                message += '\t{}: {}'.format(metric.name(), metric.value())
            print(message)
            losses = []

    total_loss /= (batch_idx + 1)
    return total_loss, metrics


def test_epoch(val_loader, model, loss_fn, cuda, metrics):
    with torch.no_grad():
        for metric in metrics:
            metric.reset()
        model.eval()
        val_loss = 0
        for batch_idx, (data, target) in enumerate(val_loader):
            target = target if len(target) > 0 else None
            if not type(data) in (tuple, list):
                data = (data,)
            if cuda:
                data = tuple(d.cuda() for d in data)
                if target is not None:
                    target = target.cuda()

            outputs = model(*data)

            if type(outputs) not in (tuple, list):
                outputs = (outputs,)
            loss_inputs = outputs
            if target is not None:
                target = (target,)
                loss_inputs += target

            loss_outputs = loss_fn(*loss_inputs)
            loss = loss_outputs[0] if type(loss_outputs) in (tuple, list) else loss_outputs
            val_loss += loss.item()

            for metric in metrics:
                metric(outputs, target, loss_outputs)

    return val_loss, metrics


def extract_embeddings(dataloader, model):
    with torch.no_grad():
        model.eval()
        embeddings = np.zeros((len(dataloader.dataset), 2))
        labels = np.zeros(len(dataloader.dataset))
        k = 0
        for images, target in dataloader:
            if cuda:
                images = images.cuda()
            embeddings[k:k + len(images)] = model.get_embedding(images).data.cpu().numpy()
            labels[k:k + len(images)] = target.numpy()
            k += len(images)
    return embeddings, labels


# ---------------------------------------------------------------- main
templates = (torch.rand(10, 16, 16) > 0.6).float()
train_dataset = BlobDigits(30, templates, train=True)
test_dataset = BlobDigits(10, templates, train=False)

train_batch_sampler = BalancedBatchSampler(train_dataset.targets, n_classes=5, n_samples=6)
test_batch_sampler = BalancedBatchSampler(test_dataset.targets, n_classes=5, n_samples=6)

kwargs = {'num_workers': 1, 'pin_memory': True} if cuda else {}
online_train_loader = DataLoader(train_dataset, batch_sampler=train_batch_sampler, **kwargs)
online_test_loader = DataLoader(test_dataset, batch_sampler=test_batch_sampler, **kwargs)

margin = 1.
model = EmbeddingNet()
if cuda:
    model.cuda()
loss_fn = OnlineContrastiveLoss(margin, HardNegativePairSelector())
lr = 1e-3
optimizer = torch.optim.Adam(model.parameters(), lr=lr)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 4, gamma=0.1, last_epoch=-1)
n_epochs = 6
log_interval = 3

fit(online_train_loader, online_test_loader, model, loss_fn, optimizer, scheduler, n_epochs, cuda, log_interval,
    metrics=[AverageNonzeroPairsMetric()])

eval_train_loader = DataLoader(train_dataset, batch_size=64, shuffle=False)
eval_test_loader = DataLoader(test_dataset, batch_size=64, shuffle=False)
train_emb, train_lab = extract_embeddings(eval_train_loader, model)
test_emb, test_lab = extract_embeddings(eval_test_loader, model)
d = ((test_emb[:, None, :] - train_emb[None, :, :]) ** 2).sum(-1)
nn_acc = (train_lab[d.argmin(1)] == test_lab).mean()
print("1-NN accuracy on test embeddings: {:.4f}".format(nn_acc))
np.savez("embeddings.npz", train=train_emb, test=test_emb, train_labels=train_lab, test_labels=test_lab)
torch.save(model.state_dict(), "siamese_embedding.pth")
