# corpus: Annotated-Transformer style: run_epoch(data_iter, model, loss_compute, optimizer, scheduler, mode, accum_iter, train_state) with SimpleLossCompute returning (loss.data * norm, loss_node), TrainState dataclass, rate() LambdaLR stepped per batch, DummyOptimizer/DummyScheduler for eval, data_gen copy task
import math
import time
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.optim.lr_scheduler import LambdaLR

torch.manual_seed(0)


class Batch:
    """Object for holding a batch of data with mask during training."""

    def __init__(self, src, tgt=None, pad=0):
        self.src = src
        self.src_mask = (src == pad)
        if tgt is not None:
            self.tgt = tgt[:, :-1]
            self.tgt_y = tgt[:, 1:]
            self.ntokens = (self.tgt_y != pad).data.sum()


def data_gen(V, batch_size, nbatches):
    "Generate random data for a src-tgt copy task."
    for i in range(nbatches):
        data = torch.randint(1, V, size=(batch_size, 10))
        data[:, 0] = 1
        src = data.requires_grad_(False).clone().detach()
        tgt = data.requires_grad_(False).clone().detach()
        yield Batch(src, tgt, 0)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout, max_len=64):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        x = x + self.pe[:, : x.size(1)].requires_grad_(False)
        return self.dropout(x)


class CopyModel(nn.Module):
    """Tiny stand-in for EncoderDecoder: an encoder over src, read out at the tgt positions."""

    def __init__(self, vocab, d_model=32, N=2, h=4, d_ff=64, dropout=0.1):
        super().__init__()
        self.src_embed = nn.Embedding(vocab, d_model)
        self.pos = PositionalEncoding(d_model, dropout)
        layer = nn.TransformerEncoderLayer(d_model, h, d_ff, dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, N)
        self.d_model = d_model

    def forward(self, src, tgt, src_mask):
        x = self.pos(self.src_embed(src) * math.sqrt(self.d_model))
        memory = self.encoder(x, src_key_padding_mask=src_mask)
        return memory[:, : tgt.size(1)]


class Generator(nn.Module):
    def __init__(self, d_model, vocab):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab)

    def forward(self, x):
        return torch.log_softmax(self.proj(x), dim=-1)


class Model(nn.Module):
    def __init__(self, V):
        super().__init__()
        self.core = CopyModel(V)
        self.generator = Generator(32, V)

    def forward(self, src, tgt, src_mask):
        return self.core(src, tgt, src_mask)


@dataclass
class TrainState:
    """Track number of steps, examples, and tokens processed"""

    step: int = 0  # Steps in the current epoch
    accum_step: int = 0  # Number of gradient accumulation steps
    samples: int = 0  # total # of examples used
    tokens: int = 0  # total # of tokens processed


class SimpleLossCompute:
    "A simple loss compute and train function."

    def __init__(self, generator, criterion):
        self.generator = generator
        self.criterion = criterion

    def __call__(self, x, y, norm):
        x = self.generator(x)
        sloss = (
            self.criterion(
                x.contiguous().view(-1, x.size(-1)), y.contiguous().view(-1)
            )
            / norm
        )
        return sloss.data * norm, sloss


class DummyOptimizer(torch.optim.Optimizer):
    def __init__(self):
        self.param_groups = [{"lr": 0}]
        None

    def step(self):
        None

    def zero_grad(self, set_to_none=False):
        None


class DummyScheduler:
    def step(self):
        None


def run_epoch(
    data_iter,
    model,
    loss_compute,
    optimizer,
    scheduler,
    mode="train",
    accum_iter=1,
    train_state=TrainState(),
):
    """Train a single epoch"""
    start = time.time()
    total_tokens = 0
    total_loss = 0
    tokens = 0
    n_accum = 0
    for i, batch in enumerate(data_iter):
        out = model.forward(batch.src, batch.tgt, batch.src_mask)
        loss, loss_node = loss_compute(out, batch.tgt_y, batch.ntokens)
        if mode == "train" or mode == "train+log":
            loss_node.backward()
            train_state.step += 1
            train_state.samples += batch.src.shape[0]
            train_state.tokens += batch.ntokens
            if i % accum_iter == 0:
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                n_accum += 1
                train_state.accum_step += 1
            scheduler.step()

        total_loss += loss
        total_tokens += batch.ntokens
        tokens += batch.ntokens
        if i % 10 == 1 and (mode == "train" or mode == "train+log"):
            lr = optimizer.param_groups[0]["lr"]
            elapsed = time.time() - start
            print(
                (
                    "Epoch Step: %6d | Accumulation Step: %3d | Loss: %6.2f "
                    + "| Tokens / Sec: %7.1f | Learning Rate: %6.1e"
                )
                % (i, n_accum, loss / batch.ntokens, tokens / max(elapsed, 1e-9), lr)
            )
            start = time.time()
            tokens = 0
        del loss
        del loss_node
    return total_loss / total_tokens, train_state


def rate(step, model_size, factor, warmup):
    """
    we have to default the step to 1 for LambdaLR function
    to avoid zero raising to negative power.
    """
    if step == 0:
        step = 1
    return factor * (
        model_size ** (-0.5) * min(step ** (-0.5), step * warmup ** (-1.5))
    )


def example_simple_model():
    V = 11
    criterion = nn.NLLLoss(reduction="sum")
    model = Model(V)

    optimizer = torch.optim.Adam(
        model.parameters(), lr=0.5, betas=(0.9, 0.98), eps=1e-9
    )
    lr_scheduler = LambdaLR(
        optimizer=optimizer,
        lr_lambda=lambda step: rate(
            step, model_size=32, factor=1.0, warmup=40
        ),
    )

    batch_size = 16
    for epoch in range(4):
        model.train()
        run_epoch(
            data_gen(V, batch_size, 12),
            model,
            SimpleLossCompute(model.generator, criterion),
            optimizer,
            lr_scheduler,
            mode="train",
        )
        model.eval()
        with torch.no_grad():
            val_loss = run_epoch(
                data_gen(V, batch_size, 3),
                model,
                SimpleLossCompute(model.generator, criterion),
                DummyOptimizer(),
                DummyScheduler(),
                mode="eval",
            )[0]
        print("epoch %d | eval loss per token %.4f" % (epoch, float(val_loss)))

    torch.save(model.state_dict(), "copy_model.pt")


example_simple_model()
