# corpus: minGPT Trainer class: CfgNode-like config, RandomSampler(replacement=True) loader, run() with while True over iter() refilled on StopIteration, callbacks on_batch_end, iter_num / max_iters break
import time
from collections import defaultdict

import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.dataloader import RandomSampler


class CfgNode:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def merge_from_dict(self, d):
        self.__dict__.update(d)


class SortDataset(Dataset):
    """ problem: sort a sequence of digits """

    def __init__(self, split, length=6, num_digits=3):
        assert split in {'train', 'test'}
        self.split = split
        self.length = length
        self.num_digits = num_digits
        g = torch.Generator().manual_seed(0 if split == 'train' else 1)
        self.inps = torch.randint(self.num_digits, size=(512, self.length), generator=g)

    def __len__(self):
        return len(self.inps)

    def get_vocab_size(self):
        return self.num_digits

    def get_block_size(self):
        return self.length * 2 - 1

    def __getitem__(self, idx):
        inp = self.inps[idx]
        sol = torch.sort(inp)[0]
        cat = torch.cat((inp, sol), dim=0)
        x = cat[:-1].clone()
        y = cat[1:].clone()
        y[:self.length - 1] = -1  # only predict the output locations
        return x, y


class TinyGPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_embd=32):
        super().__init__()
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Parameter(torch.zeros(1, block_size, n_embd))
        layer = nn.TransformerEncoderLayer(n_embd, 2, 4 * n_embd, dropout=0.1, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, num_layers=2)
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab_size, bias=False)

    def configure_optimizers(self, train_config):
        return torch.optim.AdamW(self.parameters(), lr=train_config.learning_rate, betas=train_config.betas,
                                 weight_decay=train_config.weight_decay)

    def forward(self, idx, targets=None):
        t = idx.size(1)
        mask = nn.Transformer.generate_square_subsequent_mask(t)
        x = self.tok_emb(idx) + self.pos_emb[:, :t, :]
        x = self.blocks(x, mask=mask, is_causal=True)
        logits = self.head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss


class Trainer:

    @staticmethod
    def get_default_config():
        C = CfgNode()
        C.device = 'auto'
        C.num_workers = 0
        C.max_iters = None
        C.batch_size = 64
        C.learning_rate = 3e-4
        C.betas = (0.9, 0.95)
        C.weight_decay = 0.1
        C.grad_norm_clip = 1.0
        return C

    def __init__(self, config, model, train_dataset):
        self.config = config
        self.model = model
        self.optimizer = None
        self.train_dataset = train_dataset
        self.callbacks = defaultdict(list)

        if config.device == 'auto':
            self.device = 'cuda' if torch.cuda.is_available() else 'cpu'
        else:
            self.device = config.device
        self.model = self.model.to(self.device)
        print("running on device", self.device)

        self.iter_num = 0
        self.iter_time = 0.0
        self.iter_dt = 0.0

    def add_callback(self, onevent: str, callback):
        self.callbacks[onevent].append(callback)

    def set_callback(self, onevent: str, callback):
        self.callbacks[onevent] = [callback]

    def trigger_callbacks(self, onevent: str):
        for callback in self.callbacks.get(onevent, []):
            callback(self)

    def run(self):
        model, config = self.model, self.config
        self.optimizer = model.configure_optimizers(config)

        train_loader = DataLoader(
            self.train_dataset,
            sampler=RandomSampler(self.train_dataset, replacement=True, num_samples=int(1e10)),
            shuffle=False,
            pin_memory=True,
            batch_size=config.batch_size,
            num_workers=config.num_workers,
        )

        model.train()
        self.iter_num = 0
        self.iter_time = time.time()
        data_iter = iter(train_loader)
        while True:
            try:
                batch = next(data_iter)
            except StopIteration:
                data_iter = iter(train_loader)
                batch = next(data_iter)
            batch = [t.to(self.device) for t in batch]
            x, y = batch

            logits, self.loss = model(x, y)

            model.zero_grad(set_to_none=True)
            self.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_norm_clip)
            self.optimizer.step()

            self.trigger_callbacks('on_batch_end')
            self.iter_num += 1
            tnow = time.time()
            self.iter_dt = tnow - self.iter_time
            self.iter_time = tnow

            if config.max_iters is not None and self.iter_num >= config.max_iters:
                break


torch.manual_seed(3407)
train_dataset = SortDataset('train')
test_dataset = SortDataset('test')
model = TinyGPT(train_dataset.get_vocab_size(), train_dataset.get_block_size())

train_config = Trainer.get_default_config()
train_config.learning_rate = 5e-4
train_config.max_iters = 60
train_config.num_workers = 0
train_config.batch_size = 32
trainer = Trainer(train_config, model, train_dataset)


def eval_split(trainer, split, max_batches=4):
    dataset = {'train': train_dataset, 'test': test_dataset}[split]
    n = train_dataset.length
    results = []
    loader = DataLoader(dataset, batch_size=100, num_workers=0, drop_last=False)
    for b, (x, y) in enumerate(loader):
        x = x.to(trainer.device)
        y = y.to(trainer.device)
        logits, _ = model(x[:, :n])
        sol = y[:, -n:]
        pred = logits[:, -1, :].argmax(-1)  # just first output digit, greedy
        correct = (sol[:, 0] == pred).float()
        results.extend(correct.tolist())
        if max_batches is not None and b + 1 >= max_batches:
            break
    rt = torch.tensor(results, dtype=torch.float)
    print("%s final score: %d/%d = %.2f%% correct" % (split, rt.sum(), len(results), 100 * rt.mean()))
    return rt.sum()


def batch_end_callback(trainer):
    if trainer.iter_num % 10 == 0:
        print(f"iter_dt {trainer.iter_dt * 1000:.2f}ms; iter {trainer.iter_num}: train loss {trainer.loss.item():.5f}")
    if trainer.iter_num % 30 == 0 and trainer.iter_num > 0:
        model.eval()
        with torch.no_grad():
            eval_split(trainer, 'test', max_batches=2)
        model.train()


trainer.set_callback('on_batch_end', batch_end_callback)
trainer.run()

model.eval()
with torch.no_grad():
    train_score = eval_split(trainer, 'train', max_batches=5)
    test_score = eval_split(trainer, 'test', max_batches=5)
torch.save(model.state_dict(), 'mingpt_sort.pt')
