# corpus: torchaudio "speech command classification" tutorial style on synthetic tone waveforms: label_to_index/index_to_label, pad_sequence collate_fn, downsample transform applied to the batch inside train(), M5 1D-conv net with log_softmax + F.nll_loss, a hand-written SpecAugment-like time/"frequency" mask on the batch, train(model, epoch, log_interval) / test(model, epoch) reading globals, pbar.update(pbar_update) inside the batch loop, StepLR, losses list
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from tqdm import tqdm

torch.manual_seed(0)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device)

labels = ["yes", "no", "up", "down", "left"]
sample_rate = 4000
new_sample_rate = 2000


class SyntheticSpeech(torch.utils.data.Dataset):
    """each 'word' is a chirp around its own base frequency, variable length"""

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.items = []
        for i in range(n):
            label = labels[int(torch.randint(0, len(labels), (1,), generator=g))]
            base = 200.0 + 150.0 * labels.index(label)
            length = int(torch.randint(3000, 4000, (1,), generator=g))
            t = torch.arange(length) / sample_rate
            wave = torch.sin(2 * math.pi * (base + 80 * t) * t)
            wave = wave + 0.3 * torch.randn(length, generator=g)
            self.items.append((wave.unsqueeze(0), sample_rate, label, "speaker%d" % (i % 7), i))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, n):
        return self.items[n]


train_set = SyntheticSpeech(160, seed=1)
test_set = SyntheticSpeech(60, seed=2)

waveform, sample_rate, label, speaker_id, utterance_number = train_set[0]
print("Shape of waveform: {}".format(waveform.size()))
print("Sample rate of waveform: {}".format(sample_rate))


def transform(x):
    # cheap stand-in for torchaudio.transforms.Resample(orig_freq=4000, new_freq=2000)
    return F.avg_pool1d(x, kernel_size=2, stride=2)


def label_to_index(word):
    # Return the position of the word in labels
    return torch.tensor(labels.index(word))


def index_to_label(index):
    # Return the word corresponding to the index in labels
    # This is the inverse of label_to_index
    return labels[index]


def pad_sequence(batch):
    # Make all tensor in a batch the same length by padding with zeros
    batch = [item.t() for item in batch]
    batch = torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=0.)
    return batch.permute(0, 2, 1)


def collate_fn(batch):

    # A data tuple has the form:
    # waveform, sample_rate, label, speaker_id, utterance_number

    tensors, targets = [], []

    # Gather in lists, and encode labels as indices
    for waveform, _, label, *_ in batch:
        tensors += [waveform]
        targets += [label_to_index(label)]

    # Group the list of tensors into a batched tensor
    tensors = pad_sequence(tensors)
    targets = torch.stack(targets)

    return tensors, targets


batch_size = 16

if device == "cuda":
    num_workers = 1
    pin_memory = True
else:
    num_workers = 0
    pin_memory = False

train_loader = torch.utils.data.DataLoader(
    train_set,
    batch_size=batch_size,
    shuffle=True,
    collate_fn=collate_fn,
    num_workers=num_workers,
    pin_memory=pin_memory,
)
test_loader = torch.utils.data.DataLoader(
    test_set,
    batch_size=batch_size,
    shuffle=False,
    drop_last=False,
    collate_fn=collate_fn,
    num_workers=num_workers,
    pin_memory=pin_memory,
)


