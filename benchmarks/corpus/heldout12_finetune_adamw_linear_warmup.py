# corpus: HF-style fine-tuning written without transformers: config dataclass, no-decay parameter groups for bias/LayerNorm, AdamW, linear warmup-then-decay LambdaLR per batch, bf16 autocast on CPU, clipped norm logged, train(cfg) returns a metrics dict
import math
import random
import time
from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


@dataclass
class TrainConfig:
    vocab_size: int = 100
    max_len: int = 16
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    num_labels: int = 3
    batch_size: int = 16
    learning_rate: float = 5e-4
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    num_train_epochs: int = 3
    max_grad_norm: float = 1.0
    bf16: bool = True
    logging_steps: int = 5
    seed: int = 42
    output_dir: str = "finetune_out.pt"


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class ToyClassificationDataset(Dataset):
    def __init__(self, n, cfg, seed):
        g = torch.Generator().manual_seed(seed)
        self.input_ids = torch.randint(1, cfg.vocab_size, (n, cfg.max_len), generator=g)
        lengths = torch.randint(cfg.max_len // 2, cfg.max_len + 1, (n,), generator=g)
        self.attention_mask = (torch.arange(cfg.max_len)[None, :] < lengths[:, None]).long()
        self.input_ids = self.input_ids * self.attention_mask
        self.labels = (self.input_ids[:, :4].sum(1) % cfg.num_labels)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return {"input_ids": self.input_ids[idx], "attention_mask": self.attention_mask[idx], "labels": self.labels[idx]}


class TinyEncoderForSequenceClassification(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embeddings = nn.Embedding(cfg.vocab_size, cfg.d_model, padding_idx=0)
        self.position = nn.Parameter(torch.zeros(1, cfg.max_len, cfg.d_model))
        layer = nn.TransformerEncoderLayer(cfg.d_model, cfg.n_heads, 64, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, cfg.n_layers)
        self.LayerNorm = nn.LayerNorm(cfg.d_model)
        self.classifier = nn.Linear(cfg.d_model, cfg.num_labels)
        self.loss_fct = nn.CrossEntropyLoss()

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.embeddings(input_ids) + self.position
        h = self.encoder(h, src_key_padding_mask=attention_mask == 0)
        pooled = self.LayerNorm(h[:, 0])
        logits = self.classifier(pooled)
        loss = self.loss_fct(logits, labels) if labels is not None else None
        return loss, logits


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


@torch.no_grad()
def evaluate(model, dataloader, device):
    model.eval()
    total_loss, correct, n = 0.0, 0, 0
    for batch in dataloader:
        batch = {k: v.to(device) for k, v in batch.items()}
        loss, logits = model(**batch)
        total_loss += loss.item() * batch["labels"].size(0)
        correct += (logits.argmax(-1) == batch["labels"]).sum().item()
        n += batch["labels"].size(0)
    model.train()
    return {"eval_loss": total_loss / n, "eval_accuracy": correct / n}


def train(cfg: TrainConfig):
    set_seed(cfg.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_dataset = ToyClassificationDataset(128, cfg, seed=1)
    eval_dataset = ToyClassificationDataset(64, cfg, seed=2)
    train_dataloader = DataLoader(train_dataset, batch_size=cfg.batch_size, shuffle=True)
    eval_dataloader = DataLoader(eval_dataset, batch_size=cfg.batch_size)

    model = TinyEncoderForSequenceClassification(cfg).to(device)
    no_decay = ["bias", "LayerNorm.weight", "norm1.weight", "norm2.weight"]
    optimizer_grouped_parameters = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": cfg.weight_decay},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(optimizer_grouped_parameters, lr=cfg.learning_rate)
    num_update_steps_per_epoch = len(train_dataloader)
    max_steps = cfg.num_train_epochs * num_update_steps_per_epoch
    scheduler = get_linear_schedule_with_warmup(optimizer, math.ceil(max_steps * cfg.warmup_ratio), max_steps)

    print("***** Running training *****")
    print(f"  Num examples = {len(train_dataset)}")
    print(f"  Num Epochs = {cfg.num_train_epochs}")
    print(f"  Total optimization steps = {max_steps}")

    global_step = 0
    tr_loss, logging_loss = 0.0, 0.0
    start = time.time()
    model.zero_grad()
    model.train()
    for epoch in range(cfg.num_train_epochs):
        for step, batch in enumerate(train_dataloader):
            batch = {k: v.to(device) for k, v in batch.items()}
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=cfg.bf16):
                loss, _ = model(**batch)
            loss.backward()
            tr_loss += loss.item()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            optimizer.step()
            scheduler.step()
            model.zero_grad()
            global_step += 1
            if global_step % cfg.logging_steps == 0:
                logs = {
                    "loss": round((tr_loss - logging_loss) / cfg.logging_steps, 4),
                    "grad_norm": round(grad_norm.item(), 4),
                    "learning_rate": scheduler.get_last_lr()[0],
                    "epoch": round(epoch + (step + 1) / num_update_steps_per_epoch, 2),
                }
                logging_loss = tr_loss
                print(logs)
        metrics = evaluate(model, eval_dataloader, device)
        print(f"epoch {epoch}: {metrics}")

    torch.save({"model": model.state_dict(), "config": asdict(cfg)}, cfg.output_dir)
    metrics["train_loss"] = tr_loss / global_step
    metrics["train_runtime"] = round(time.time() - start, 2)
    metrics["global_step"] = global_step
    return metrics


def main():
    cfg = TrainConfig()
    metrics = train(cfg)
    print({k: v for k, v in metrics.items() if k != "train_runtime"})


if __name__ == "__main__":
    main()
