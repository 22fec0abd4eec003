# corpus: meant for `python -m torch.distributed.launch --nproc_per_node=2 script.py` (plain `python script.py` runs one process): launch-era `--local_rank` argparse argument (default -1), old transformers-examples style: RandomSampler if local_rank == -1 else DistributedSampler, `if args.local_rank in [-1, 0]:` logging, barrier, global_step / tr_loss / logging_steps, model_to_save = model.module if hasattr(model, "module")
import argparse
import logging
import os
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, RandomSampler, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm, trange

logger = logging.getLogger(__name__)


def set_seed(args):
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.n_gpu > 0:
        torch.cuda.manual_seed_all(args.seed)


class TextClassifier(nn.Module):
    def __init__(self, vocab_size=100, hidden=48, num_labels=3):
        super().__init__()
        self.embeddings = nn.EmbeddingBag(vocab_size, hidden)
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, labels=None):
        logits = self.classifier(self.dropout(self.embeddings(input_ids)))
        outputs = (logits,)
        if labels is not None:
            loss = nn.CrossEntropyLoss()(logits, labels)
            outputs = (loss,) + outputs
        return outputs


def load_examples():
    g = torch.Generator().manual_seed(2020)
    input_ids = torch.randint(0, 100, (480, 16), generator=g)
    labels = (input_ids[:, 0] % 3).long()
    return TensorDataset(input_ids, labels)


def train(args, train_dataset, model):
    args.train_batch_size = args.per_gpu_train_batch_size * max(1, args.n_gpu)
    train_sampler = RandomSampler(train_dataset) if args.local_rank == -1 else DistributedSampler(train_dataset)
    train_dataloader = DataLoader(train_dataset, sampler=train_sampler, batch_size=args.train_batch_size)

    t_total = len(train_dataloader) * args.num_train_epochs
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, eps=args.adam_epsilon)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: max(0.0, 1.0 - step / t_total))

    if args.local_rank != -1:
        model = torch.nn.parallel.DistributedDataParallel(model)

    logger.info("***** Running training *****")
    logger.info("  Num examples = %d", len(train_dataset))
    logger.info(
        "  Total train batch size (w. parallel & distributed) = %d",
        args.train_batch_size * (torch.distributed.get_world_size() if args.local_rank != -1 else 1),
    )

    global_step = 0
    tr_loss, logging_loss = 0.0, 0.0
    model.zero_grad()
    train_iterator = trange(int(args.num_train_epochs), desc="Epoch", disable=args.local_rank not in [-1, 0])
    set_seed(args)
    for epoch in train_iterator:
        if args.local_rank != -1:
            train_sampler.set_epoch(epoch)
        epoch_iterator = tqdm(train_dataloader, desc="Iteration", disable=args.local_rank not in [-1, 0])
        for step, batch in enumerate(epoch_iterator):
            model.train()
            batch = tuple(t.to(args.device) for t in batch)
            outputs = model(batch[0], labels=batch[1])
            loss = outputs[0]
            loss.backward()
            tr_loss += loss.item()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
            scheduler.step()
            model.zero_grad()
            global_step += 1

            if args.local_rank in [-1, 0] and args.logging_steps > 0 and global_step % args.logging_steps == 0:
                logger.info(
                    "step %d lr %.6f loss %.4f",
                    global_step,
                    scheduler.get_last_lr()[0],
                    (tr_loss - logging_loss) / args.logging_steps,
                )
                logging_loss = tr_loss

    return global_step, tr_loss / global_step, model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output_dir", default="launch_output", type=str)
    parser.add_argument("--per_gpu_train_batch_size", default=16, type=int)
    parser.add_argument("--learning_rate", default=5e-3, type=float)
    parser.add_argument("--adam_epsilon", default=1e-8, type=float)
    parser.add_argument("--max_grad_norm", default=1.0, type=float)
    parser.add_argument("--num_train_epochs", default=3.0, type=float)
    parser.add_argument("--logging_steps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--no_cuda", action="store_true")
    parser.add_argument("--local_rank", "--local-rank", type=int, default=-1, help="For distributed training: local_rank")
    args = parser.parse_args()

    # Setup CUDA, GPU & distributed training
    if args.local_rank == -1 or args.no_cuda or not torch.cuda.is_available():
        device = torch.device("cuda" if torch.cuda.is_available() and not args.no_cuda else "cpu")
        args.n_gpu = 0 if args.no_cuda else torch.cuda.device_count()
        if args.local_rank != -1:
            torch.distributed.init_process_group(backend="gloo")
    else:  # Initializes the distributed backend which will take care of sychronizing nodes/GPUs
        torch.cuda.set_device(args.local_rank)
        device = torch.device("cuda", args.local_rank)
        torch.distributed.init_process_group(backend="nccl")
        args.n_gpu = 1
    args.device = device

    logging.basicConfig(
        format="%(asctime)s - %(levelname)s - %(name)s -   %(message)s",
        datefmt="%m/%d/%Y %H:%M:%S",
        level=logging.INFO if args.local_rank in [-1, 0] else logging.WARN,
    )
    logger.warning(
        "Process rank: %s, device: %s, n_gpu: %s, distributed training: %s",
        args.local_rank,
        device,
        args.n_gpu,
        bool(args.local_rank != -1),
    )

    set_seed(args)

    if args.local_rank not in [-1, 0]:
        torch.distributed.barrier()  # Make sure only the first process in distributed training builds the model
    model = TextClassifier()
    if args.local_rank == 0:
        torch.distributed.barrier()
    model.to(args.device)

    train_dataset = load_examples()
    global_step, tr_loss, model = train(args, train_dataset, model)
    logger.info(" global_step = %s, average loss = %s", global_step, tr_loss)

    if args.local_rank == -1 or torch.distributed.get_rank() == 0:
        os.makedirs(args.output_dir, exist_ok=True)
        logger.info("Saving model checkpoint to %s", args.output_dir)
        model_to_save = model.module if hasattr(model, "module") else model
        torch.save(model_to_save.state_dict(), os.path.join(args.output_dir, "pytorch_model.bin"))
        torch.save(args, os.path.join(args.output_dir, "training_args.bin"))

    if args.local_rank != -1:
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