class M5(nn.Module):
    def __init__(self, n_input=1, n_output=35, stride=16, n_channel=32):
        super().__init__()
        self.conv1 = nn.Conv1d(n_input, n_channel, kernel_size=80, stride=stride)
        self.bn1 = nn.BatchNorm1d(n_channel)
        self.pool1 = nn.MaxPool1d(4)
        self.conv2 = nn.Conv1d(n_channel, n_channel, kernel_size=3)
        self.bn2 = nn.BatchNorm1d(n_channel)
        self.pool2 = nn.MaxPool1d(4)
        self.conv3 = nn.Conv1d(n_channel, 2 * n_channel, kernel_size=3)
        self.bn3 = nn.BatchNorm1d(2 * n_channel)
        self.pool3 = nn.MaxPool1d(2)
        self.fc1 = nn.Linear(2 * n_channel, n_output)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(self.bn1(x))
        x = self.pool1(x)
        x = self.conv2(x)
        x = F.relu(self.bn2(x))
        x = self.pool2(x)
        x = self.conv3(x)
        x = F.relu(self.bn3(x))
        x = self.pool3(x)
        x = F.avg_pool1d(x, x.shape[-1])
        x = x.permute(0, 2, 1)
        x = self.fc1(x)
        return F.log_softmax(x, dim=2)


model = M5(n_input=1, n_output=len(labels), stride=8, n_channel=16)
model.to(device)
print(model)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


n = count_parameters(model)
print("Number of parameters: %s" % n)

optimizer = optim.Adam(model.parameters(), lr=0.01, weight_decay=0.0001)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.1)  # reduce the learning after 2 epochs by a factor of 10


def spec_augment(x, time_mask=200, n_masks=2, noise_std=0.05):
    # SpecAugment-ish on raw audio: zero out random spans of the waveform
    B, C, T = x.shape
    for _ in range(n_masks):
        width = torch.randint(0, time_mask, (B,))
        start = (torch.rand(B) * (T - time_mask)).long()
        idx = torch.arange(T).unsqueeze(0)
        mask = (idx >= start.unsqueeze(1)) & (idx < (start + width).unsqueeze(1))
        x = x.masked_fill(mask.unsqueeze(1).to(x.device), 0.0)
    return x + noise_std * torch.randn_like(x)


def train(model, epoch, log_interval):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):

        data = data.to(device)
        target = target.to(device)

        # apply transform and model on whole batch directly on device
        data = transform(data)
        data = spec_augment(data)
        output = model(data)

        # negative log-likelihood for a tensor of size (batch x 1 x n_output)
        loss = F.nll_loss(output.squeeze(), target)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        # print training stats
        if batch_idx % log_interval == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} ({100. * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item():.6f}")

        # update progress bar
        pbar.update(pbar_update)
        # record loss
        losses.append(loss.item())


def number_of_correct(pred, target):
    # count number of correct predictions
    return pred.squeeze().eq(target).sum().item()


def get_likely_index(tensor):
    # find most likely label index for each element in the batch
    return tensor.argmax(dim=-1)


def test(model, epoch):
    model.eval()
    correct = 0
    for data, target in test_loader:

        data = data.to(device)
        target = target.to(device)

        # apply transform and model on whole batch directly on device
        data = transform(data)
        output = model(data)

        pred = get_likely_index(output)
        correct += number_of_correct(pred, target)

        # update progress bar
        pbar.update(pbar_update)

    print(f"\nTest Epoch: {epoch}\tAccuracy: {correct}/{len(test_loader.dataset)} ({100. * correct / len(test_loader.dataset):.0f}%)\n")


log_interval = 5
n_epoch = 4

pbar_update = 1 / (len(train_loader) + len(test_loader))
losses = []

# The transform needs to live on the same device as the model and the data.
with tqdm(total=n_epoch) as pbar:
    for epoch in range(1, n_epoch + 1):
        train(model, epoch, log_interval)
        test(model, epoch)
        scheduler.step()

torch.save(torch.tensor(losses), "losses.pt")


def predict(tensor):
    # Use the model to predict the label of the waveform
    tensor = tensor.to(device)
    tensor = transform(tensor)
    tensor = model(tensor.unsqueeze(0))
    tensor = get_likely_index(tensor)
    tensor = index_to_label(tensor.squeeze())
    return tensor


waveform, sample_rate, utterance, *_ = train_set[-1]
print(f"Expected: {utterance}. Predicted: {predict(waveform)}.")
